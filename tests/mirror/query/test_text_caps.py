"""Free text has one length cap per kind of field on every surface (mirror/query/limits.py).

A search query or a name: SEARCH_TEXT_MAX (200) on the MCP tools and UCP's
`catalog.query`, category filters and ids; a question: QUESTION_TEXT_MAX
(500) on NLWeb `/ask` and A2A text parts. One character more is refused in
the surface's own shape (UCP: JSON-RPC -32602 `invalid_request`; A2A:
JSON-RPC -32602; NLWeb: 400 INVALID_REQUEST; an MCP tool: its invalid-argument
error), never a 500 and never cut; exactly the cap is answered. Over real
HTTP.
"""

from __future__ import annotations

import pytest
import requests

from mirror.query.limits import QUESTION_TEXT_MAX, SEARCH_TEXT_MAX
from tests.mcp_helpers import TUDI, call_tool, module_database
from tests.rpc_helpers import A2A_HEADERS
from tests.ucp_helpers import ucp_live
from web.jsonrpc import INVALID_PARAMS


@pytest.fixture(scope="module")
def ucp(request):
    with ucp_live(module_database(request)) as live:
        yield live


def _text(length: int) -> str:
    """A question of exactly `length` characters that no whitespace-stripping shortens."""
    return ("heat pump " * length)[: length - 1] + "x"


def test_the_text_helper_makes_exact_lengths():
    assert [len(_text(n)) for n in (1, 199, 200, 201, 500, 501)] == [1, 199, 200, 201, 500, 501]


@pytest.mark.parametrize(
    "catalog",
    [
        lambda n: {"query": _text(n)},
        lambda n: {"query": "heat pump", "filters": {"categories": [_text(n)]}},
        lambda n: {"query": "heat pump", "context": {"postal_code": _text(n)}},
    ],
    ids=["query", "category", "postal_code"],
)
def test_ucp_search_text_over_the_cap_is_invalid_params(ucp, catalog):
    assert "result" in ucp.call("search_catalog", catalog(SEARCH_TEXT_MAX))
    error = ucp.rpc_error("search_catalog", catalog(SEARCH_TEXT_MAX + 1))
    assert error["code"] == INVALID_PARAMS
    assert error["data"]["code"] == "invalid_request"
    assert str(SEARCH_TEXT_MAX) in error["message"]


def test_ucp_ids_and_intent_are_capped_too(ucp):
    error = ucp.rpc_error("lookup_catalog", {"ids": [_text(SEARCH_TEXT_MAX + 1)]})
    assert error["code"] == INVALID_PARAMS and error["data"]["code"] == "invalid_request"
    error = ucp.rpc_error("get_product", {"id": _text(SEARCH_TEXT_MAX + 1)})
    assert error["code"] == INVALID_PARAMS
    intent = {"query": "heat pump", "context": {"intent": _text(QUESTION_TEXT_MAX + 1)}}
    assert ucp.rpc_error("search_catalog", intent)["code"] == INVALID_PARAMS
    assert "result" in ucp.call("search_catalog", {**intent, "context": {"intent": _text(QUESTION_TEXT_MAX)}})


def _a2a(ucp, text: str) -> requests.Response:
    message = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    body = {"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": message}
    return requests.post(f"{ucp.live.url}/companies/{TUDI}/a2a", json=body, headers=A2A_HEADERS, timeout=30)


def test_a2a_text_over_the_question_cap_is_invalid_params(ucp):
    answered = _a2a(ucp, _text(QUESTION_TEXT_MAX))
    assert answered.status_code == 200 and "result" in answered.json()
    refused = _a2a(ucp, _text(QUESTION_TEXT_MAX + 1))
    assert refused.status_code == 200  # A2A sends its JSON-RPC errors with HTTP 200
    error = refused.json()
    assert error["id"] == 3 and error["error"]["code"] == INVALID_PARAMS
    assert str(QUESTION_TEXT_MAX) in error["error"]["message"]
    # 15,000 characters (the body limit is 16 KB) are refused the same way, before any understanding.
    assert _a2a(ucp, _text(15_000)).json()["error"]["code"] == INVALID_PARAMS


def test_ask_and_mcp_keep_the_same_caps(ucp):
    ask = f"{ucp.live.url}/companies/{TUDI}/ask"
    assert requests.post(ask, json={"query": {"text": _text(QUESTION_TEXT_MAX)}}, timeout=30).status_code == 200
    refused = requests.post(ask, json={"query": {"text": _text(QUESTION_TEXT_MAX + 1)}}, timeout=30)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "INVALID_REQUEST"
    url = ucp.live.company_url()
    assert call_tool(url, "search_catalog", {"query": _text(SEARCH_TEXT_MAX)})["isError"] is False
    over = call_tool(url, "search_catalog", {"query": _text(SEARCH_TEXT_MAX + 1)})
    assert over["isError"] is True and str(SEARCH_TEXT_MAX) in over["content"][0]["text"]
