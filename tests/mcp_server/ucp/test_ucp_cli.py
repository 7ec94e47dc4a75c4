"""Reference clients drive the UCP endpoint over real HTTP: the UCP CLI and the MCP Python SDK.

`ucp` is @shopify/ucp-cli 0.9.0 (tools/node_modules/.bin, Node 22 first on
PATH). It discovers a business at the root of its host only, so the app maps
`COMPANY_HOSTS=localhost=<key>` and the CLI is pointed at
`http://localhost:PORT` (plain http for loopback needs
UCP_TEST_ALLOW_INSECURE_LOCALHOST=true).

It runs with two agent profiles, one per release:

- its default, 2026-08-25: with no profile set up at all, discovery uses the
  CLI's managed Profile, which finds 2026-08-25 at `/.well-known/ucp`. The
  managed Profile's URLs are public https URLs this machine cannot reach, so
  for the calls (the business fetches the agent's profile) the CLI's own
  bundled 2026-08-25 body is served on loopback and selected with
  UCP_AGENT_PROFILE_URL, which pins exactly that default rendering;
- a 2026-04-08 DIY profile (`ucp profile init --version 2026-04-08`), whose
  body the loopback server serves: the CLI finds 2026-04-08 through the
  business profile's `supported_versions`.

The app fetches those profiles (UCP_ALLOW_INSECURE_PROFILES=true) and
answers in the release each declares.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests import REPO_ROOT
from tests.mcp_helpers import TUDI, module_database
from tests.ucp_helpers import RELEASES, V0408, V0825, Route, assert_own_schema, ucp_live

NODE_BIN = REPO_ROOT / "tools" / "node_modules" / ".bin"
CLI_PACKAGE = NODE_BIN.parent / "@shopify" / "ucp-cli"
JSON_HEADERS = {"Content-Type": "application/json", "Cache-Control": "public, max-age=300"}


def default_agent_profile() -> bytes:
    """The CLI's bundled 2026-08-25 agent profile, byte for byte (what its release-default URL serves)."""
    source = (CLI_PACKAGE / "src" / "core" / "generated" / V0825 / "agent_profile.ts").read_text(encoding="utf-8")
    literal = re.search(r'export const agentProfileJson: string = ("(?:[^"\\]|\\.)*")', source)
    assert literal, "ucp-cli no longer ships its 2026-08-25 agent profile where this test reads it"
    body = json.loads(literal.group(1))
    assert json.loads(body)["ucp"]["version"] == V0825
    return body.encode("utf-8")


def cli_environment(home: Path, agent_url: str | None) -> dict:
    """The CLI's environment: its own home, loopback http allowed, no proxies, strict input checks."""
    env = {
        **os.environ,
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "UCP_HOME": str(home),
        "UCP_TEST_ALLOW_INSECURE_LOCALHOST": "true",
        "UCP_STRICT_SCHEMA": "1",
        "NO_PROXY": "*",
        "no_proxy": "*",
    }
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "UCP_BUSINESS",
        "UCP_PROFILE",
        "UCP_AGENT_PROFILE_URL",
    ):
        env.pop(name, None)
    if agent_url is not None:
        env["UCP_AGENT_PROFILE_URL"] = agent_url
    return env


