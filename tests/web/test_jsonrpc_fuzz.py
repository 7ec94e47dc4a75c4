"""Property-based: any JSON value in any envelope field or tool argument, on every JSON-RPC endpoint (issue 22).

Hypothesis builds messages that are mostly well formed, then puts arbitrary
JSON values (text with lone surrogates and NUL, huge integers, deep nesting)
into one envelope field (`jsonrpc`, `id`, `method`, `params`; A2A's
`message.contextId`, `taskId`, `messageId`, its parts and skill) or into the
arguments of one of the endpoint's own tools (UCP's `meta` and `catalog`
fields, A2A's data-part arguments), sometimes as a 2025-03-26 batch, and
sends it over real HTTP to each endpoint in tests.rpc_helpers.ENDPOINTS,
on Postgres (which refuses NUL in text: a query built from an
argument would fail there). Every answer is a 4xx or a 2xx, never a 5xx; a
202 has no body; anything else is strict UTF-8 JSON holding JSON-RPC
responses (`assert_well_formed`).

The example count comes from the Hypothesis profile (tests/conftest.py):
a bounded one in `make test`, a long one with `make fuzz`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.mcp_helpers import module_database
from tests.rpc_helpers import ENDPOINTS, Endpoint, assert_well_formed
from tests.ucp_helpers import ucp_live

MCP_METHODS = ["tools/call"] * 4 + ["tools/list", "initialize", "ping", "resources/read", "notifications/initialized"]
A2A_METHODS = ["SendMessage"] * 4 + ["GetTask", "CancelTask", "ListTasks", "SendStreamingMessage"]
HOSTILE = ["\ud800", "\udfff", "x\ud800", "\ud800\u0000", "\ud83d", "\u0000", "a\u0000b", "\ud83d\ude00"]

characters = st.characters() | st.characters(categories=["Cs"]) | st.just("\x00")
texts = st.text(characters, max_size=12) | st.sampled_from(HOSTILE)
scalars = st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63) | st.floats() | texts


@dataclass(frozen=True)
class Deep:
    """A value nested `depth` levels deep: written by `encode` as text (deeper than json.dumps recurses)."""

    depth: int
    leaf: object
    as_object: bool


def encode(value) -> str:
    """JSON text of a value that may hold `Deep` parts (ASCII: surrogates and NUL as \\u escapes)."""
    if isinstance(value, Deep):
        opening, closing = ('{"a":', "}") if value.as_object else ("[", "]")
        return opening * value.depth + encode(value.leaf) + closing * value.depth
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key)}:{encode(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(encode(item) for item in value) + "]"
    return json.dumps(value)


deep = st.builds(Deep, st.integers(1, 3000), scalars, st.booleans())
json_values = (
    st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3), max_leaves=8
    )
    | deep
)
maybe = st.one_of  # readability: a valid value, or anything


def argument_names(tool) -> list[str]:
    return list(tool.input_schema.get("properties", {}))


@st.composite
def tool_arguments(draw, endpoint: Endpoint, tool, profile: str) -> dict:
    """Arguments for one of the endpoint's tools: its own names (and some others), values valid or not."""
    if endpoint.ucp:
        catalog_names = list(tool.input_schema["properties"]["catalog"].get("properties", {}))
        catalog = draw(st.dictionaries(st.sampled_from(catalog_names) | texts, json_values, max_size=3))
        meta = draw(maybe(st.just({"ucp-agent": {"profile": profile}}), json_values))
        arguments = {"meta": meta, "catalog": catalog}
        if draw(st.integers(0, 4)) == 0:
            del arguments[draw(st.sampled_from(["meta", "catalog"]))]
        return arguments
    names = argument_names(tool)
    return draw(st.dictionaries(st.sampled_from(names) | texts if names else texts, json_values, max_size=3))


@st.composite
def mcp_message(draw, endpoint: Endpoint, profile: str) -> dict:
    method = draw(maybe(st.sampled_from(MCP_METHODS), texts))
    message: dict = {"jsonrpc": "2.0", "id": draw(maybe(st.integers(0, 2**53), texts)), "method": method}
    if method == "tools/call":
        tool = draw(st.sampled_from(endpoint.tools))
        name = draw(maybe(st.just(tool.name), texts))
        message["params"] = {"name": name, "arguments": draw(tool_arguments(endpoint, tool, profile))}
    elif method == "resources/read":
        message["params"] = {"uri": draw(maybe(st.just("ui://widget/request-service.html"), texts))}
    else:
        message["params"] = draw(st.dictionaries(texts, json_values, max_size=2))
    return message


@st.composite
def a2a_message(draw, endpoint: Endpoint, profile: str) -> dict:
    tool = draw(st.sampled_from(endpoint.tools))
    if draw(st.booleans()):
        data = {
            "skill": draw(maybe(st.just(tool.name), json_values)),
            "arguments": draw(tool_arguments(endpoint, tool, profile)),
        }
        part = {"data": data}
    else:
        part = {"text": draw(maybe(st.sampled_from(["furnace", "63376", "heat pump near 63385"]), json_values))}
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [part]}
    for field in ("contextId", "taskId", "messageId"):
        if draw(st.booleans()):
            message[field] = draw(maybe(st.just("c-1"), texts, json_values))
    method = draw(maybe(st.sampled_from(A2A_METHODS), texts))
    return {
        "jsonrpc": "2.0",
        "id": draw(maybe(st.integers(0, 2**53), texts)),
        "method": method,
        "params": {"message": message},
    }


@st.composite
def exchanges(draw, endpoint: Endpoint, profile: str) -> tuple[object, dict]:
    """A message (with at most one envelope field broken) or an MCP batch, and extra headers."""
    build = a2a_message if endpoint.protocol == "a2a" else mcp_message
    message = draw(build(endpoint, profile))
    if draw(st.booleans()):
        field = draw(st.sampled_from(["jsonrpc", "id", "method", "params"]))
        if draw(st.integers(0, 3)) == 0:
            del message[field]
        else:
            message[field] = draw(json_values)
    extra: dict = {}
    if endpoint.protocol == "mcp":
        if draw(st.integers(0, 3)) == 0:
            message = [message, *draw(st.lists(build(endpoint, profile), max_size=2))]
        elif draw(st.booleans()):
            extra["MCP-Protocol-Version"] = "2025-11-25"
    return message, extra


@pytest.fixture(scope="module")
def live(request):
    limits = {
        "RATE_LIMIT_PER_COMPANY": "1000000/hour",
        "RATE_LIMIT_PER_CLIENT": "1000000/minute",
        "UCP_PROFILE_FETCHES_PER_CLIENT": "1000000/minute",
    }
    with ucp_live(module_database(request), **limits) as server:
        yield server


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_any_json_in_any_field_gets_a_well_formed_answer(live, http, endpoint, data):
    message, extra = data.draw(exchanges(endpoint, live.agent), label="exchange")
    response = endpoint.post(http, live.live.url, encode(message).encode(), extra)
    event(f"HTTP {response.status_code}")  # --hypothesis-show-statistics shows the mix
    assert_well_formed(response, message)
