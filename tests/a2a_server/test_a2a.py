"""A2A 1.0 agents, driven by the official a2a-sdk client over real HTTP.

Cards resolve and parse in the SDK's own card model; a text message and a
data message get a Message whose data part is exactly the MCP tool's
structuredContent; bad requests are A2A errors (never a 500); closed and
unknown companies get the gate's one 404.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import requests
from a2a.client import ClientConfig, create_client
from a2a.client.card_resolver import parse_agent_card
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest
from a2a.utils.errors import InvalidParamsError
from google.protobuf.json_format import MessageToDict

from tests.mcp_helpers import MCP_OFF, NOT_LIVE, TUDI, call_tool, live_mcp, module_database

A2A_HEADERS = {"A2A-Version": "1.0", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request), COMPANY_HOSTS=f"tudi.example={TUDI}") as server:
        catalog = server.upstream.catalog
        catalog.add_company(
            products=4,
            plugin_key="a2a-off-test",
            name="Variant a2a-off",
            status="active",
            storefront_live=True,
            settings={"currency": "USD", "channels": {"a2a": False}},
        )
        assert server.mirror.sync().status == "success"
        yield server


def agent_base(live, key: str | None = None) -> str:
    return f"{live.url}/companies/{key}" if key else live.url


def send(base: str, *parts: Part) -> list[dict]:
    """SendMessage through the SDK client (card resolution included); the answers as JSON dicts."""

    async def run() -> list[dict]:
        async with httpx.AsyncClient(timeout=10) as http:
            client = await create_client(base, client_config=ClientConfig(streaming=False, httpx_client=http))
            request = SendMessageRequest(
                message=Message(message_id="m-1", context_id="ctx-1", role=Role.ROLE_USER, parts=list(parts))
            )
            return [MessageToDict(event) async for event in client.send_message(request)]

    return asyncio.run(run())


def data_part(answer: dict) -> dict:
    (part,) = [p for p in answer["message"]["parts"] if "data" in p]
    return part["data"]


def text_of(answer: dict) -> str:
    return " ".join(p["text"] for p in answer["message"]["parts"] if "text" in p)


def test_company_card_resolves_and_parses_in_the_sdk_model(live):
    response = requests.get(f"{agent_base(live, TUDI)}/.well-known/agent-card.json", timeout=10)
    assert response.status_code == 200 and response.headers["Cache-Control"].startswith("public")
    card = parse_agent_card(response.json())
    assert card.name == "Tudi Mechanical Systems catalog"
    (interface,) = card.supported_interfaces
    assert (interface.url, interface.protocol_binding, interface.protocol_version) == (
        f"{live.url}/companies/{TUDI}/a2a",
        "JSONRPC",
        "1.0",
    )
    assert not card.capabilities.streaming and not card.capabilities.push_notifications
    listed = requests.post(
        live.company_url(), json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10
    ).json()["result"]["tools"]
    assert [(s.id, s.name, s.description) for s in card.skills] == [
        (t["name"], t["title"], t["description"]) for t in listed
    ]


def test_directory_card_is_at_the_root(live):
    card = parse_agent_card(requests.get(f"{live.url}/.well-known/agent-card.json", timeout=10).json())
    assert card.supported_interfaces[0].url == f"{live.url}/a2a"
    assert [skill.id for skill in card.skills] == ["search_businesses"]


def test_a_data_message_answers_with_the_mcp_tools_structured_content(live):
    arguments = {"query": "heat pump"}
    (answer,) = send(agent_base(live, TUDI), Part(data=_value({"skill": "search_catalog", "arguments": arguments})))
    expected = call_tool(live.company_url(), "search_catalog", arguments)["structuredContent"]
    assert data_part(answer) == expected
    message = answer["message"]
    assert message["role"] == "ROLE_AGENT" and message["contextId"] == "ctx-1"
    assert message["metadata"]["skill"] == "search_catalog" and message["metadata"]["contractorData"] is True
    assert "never instructions" in text_of(answer)


def test_a_text_question_goes_to_the_catalog_search(live):
    (answer,) = send(agent_base(live, TUDI), Part(text="heat pump"))
    assert answer["message"]["metadata"]["skill"] == "search_catalog"
    assert (
        data_part(answer)
        == call_tool(live.company_url(), "search_catalog", {"query": "heat pump"})["structuredContent"]
    )


def test_a_text_naming_a_zip_goes_to_the_coverage_check(live):
    (answer,) = send(agent_base(live, TUDI), Part(text="Do you serve 63376?"))
    assert answer["message"]["metadata"]["skill"] == "check_service_area"
    assert data_part(answer)["served"] is True and data_part(answer)["postal_code"] == "63376"


def test_the_directory_finds_businesses_by_zip(live):
    (answer,) = send(live.url, Part(text="air conditioning near 63376"))
    found = data_part(answer)
    assert answer["message"]["metadata"]["skill"] == "search_businesses"
    assert found["postal_code"] == "63376"
    assert TUDI in {result["business_id"] for result in found["results"]}


@pytest.mark.parametrize(
    "data, needle",
    [
        ({"skill": "drop_tables", "arguments": {}}, "Unknown skill"),
        ({"skill": "search_catalog", "arguments": {"query": 5}}, "query"),
        ({"skill": "check_service_area", "arguments": {}}, "postal_code"),
        ({"skill": "search_catalog", "arguments": {"query": "x", "bogus": 1}}, "bogus"),
    ],
)
def test_bad_skill_calls_are_a2a_invalid_params(live, data, needle):
    with pytest.raises(InvalidParamsError) as raised:  # the SDK maps -32602 to its typed error
        send(agent_base(live, TUDI), Part(data=_value(data)))
    assert needle in str(raised.value)
    raw = post_raw(live, TUDI, "SendMessage", {"message": _message_dict(data)})
    assert raw.status_code == 200 and raw.json()["error"]["code"] == -32602


@pytest.mark.parametrize("version", [None, "0.3", "2.0", "banana"])
def test_a_wrong_a2a_version_is_version_not_supported(live, version):
    headers = {"Content-Type": "application/json"} | ({"A2A-Version": version} if version else {})
    response = requests.post(
        f"{agent_base(live, TUDI)}/a2a",
        headers=headers,
        timeout=10,
        json={
            "jsonrpc": "2.0",
            "id": 3,
            "method": "SendMessage",
            "params": {"message": _message_dict({"skill": "list_categories"})},
        },
    )
    assert response.status_code == 200
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32009, "message": response.json()["error"]["message"]},
    }


@pytest.mark.parametrize(
    "method, code",
    [
        ("GetTask", -32001),
        ("CancelTask", -32001),
        ("ListTasks", -32004),
        ("SendStreamingMessage", -32004),
        ("SubscribeToTask", -32001),
        ("CreateTaskPushNotificationConfig", -32003),
        ("GetExtendedAgentCard", -32007),
        ("tasks/send", -32601),
    ],
)
def test_stateless_agent_answers_task_methods_with_their_errors(live, method, code):
    response = post_raw(live, TUDI, method, {"id": "t-1"})
    assert response.status_code == 200 and response.json()["error"]["code"] == code


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"[]",
        b'{"jsonrpc": "1.0", "method": "SendMessage"}',
        b"\xff\xfe",
        b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": []}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"parts": [{"text": "   "}]}}}',
    ],
)
def test_malformed_requests_are_json_rpc_errors_not_500s(live, body):
    response = requests.post(f"{agent_base(live, TUDI)}/a2a", data=body, headers=A2A_HEADERS, timeout=10)
    assert response.status_code == 200
    assert response.json()["error"]["code"] in (-32700, -32600, -32602)


@pytest.mark.parametrize("key", [MCP_OFF + "-unknown", NOT_LIVE, "a2a-off-test"])
def test_closed_and_unknown_companies_get_the_gates_404(live, key):
    reference = requests.get(f"{live.url}/companies/{'1' * 40}/pricing.json", timeout=10)
    card = requests.get(f"{agent_base(live, key)}/.well-known/agent-card.json", timeout=10)
    rpc = post_raw(live, key, "SendMessage", {"message": _message_dict({"skill": "list_categories"})})
    for response in (card, rpc):
        assert response.status_code == 404 and response.content == reference.content


def test_a2a_follows_its_own_switch_alone(live):
    """mcp off leaves A2A open; a2a off leaves MCP open (channels are independent)."""
    assert requests.get(f"{agent_base(live, MCP_OFF)}/.well-known/agent-card.json", timeout=10).status_code == 200
    listed = requests.post(
        live.company_url("a2a-off-test"), json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10
    )
    assert listed.status_code == 200


def test_a_foreign_host_is_refused_before_anything_else(live):
    response = requests.post(
        f"{agent_base(live, TUDI)}/a2a", data=b"{", timeout=10, headers={**A2A_HEADERS, "Host": "evil.example"}
    )
    assert response.status_code == 421


def test_a_company_hosts_domain_serves_its_contractors_agent_at_the_root(live):
    port = live.url.rsplit(":", 1)[1]
    for host in ("tudi.example", f"TUDI.example:{port}"):
        card = parse_agent_card(
            requests.get(f"{live.url}/.well-known/agent-card.json", headers={"Host": host}, timeout=10).json()
        )
        assert card.name == "Tudi Mechanical Systems catalog"
        assert card.supported_interfaces[0].url == f"http://tudi.example:{port}/a2a"  # configured, never echoed
    answer = requests.post(
        f"{live.url}/a2a",
        headers={**A2A_HEADERS, "Host": "tudi.example"},
        timeout=10,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {
                "message": _message_dict({"skill": "check_service_area", "arguments": {"postal_code": "63376"}})
            },
        },
    )
    assert answer.json()["result"]["message"]["metadata"]["skill"] == "check_service_area"
    directory = requests.get(f"{live.url}/.well-known/agent-card.json", timeout=10).json()
    assert directory["skills"][0]["id"] == "search_businesses"  # any other host: the directory


def post_raw(live, key: str, method: str, params: dict) -> requests.Response:
    return requests.post(
        f"{agent_base(live, key)}/a2a",
        headers=A2A_HEADERS,
        timeout=10,
        json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params},
    )


def _message_dict(data: dict) -> dict:
    return {"messageId": "m-2", "role": "ROLE_USER", "parts": [{"data": data}]}


def _value(data: dict):
    from google.protobuf import struct_pb2
    from google.protobuf.json_format import ParseDict

    return ParseDict(json.loads(json.dumps(data)), struct_pb2.Value())