def runner(env: dict):
    """`ucp ... --format json` in `env`; its parsed output (the command must succeed)."""

    def run(*args: str) -> dict:
        done = subprocess.run(["ucp", *args, "--format", "json"], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"ucp {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)

    return run


@pytest.fixture(scope="module")
def cli(request, tmp_path_factory):
    """The app (localhost mapped to Tudi's), loopback agent profiles and a `ucp` runner per release."""
    with ucp_live(module_database(request), COMPANY_HOSTS=f"localhost={TUDI}") as live:
        # The default profile: no `profile init`; the bundled body at a loopback URL.
        default_url = live.profiles.add(
            "/cli-default-agent.json", Route(body=default_agent_profile(), headers=JSON_HEADERS)
        )
        managed = runner(cli_environment(tmp_path_factory.mktemp("ucp-managed"), None))
        runs = {V0825: runner(cli_environment(tmp_path_factory.mktemp("ucp-default"), default_url))}
        # A 2026-04-08 DIY profile, created by the CLI and served as written.
        diy_url = live.profiles.url + "/cli-agent.json"
        diy = runner(cli_environment(tmp_path_factory.mktemp("ucp-0408"), diy_url))
        created = diy(
            "profile", "init", "--name", "test-agent", "--version", V0408, "--profile-url", diy_url, "--activate"
        )
        body = (Path(created["path"]) / "profile.json").read_bytes()
        assert json.loads(body)["ucp"]["version"] == V0408
        live.profiles.add("/cli-agent.json", Route(body=body, headers=JSON_HEADERS))
        runs[V0408] = diy
        business = "http://localhost:" + live.live.url.rsplit(":", 1)[1]
        yield live, runs, managed, business


def test_the_cli_default_managed_profile_discovers_2026_08_25_at_the_root(cli):
    _, _, managed, business = cli
    assert {r["version"]: r["profile_url"] for r in managed("profile", "show")["renderings"]}.keys() == set(RELEASES)
    discovered = managed("discover", "--business", business)["result"]
    assert discovered["protocol"]["version"] == V0825 and discovered["protocol"]["source"] == "well-known"
    assert discovered["protocol"]["businessProfileUrl"] == f"{business}/.well-known/ucp"
    assert discovered["protocol"]["agentProfileUrl"].endswith(f"/{V0825}/valid-with-capabilities.json")
    assert discovered["profile"]["ucp"]["supported_versions"] == {V0408: f"{business}/.well-known/ucp/{V0408}"}


@pytest.mark.parametrize("version", RELEASES)
def test_ucp_cli_discovers_the_business_at_its_root(cli, version):
    _, runs, _, business = cli
    discovered = runs[version]("discover", "--business", business)["result"]
    source, url = (
        ("well-known", f"{business}/.well-known/ucp")
        if version == V0825
        else ("supported_versions", f"{business}/.well-known/ucp/{version}")
    )
    assert discovered["protocol"]["version"] == version and discovered["protocol"]["source"] == source
    assert discovered["protocol"]["businessProfileUrl"] == url
    assert discovered["profile"]["ucp"]["version"] == version
    text = json.dumps(discovered)
    assert f"{business}/ucp/mcp" in text
    for tool in ("search_catalog", "lookup_catalog", "get_product"):
        assert tool in text


@pytest.mark.parametrize("version", RELEASES)
def test_ucp_cli_catalog_search(cli, version):
    live, runs, _, business = cli
    answer = runs[version](
        "catalog",
        "search",
        "--business",
        business,
        "--set",
        "/query=lennox air conditioner",
        "--set-string",
        "/context/postal_code=63376",
    )
    assert answer["endpoint"] == f"{business}/ucp/mcp" and answer["transport"] == "mcp"
    result = answer["result"]
    assert_own_schema({"ucp": answer["ucp"], **result}, "search_catalog", "the CLI's search result")
    assert result["products"][0]["id"] == "category:central-ac"
    assert {v["sku"] for v in result["products"][0]["variants"]} >= {"CAC-3T-BETTER", "CAC-4T-BEST"}
    assert result["messages"][0]["code"] == "published_estimate"
    path = "/cli-default-agent.json" if version == V0825 else "/cli-agent.json"
    assert live.profiles.count(path) >= 1  # the business fetched the CLI's profile to negotiate
    assert answer["ucp"] == {
        "version": version,
        "capabilities": {"dev.ucp.shopping.catalog.search": [{"version": version}]},
    }
    units = {json.dumps(v.get("quantity_unit")) for v in result["products"][0]["variants"]}
    assert units == ({'{"unit": "C62", "display_text": "each"}'} if version == V0825 else {"null"})
    assert ("policies" in result) is (version == V0825)


@pytest.mark.parametrize("version", RELEASES)
def test_ucp_cli_catalog_lookup_and_get_product(cli, version):
    _, runs, _, business = cli
    run = runs[version]
    looked_up = run(
        "catalog",
        "lookup",
        "--business",
        business,
        "--input",
        json.dumps({"ids": ["sku:CAC-3T-BETTER", "category:air-filters", "sku:NOPE"]}),
    )
    result = looked_up["result"]
    assert looked_up["ucp"]["version"] == version
    assert_own_schema({"ucp": looked_up["ucp"], **result}, "lookup_catalog", "the CLI's lookup result")
    assert [p["id"] for p in result["products"]] == ["category:central-ac", "category:air-filters"]
    assert result["products"][0]["variants"][0]["inputs"] == [{"id": "sku:CAC-3T-BETTER", "match": "exact"}]
    assert {"type": "info", "code": "not_found", "content": "sku:NOPE"} in result["messages"]
    answer = run("catalog", "get_product", "sku:CAC-4T-BEST", "--business", business)
    detail = answer["result"]
    assert answer["ucp"]["version"] == version
    assert_own_schema({"ucp": answer["ucp"], **detail}, "get_product", "the CLI's get_product result")
    assert detail["product"]["variants"][0]["price"] == {"amount": 1350050, "currency": "USD"}


async def _sdk_session(url: str, agent: str):
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        meta = {"ucp-agent": {"profile": agent}}
        found = await session.call_tool("search_catalog", {"meta": meta, "catalog": {"query": "furnace"}})
        missing = await session.call_tool("get_product", {"meta": meta, "catalog": {"id": "category:nope"}})
        return tools.tools, found, missing


@pytest.mark.parametrize("version", RELEASES)
def test_the_mcp_python_sdk_validates_results_against_the_output_schemas(cli, version):
    live, _, _, _ = cli
    tools, found, missing = anyio.run(_sdk_session, live.endpoint(TUDI), live.agent_of(version))
    assert [t.name for t in tools] == ["search_catalog", "lookup_catalog", "get_product"]
    assert found.is_error is False and found.structured_content["products"][0]["id"] == "category:gas-furnace"
    assert found.structured_content["ucp"]["version"] == version
    assert missing.structured_content["ucp"]["status"] == "error"  # the SDK checked both against outputSchema
