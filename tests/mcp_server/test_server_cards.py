"""The AI Catalog and the MCP Server Cards on a live app: documents, headers, the gate, a working template.

Schema validation against the official server-card schema is in
tests/conformance/ (`make conformance`): the schema is not part of this
repository.
"""

from __future__ import annotations

import pytest
import requests
from sqlalchemy import select

from mirror.store.models import Company
from tests.mcp_helpers import MCP_OFF, NOT_LIVE, TUDI, live_mcp, module_database, rpc

CARD_TYPE = "application/mcp-server-card+json"
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Expose-Headers": "ETag",
}


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def get(live, path: str, **headers) -> requests.Response:
    return requests.get(f"{live.url}{path}", headers=headers, timeout=10)


def test_ai_catalog_lists_the_provider_card_and_the_company_template(live):
    response = get(live, "/.well-known/ai-catalog.json")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/ai-catalog+json"
    catalog = response.json()
    assert catalog["specVersion"] == "1.0"
    assert [entry["url"] for entry in catalog["entries"]] == [
        f"{live.url}/mcp/server-card",
        f"{live.url}/mcp/company-server-card",
    ]
    for entry in catalog["entries"]:
        assert entry["type"] == CARD_TYPE and entry["identifier"].startswith("urn:air:127.0.0.1:mcp:")
        assert "data" not in entry  # exactly one of url / data
        assert get(live, entry["url"].removeprefix(live.url)).status_code == 200
    with live.mirror.Session() as session:
        for key in session.scalars(select(Company.plugin_key)):
            assert key not in response.text  # the catalog never enumerates companies


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/ai-catalog.json",
        "/mcp/server-card",
        "/mcp/company-server-card",
        f"/companies/{TUDI}/mcp/server-card",
    ],
)
def test_documents_carry_cache_cors_and_etag(live, path):
    first = get(live, path, Accept=CARD_TYPE)
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "public, max-age=3600"
    for name, value in CORS.items():
        assert first.headers[name] == value
    again = get(live, path, **{"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.content == b""
    preflight = requests.options(
        f"{live.url}{path}",
        headers={
            "Origin": "https://agent.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        },
        timeout=10,
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Headers"] == CORS["Access-Control-Allow-Headers"]


def test_provider_card_matches_the_running_server(live):
    card = get(live, "/mcp/server-card").json()
    (remote,) = card["remotes"]
    assert remote["url"] == live.provider_url
    initialize = rpc(
        live.provider_url,
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    ).json()
    assert initialize["result"]["serverInfo"]["version"] == card["version"]
    assert initialize["result"]["protocolVersion"] in remote["supportedProtocolVersions"]
    assert "tools" not in card  # primitives stay a runtime listing


def test_company_template_expands_to_a_working_endpoint(live):
    card = get(live, "/mcp/company-server-card").json()
    (remote,) = card["remotes"]
    assert remote["url"] == f"{live.url}/companies/{{plugin_key}}/mcp"
    assert remote["variables"]["plugin_key"]["isRequired"] is True
    url = remote["url"].replace("{plugin_key}", TUDI)
    tools = rpc(url, "tools/list").json()["result"]["tools"]
    assert "search_catalog" in {tool["name"] for tool in tools}


def test_company_card_is_the_expanded_template(live):
    card = get(live, f"/companies/{TUDI}/mcp/server-card").json()
    assert card["remotes"][0]["url"] == f"{live.url}/companies/{TUDI}/mcp"
    assert "variables" not in card["remotes"][0]
    assert card["title"] == "Tudi Mechanical Systems catalog"
    assert card["name"] == f"local/company-{TUDI}"


@pytest.mark.parametrize("key", [MCP_OFF, NOT_LIVE, "0" * 40])
def test_closed_and_unknown_keys_get_the_gate_404(live, key):
    closed = get(live, f"/companies/{key}/mcp/server-card")
    reference = get(live, f"/companies/{'1' * 40}/pricing.json")
    assert closed.status_code == 404
    assert closed.content == reference.content


def test_a_long_contractor_name_keeps_the_title_within_the_schema_limit(live):
    from mcp_server.server_cards import TITLE_LIMIT, company_card

    card = company_card(live.mirror.settings, Company(plugin_key=TUDI, name="Heating & Air " * 20))
    assert len(card["title"]) <= TITLE_LIMIT and card["title"].endswith(" catalog")
