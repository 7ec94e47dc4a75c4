"""The official MCP Python SDK (`mcp` 2.3.0) drives both servers over real HTTP.

- `streamable_http_client` + `ClientSession`: the initialize handshake, list the
  tools, call every tool; `call_tool` validates structuredContent against the
  tool's outputSchema itself (and raises on a mismatch).
- `mcp.Client(url)` in its default mode: the 2026-07-28 revision, with
  `server/discover` and no `initialize` at all.
"""

from __future__ import annotations

import anyio
import mcp
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_helpers import TUDI, live_mcp, module_database

VALID_CALLS = {
    "company": {
        "get_business_info": {},
        "list_categories": {},
        "search_catalog": {"query": "lennox air conditioner", "tier": "best", "limit": 3},
        "compare_tiers": {"category": "central-ac"},
        "check_service_area": {"postal_code": "63376-1234"},
    },
    "provider": {
        "request_service": {"business_id": TUDI},
        "check_service_area": {"business_id": TUDI, "postal_code": "63376"},
        "search_businesses": {"postal_code": "63376", "category": "central-ac"},
    },
}


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def url_of(live, server: str) -> str:
    return live.company_url() if server == "company" else live.provider_url


async def _legacy_session(url: str, calls: dict) -> dict:
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        initialized = await session.initialize()
        listed = await session.list_tools()
        results = {name: await session.call_tool(name, arguments) for name, arguments in calls.items()}
        bad = await session.call_tool(next(iter(calls)), {"surprise": True})
        return {"init": initialized, "tools": listed.tools, "results": results, "bad": bad}


@pytest.mark.parametrize("server", ["company", "provider"])
def test_client_session_lists_and_calls_every_tool(live, server):
    calls = VALID_CALLS[server]
    outcome = anyio.run(_legacy_session, url_of(live, server), calls)
    assert outcome["init"].protocol_version == "2025-11-25"
    assert {tool.name for tool in outcome["tools"]} == set(calls)
    for tool in outcome["tools"]:
        assert tool.output_schema and tool.annotations.read_only_hint is True
    for name, result in outcome["results"].items():
        assert result.is_error is False, (name, result.content)
        assert result.structured_content  # and the SDK validated it against outputSchema
    assert outcome["bad"].is_error is True and "surprise" in outcome["bad"].content[0].text


async def _provider_widget(url: str):
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_resources()
        read_back = await session.read_resource("ui://widget/request-service.html")
        return listed, read_back


def test_client_session_reads_the_widget(live):
    listed, read_back = anyio.run(_provider_widget, live.provider_url)
    assert [str(r.uri) for r in listed.resources] == ["ui://widget/request-service.html"]
    contents = read_back.contents[0]
    assert contents.mime_type == "text/html;profile=mcp-app" and "<!doctype html>" in contents.text


async def _modern_client(url: str, calls: dict) -> dict:
    async with mcp.Client(url) as client:
        listed = await client.list_tools()
        results = {name: await client.call_tool(name, arguments) for name, arguments in calls.items()}
        return {
            "version": client.protocol_version,
            "discovered": client.session.discover_result is not None,
            "initialized": client.session.initialize_result,
            "instructions": client.instructions,
            "server_info": client.server_info,
            "tools": listed.tools,
            "results": results,
        }


@pytest.mark.parametrize("server", ["company", "provider"])
def test_high_level_client_default_mode_speaks_2026_07_28_without_initialize(live, server):
    calls = VALID_CALLS[server]
    live.seen_methods.clear()
    outcome = anyio.run(_modern_client, url_of(live, server), calls)
    assert outcome["version"] == "2026-07-28"
    assert outcome["discovered"] is True and outcome["initialized"] is None
    assert "server/discover" in live.seen_methods and "initialize" not in live.seen_methods
    assert outcome["instructions"] and outcome["server_info"].name.startswith("contractor_commerce")
    assert {tool.name for tool in outcome["tools"]} == set(calls)
    for name, result in outcome["results"].items():
        assert result.is_error is False, (name, result.content)
        assert result.structured_content
