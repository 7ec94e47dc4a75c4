"""One JSON-RPC core under every endpoint (issue 22, finding 2), over real HTTP.

A lone surrogate in an envelope field (`"id":"\\ud800"`, `"method":"\\udfff"`,
an A2A `contextId`) used to be a 500 on every JSON-RPC endpoint: the response
serialiser raised UnicodeEncodeError while echoing it. Now the core
(web/jsonrpc.py) refuses unstorable text (NUL, lone surrogates: the one rule
of mirror/values/storable.py) in every field an answer echoes, with -32600 and
`id: null`, on each of /companies/{key}/mcp, /mcp, /companies/{key}/ucp/mcp,
the COMPANY_HOSTS /ucp/mcp, /companies/{key}/webmcp/mcp, /companies/{key}/a2a
and /a2a (a mapped domain's agent and the directory); and its serialiser
cannot raise on any string. A2A notifications get no body, and A2A-Version
is exactly a version the agents speak.
"""

from __future__ import annotations

import json
import logging

import pytest
import requests

from tests.mcp_helpers import module_database
from tests.rpc_helpers import ENDPOINTS, Endpoint, assert_well_formed
from tests.ucp_helpers import ucp_live
from web.jsonrpc import INTERNAL_ERROR_BODY, serialise

HOSTILE_IDS = ["\ud800", "x\ud800", "\ud800\u0000", "\udfff", "\ud83d", "nul \u0000 here"]


@pytest.fixture(scope="module")
def live(request):
    with ucp_live(module_database(request)) as server:
        yield server


def valid_message(endpoint: Endpoint, live, **fields) -> dict:
    """A request each endpoint serves with a result (a SendMessage on A2A, tools/list on MCP)."""
    if endpoint.protocol == "a2a":
        skill = endpoint.tools[0].name
        arguments = {"query": "furnace"} if skill == "search_businesses" else {}
        part = {"data": {"skill": skill, "arguments": arguments}}
        params = {"message": {"messageId": "m-1", "contextId": "c-1", "role": "ROLE_USER", "parts": [part]}}
        return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params, **fields}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/list", **fields}


def send(http, live, endpoint: Endpoint, message, extra: dict | None = None) -> tuple[requests.Response, object]:
    body = json.dumps(message).encode()  # ASCII: every surrogate and NUL travels as a \\u escape
    return endpoint.post(http, live.live.url, body, extra), message


def invalid_request(response: requests.Response, sent, status: int) -> dict:
    answer = assert_well_formed(response, sent)
    assert response.status_code == status, response.text
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    return answer["error"]


def rpc_status(endpoint: Endpoint) -> int:
    """The HTTP status of -32600: MCP sends it with 400, A2A with 200 (as the A2A SDK's server does)."""
    return 200 if endpoint.protocol == "a2a" else 400


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
def test_every_endpoint_answers_a_valid_request(live, http, endpoint):
    response, sent = send(http, live, endpoint, valid_message(endpoint, live))
    answer = assert_well_formed(response, sent)
    assert response.status_code == 200 and "result" in answer and answer["id"] == 1, answer


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=ascii)
def test_an_unstorable_id_is_an_invalid_request_with_a_null_id(live, http, endpoint, hostile):
    response, sent = send(http, live, endpoint, valid_message(endpoint, live, id=hostile))
    error = invalid_request(response, sent, rpc_status(endpoint))
    assert '"id"' in error["message"]


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize("hostile", ["\udfff", "tools/list\ud800", "\u0000"], ids=ascii)
def test_an_unstorable_method_is_an_invalid_request_with_a_null_id(live, http, endpoint, hostile):
    response, sent = send(http, live, endpoint, valid_message(endpoint, live, method=hostile))
    error = invalid_request(response, sent, rpc_status(endpoint))
    assert '"method"' in error["message"]


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.protocol == "a2a"], ids=lambda e: e.name)
@pytest.mark.parametrize("field", ["contextId", "taskId", "messageId"])
def test_an_unstorable_a2a_message_id_is_an_invalid_request(live, http, endpoint, field):
    message = valid_message(endpoint, live)
    message["params"]["message"][field] = "ctx-\ud800"
    response, sent = send(http, live, endpoint, message)
    error = invalid_request(response, sent, 200)
    assert f'"params.message.{field}"' in error["message"]


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.protocol == "mcp"], ids=lambda e: e.name)
def test_a_batch_element_with_an_unstorable_id_is_refused_in_place(live, http, endpoint):
    batch = [valid_message(endpoint, live, id="\ud800"), valid_message(endpoint, live, id=2)]
    response, sent = send(http, live, endpoint, batch)
    answers = assert_well_formed(response, sent)
    assert response.status_code == 200
    assert answers[0]["id"] is None and answers[0]["error"]["code"] == -32600
    assert answers[1]["id"] == 2 and "result" in answers[1]


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.protocol == "mcp"], ids=lambda e: e.name)
def test_an_unknown_resource_uri_that_cannot_be_echoed_is_refused(live, http, endpoint):
    message = {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "ui://\ud800"}}
    response, sent = send(http, live, endpoint, message)
    invalid_request(response, sent, 400)


# --- A2A: notifications and the version rule ------------------------------------------------------


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.protocol == "a2a"], ids=lambda e: e.name)
def test_an_a2a_notification_gets_no_response_body(live, http, endpoint):
    message = valid_message(endpoint, live)
    del message["id"]
    response, _ = send(http, live, endpoint, message)
    assert response.status_code == 202 and response.content == b""


def test_a2a_version_one_point_zero_is_served(live, http):
    endpoint = ENDPOINTS[-1]
    response, sent = send(http, live, endpoint, valid_message(endpoint, live), {"A2A-Version": "1.0"})
    assert "result" in assert_well_formed(response, sent)


@pytest.mark.parametrize("version", ["1", "1.999999", "1.0, 2.0", "1.1", "1.0.1", "01.0", "2.0", "0.3", "", "v1.0"])
def test_a2a_version_is_exactly_a_major_minor_the_agent_speaks(live, http, version):
    endpoint = ENDPOINTS[-1]
    response, sent = send(http, live, endpoint, valid_message(endpoint, live), {"A2A-Version": version})
    answer = assert_well_formed(response, sent)
    assert response.status_code == 200 and answer["id"] == 1 and answer["error"]["code"] == -32009, answer


# --- the serialiser ----------------------------------------------------------------------------------


def test_the_serialiser_sends_an_unpaired_surrogate_as_a_replacement_character():
    body = serialise({"jsonrpc": "2.0", "id": None, "result": {"text": "half \ud83d of an emoji", "\udc00": 1.5}})
    assert json.loads(body.decode("utf-8")) == {
        "jsonrpc": "2.0",
        "id": None,
        "result": {"text": "half \ufffd of an emoji", "\ufffd": 1.5},
    }


def test_the_serialiser_writes_non_finite_numbers_as_null_and_big_integers_exactly():
    body = serialise({"a": float("nan"), "b": float("-inf"), "c": 2**80, "d": "\u0000"})
    assert body == b'{"a":null,"b":null,"c":1208925819614629174706176,"d":"\\u0000"}'


def test_the_serialiser_answers_an_internal_error_instead_of_raising(caplog):
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    with caplog.at_level(logging.ERROR, logger="web.jsonrpc"):
        assert serialise({"result": object()}) == INTERNAL_ERROR_BODY
        assert serialise({"result": deep}) == INTERNAL_ERROR_BODY
    assert json.loads(INTERNAL_ERROR_BODY)["error"]["code"] == -32603
    assert len([r for r in caplog.records if "could not be encoded" in r.getMessage()]) == 2
