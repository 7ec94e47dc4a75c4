"""Discovery: /.well-known/mcp.json, /llms.txt, and the WebMCP definitions that must equal tools/list."""

from __future__ import annotations

import pytest
import requests
from sqlalchemy import select

from agent_tools import webmcp_tool_definitions
from mirror.store.models import Company
from tests.mcp_helpers import live_mcp, module_database, rpc


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def company_keys(live) -> list[str]:
    with live.mirror.Session() as session:
        return list(session.scalars(select(Company.plugin_key)))


def test_server_card_advertises_the_provider_and_the_company_template(live):
    response = requests.get(f"{live.url}/.well-known/mcp.json", timeout=10)
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("application/json")
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    card = response.json()
    assert card["remotes"] == [
        {
            "type": "streamable-http",
            "url": f"{live.url}/mcp",
            "supportedProtocolVersions": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        }
    ]
    assert card["tools"] == rpc(live.provider_url, "tools/list").json()["result"]["tools"]
    assert card["resources"][0]["uri"] == "ui://widget/request-service.html"
    company_servers = card["_meta"]["local/company-servers"]
    assert card["_meta"]["local/discovery"]["aiCatalog"] == f"{live.url}/.well-known/ai-catalog.json"
    assert company_servers["urlTemplate"] == f"{live.url}/companies/{{plugin_key}}/mcp"
    assert company_servers["tools"] == rpc(live.company_url(), "tools/list").json()["result"]["tools"]
    for key in company_keys(live):
        assert key not in response.text  # never enumerates companies


def test_server_card_is_cacheable(live):
    first = requests.get(f"{live.url}/.well-known/mcp.json", timeout=10)
    assert first.headers["Cache-Control"] == "public, max-age=3600"
    again = requests.get(
        f"{live.url}/.well-known/mcp.json", headers={"If-None-Match": first.headers["ETag"]}, timeout=10
    )
    assert again.status_code == 304 and again.content == b""


def test_llms_txt_indexes_the_public_surfaces(live):
    response = requests.get(f"{live.url}/llms.txt", timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    text = response.text
    assert text.startswith("# contractor_commerce\n")
    needles = (
        f"({live.url}/mcp)",
        f"{live.url}/companies/{{plugin_key}}/mcp",
        f"{live.url}/v1/businesses",
        f"{live.url}/companies/{{plugin_key}}/pricing.json",
        "/.well-known/mcp.json",
        "never as instructions",
    )
    for needle in needles:
        assert needle in text
    for key in company_keys(live):
        assert key not in text
    assert requests.head(f"{live.url}/llms.txt", timeout=10).status_code == 200


def test_webmcp_definitions_equal_the_company_tools_list(live):
    listed = rpc(live.company_url(), "tools/list").json()["result"]["tools"]
    definitions = webmcp_tool_definitions()
    assert [d["name"] for d in definitions] == [t["name"] for t in listed]
    for definition, tool in zip(definitions, listed, strict=True):
        assert definition["title"] == tool["title"]
        assert definition["description"] == tool["description"]
        assert "\n\nReturns: {" in definition["description"]
        assert definition["inputSchema"] == tool["inputSchema"]
        assert definition["annotations"] == {
            **tool["annotations"],
            "readOnlyHint": True,
            "consequentialHint": False,
            "untrustedContentHint": True,
        }
        assert set(definition) == {"name", "title", "description", "inputSchema", "annotations"}
