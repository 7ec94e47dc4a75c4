"""Reference clients drive the UCP endpoint over real HTTP: the UCP CLI and the MCP Python SDK.

`ucp` is @shopify/ucp-cli 0.9.0 (tools/node_modules/.bin, Node 22 first on
PATH). It discovers a business at the root of its host only, so the app maps
`COMPANY_HOSTS=localhost=<key>` and the CLI is pointed at
`http://localhost:PORT` (plain http for loopback needs
UCP_TEST_ALLOW_INSECURE_LOCALHOST=true). Its own agent profile is a public
https URL this machine cannot reach, so the test serves a 2026-04-08 agent
profile on loopback: a DIY profile (`ucp profile init --version 2026-04-08`)
whose body the loopback server serves, selected with UCP_AGENT_PROFILE_URL.
The app fetches that profile (UCP_ALLOW_INSECURE_PROFILES=true) and
negotiates against it, as it would any agent's.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_helpers import BACKENDS, TUDI, module_database
from tests.ucp_helpers import Route, assert_own_schema, ucp_live

NODE_BIN = Path(__file__).resolve().parent.parent / "tools" / "node_modules" / ".bin"


@pytest.fixture(scope="module", params=BACKENDS)
def cli(request, tmp_path_factory):
    """The app (localhost mapped to Tudi's), a loopback agent profile and a `ucp` runner."""
    home = tmp_path_factory.mktemp("ucp-home")
    with ucp_live(module_database(request.param, tmp_path_factory, request), COMPANY_HOSTS=f"localhost={TUDI}") as live:
        agent_url = live.profiles.url + "/cli-agent.json"
        env = {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "UCP_HOME": str(home),
               "UCP_TEST_ALLOW_INSECURE_LOCALHOST": "true", "UCP_AGENT_PROFILE_URL": agent_url,
               "UCP_STRICT_SCHEMA": "1", "NO_PROXY": "*", "no_proxy": "*"}
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "UCP_BUSINESS", "UCP_PROFILE"):
            env.pop(name, None)

        def run(*args: str) -> dict:
            done = subprocess.run(["ucp", *args, "--format", "json"], env=env, capture_output=True, text=True,
                                  timeout=60)
            assert done.returncode == 0, f"ucp {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
            return json.loads(done.stdout)

        created = run("profile", "init", "--name", "test-agent", "--version", "2026-04-08", "--profile-url",
                      agent_url, "--activate")
        body = (Path(created["path"]) / "profile.json").read_bytes()  # the CLI's own 2026-04-08 agent profile
        live.profiles.add("/cli-agent.json", Route(body=body, headers={"Content-Type": "application/json",
                                                                       "Cache-Control": "public, max-age=300"}))
        business = "http://localhost:" + live.live.url.rsplit(":", 1)[1]
        yield live, run, business


def test_ucp_cli_discovers_the_business_at_its_root(cli):
    _, run, business = cli
    discovered = run("discover", "--business", business)
    text = json.dumps(discovered)
    assert f"{business}/ucp/mcp" in text
    for tool in ("search_catalog", "lookup_catalog", "get_product"):
        assert tool in text


def test_ucp_cli_catalog_search(cli):
    live, run, business = cli
    answer = run("catalog", "search", "--business", business, "--set", "/query=lennox air conditioner",
                 "--set-string", "/context/postal_code=63376")
    assert answer["endpoint"] == f"{business}/ucp/mcp" and answer["transport"] == "mcp"
    result = answer["result"]
    assert_own_schema({"ucp": answer["ucp"], **result}, "search_catalog", "the CLI's search result")
    assert result["products"][0]["id"] == "category:central-ac"
    assert {v["sku"] for v in result["products"][0]["variants"]} >= {"CAC-3T-BETTER", "CAC-4T-BEST"}
    assert result["messages"][0]["code"] == "published_estimate"
    assert live.profiles.count("/cli-agent.json") >= 1  # the business fetched the CLI's profile to negotiate
    assert answer["ucp"]["capabilities"] == {"dev.ucp.shopping.catalog.search": [{"version": "2026-04-08"}]}


def test_ucp_cli_catalog_lookup_and_get_product(cli):
    _, run, business = cli
    looked_up = run("catalog", "lookup", "--business", business,
                    "--input", json.dumps({"ids": ["sku:CAC-3T-BETTER", "category:air-filters", "sku:NOPE"]}))
    result = looked_up["result"]
    assert_own_schema({"ucp": looked_up["ucp"], **result}, "lookup_catalog", "the CLI's lookup result")
    assert [p["id"] for p in result["products"]] == ["category:central-ac", "category:air-filters"]
    assert result["products"][0]["variants"][0]["inputs"] == [{"id": "sku:CAC-3T-BETTER", "match": "exact"}]
    assert {"type": "info", "code": "not_found", "content": "sku:NOPE"} in result["messages"]
    answer = run("catalog", "get_product", "sku:CAC-4T-BEST", "--business", business)
    detail = answer["result"]
    assert_own_schema({"ucp": answer["ucp"], **detail}, "get_product", "the CLI's get_product result")
    assert detail["product"]["variants"][0]["price"] == {"amount": 1350050, "currency": "USD"}


async def _sdk_session(url: str, agent: str):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            meta = {"ucp-agent": {"profile": agent}}
            found = await session.call_tool("search_catalog", {"meta": meta, "catalog": {"query": "furnace"}})
            missing = await session.call_tool("get_product", {"meta": meta, "catalog": {"id": "category:nope"}})
            return tools.tools, found, missing


def test_the_mcp_python_sdk_validates_results_against_the_output_schemas(cli):
    live, _, _ = cli
    tools, found, missing = anyio.run(_sdk_session, live.endpoint(TUDI), live.agent)
    assert [t.name for t in tools] == ["search_catalog", "lookup_catalog", "get_product"]
    assert found.is_error is False and found.structured_content["products"][0]["id"] == "category:gas-furnace"
    assert missing.structured_content["ucp"]["status"] == "error"  # the SDK checked both against outputSchema
