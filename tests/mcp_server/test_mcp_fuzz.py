"""Property-based: malformed JSON-RPC thrown at both MCP servers never gets a 5xx.

Hypothesis builds near-miss messages (wrong types for every member, unknown
methods, tools/call with hostile names and argument objects), raw bytes and
odd headers, and sends them over real HTTP. Whatever arrives, the answer is a
4xx, a 202 without a body, or a 200 JSON-RPC response with the request's id.
"""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_tools import COMPANY_TOOLS, PROVIDER_TOOLS
from tests.mcp_helpers import live_mcp, module_database

METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "server/discover",
    "notifications/initialized",
    "logging/setLevel",
    "completion/complete",
]
TOOL_NAMES = sorted({t.name for t in COMPANY_TOOLS + PROVIDER_TOOLS})
ARGUMENT_NAMES = ["query", "category", "tier", "max_price", "limit", "postal_code", "business_id", "_meta"]

PARAM_NAMES = ["protocolVersion", "capabilities", "clientInfo", "uri", "name", "cursor", "arguments"]
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
arguments = st.dictionaries(st.sampled_from(ARGUMENT_NAMES) | st.text(max_size=8), json_values, max_size=4)
garbage_messages = st.dictionaries(
    st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]), json_values, max_size=5
)


def header_value(text: str) -> str:
    """As 2026-07-28 clients send it: plain when safe, else the base64 sentinel."""
    if text and text.isascii() and text.isprintable() and text == text.strip() and not text.startswith("=?"):
        return text
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


@st.composite
def near_misses(draw) -> tuple[dict, dict]:
    """A plausible request (often fully valid) with at most one member broken, and matching headers."""
    method = draw(st.sampled_from(METHODS))
    message = {"jsonrpc": "2.0", "id": draw(st.integers(0, 2**53) | st.text(max_size=12)), "method": method}
    if method == "tools/call":
        message["params"] = {
            "name": draw(st.sampled_from(TOOL_NAMES) | st.text(max_size=12)),
            "arguments": draw(arguments),
        }
    else:
        message["params"] = draw(st.dictionaries(st.sampled_from(PARAM_NAMES), json_values, max_size=3))
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    era = draw(st.sampled_from(["none", "legacy", "modern"]))
    if era == "legacy":
        headers["MCP-Protocol-Version"] = draw(st.sampled_from(["2025-11-25", "2025-06-18", "2025-03-26"]))
    elif era == "modern":
        message["params"]["_meta"] = dict(ENVELOPE)
        headers.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method})
        if isinstance(message["params"].get("name"), str):
            headers["Mcp-Name"] = header_value(message["params"]["name"])
    if draw(st.booleans()):
        broken = draw(st.sampled_from(["jsonrpc", "id", "method", "params", "header"]))
        if broken == "header":
            headers[draw(st.sampled_from(["Mcp-Method", "Mcp-Name", "MCP-Protocol-Version", "Origin"]))] = draw(
                st.text(alphabet="abc/=?-0123456789", max_size=12)
            )
        elif draw(st.booleans()):
            del message[broken]
        else:
            message[broken] = draw(json_values)
    return message, headers


raw_headers = st.fixed_dictionaries(
    {"Content-Type": st.sampled_from(["application/json"] * 3 + ["text/plain", "application/json; charset=ebcdic"])},
    optional={
        "Accept": st.sampled_from(["application/json", "*/*", "text/html", ""]),
        "MCP-Protocol-Version": st.sampled_from(["2025-11-25", "2026-07-28", "2024-11-05", "bogus"]),
        "Origin": st.sampled_from(["https://evil.example", "null"]),
    },
)
raw_bodies = (
    garbage_messages.map(lambda m: json.dumps(m).encode())
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.lists(garbage_messages, max_size=3).map(lambda batch: json.dumps(batch).encode())
    | st.binary(max_size=300)
)
exchanges = near_misses().map(lambda pair: (json.dumps(pair[0]).encode(), pair[1])) | st.tuples(raw_bodies, raw_headers)


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


@pytest.mark.parametrize("server", ["company", "provider"])
def test_malformed_json_rpc_never_gets_a_server_error(live, http, server):
    url = live.company_url() if server == "company" else live.provider_url

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(exchange=exchanges)
    def throw(exchange: tuple[bytes, dict]) -> None:
        body, extra = exchange
        response = http.post(url, data=body, headers=extra, timeout=30)
        event(f"HTTP {response.status_code}")  # --hypothesis-show-statistics shows the mix
        assert response.status_code < 500, (body, extra, response.text[:500])
        if response.status_code == 202:
            assert response.content == b""
        elif response.status_code == 200:
            sent, answer = json.loads(body), response.json()
            if isinstance(sent, list):  # a 2025-03-26 batch: one response per request in it, in order
                assert isinstance(answer, list) and 0 < len(answer) <= len(sent)
                for item in answer:
                    assert item["jsonrpc"] == "2.0" and ("result" in item) != ("error" in item)
                return
            assert answer["jsonrpc"] == "2.0" and ("result" in answer) != ("error" in answer)
            assert answer["id"] == sent["id"]

    throw()
