"""The MCP Inspector CLI (@modelcontextprotocol/inspector 1.0.3, Node 22) lists and calls the tools."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests import REPO_ROOT
from tests.mcp_helpers import TUDI, live_mcp, module_database

REPO = REPO_ROOT
NODE_BIN = REPO / "tools" / "node_modules" / ".bin"


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def inspector(url: str, *arguments: str) -> dict:
    """Run the inspector CLI; its stdout is one JSON document."""
    env = {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    completed = subprocess.run(
        [str(NODE_BIN / "mcp-inspector"), "--cli", url, "--transport", "http", *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads(completed.stdout)


@pytest.mark.parametrize(
    "server,expected",
    [
        ("company", ["get_business_info", "list_categories", "search_catalog", "compare_tiers", "check_service_area"]),
        ("provider", ["request_service", "check_service_area", "search_businesses"]),
    ],
)
def test_inspector_lists_the_tools(live, server, expected):
    url = live.company_url() if server == "company" else live.provider_url
    listed = inspector(url, "--method", "tools/list")
    assert [tool["name"] for tool in listed["tools"]] == expected
    assert all(tool["annotations"]["readOnlyHint"] is True for tool in listed["tools"])


def test_inspector_calls_a_tool(live):
    result = inspector(
        live.company_url(),
        "--method",
        "tools/call",
        "--tool-name",
        "check_service_area",
        "--tool-arg",
        'postal_code="63376"',
    )
    assert result["structuredContent"]["served"] is True
    card = inspector(
        live.provider_url,
        "--method",
        "tools/call",
        "--tool-name",
        "request_service",
        "--tool-arg",
        f"business_id={TUDI}",
    )
    assert card["structuredContent"]["provider_business_id"] == TUDI
