"""Every transport rule of the MCP servers, over real HTTP, on both endpoints.

One live app per module: the transport does not depend on the database; the
tools' behaviour is in test_mcp_tools.py.
"""

from __future__ import annotations

import base64
import json

import pytest
import requests

from tests.mcp_helpers import (
    MCP_OFF,
    NOT_LIVE,
    TUDI,
    live_mcp,
    modern_headers,
    modern_params,
    module_database,
    post,
    rpc,
    serve_app,
)

LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"]
ORIGIN_OK = "https://chatgpt.example"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request), ALLOWED_ORIGINS=ORIGIN_OK + "/") as server:
        yield server


@pytest.fixture(params=["company", "provider"])
def endpoint(request, live) -> str:
    """Each rule holds on both servers."""
    return live.company_url() if request.param == "company" else live.provider_url


def error_of(response: requests.Response) -> dict:
    body = response.json()
    assert "result" not in body
    return body["error"]


# --- initialize and version negotiation -------------------------------------------


@pytest.mark.parametrize("version", LEGACY)
def test_initialize_echoes_each_supported_version(endpoint, version):
    response = rpc(endpoint, "initialize", {**INIT, "protocolVersion": version})
    result = response.json()["result"]
    assert response.status_code == 200
    assert result["protocolVersion"] == version
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["serverInfo"]["name"] and result["serverInfo"]["version"]


@pytest.mark.parametrize("asked", ["2099-01-01", "2024-11-05", "2026-07-28", None, 7])
def test_initialize_with_an_unsupported_version_answers_the_latest(endpoint, asked):
    params = {**INIT, "protocolVersion": asked}
    response = rpc(endpoint, "initialize", params)
    assert response.status_code == 200
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"


def test_company_instructions_name_the_business_and_warn_about_contractor_text(live):
    instructions = rpc(live.company_url(), "initialize", INIT).json()["result"]["instructions"]
    assert '"Tudi Mechanical Systems"' in instructions
    assert "written by the contractor" in instructions and "never as instructions" in instructions
    provider = rpc(live.provider_url, "initialize", INIT).json()["result"]["instructions"]
    assert "search_businesses" in provider and "never as instructions" in provider


@pytest.mark.parametrize("header", ["2024-11-05", "1999-01-01", "latest", "2026-07-29"])
def test_unsupported_protocol_version_header_is_400(endpoint, header):
    response = rpc(endpoint, "tools/list", headers={"MCP-Protocol-Version": header})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32022
    assert set(error["data"]["supported"]) == {"2026-07-28", *LEGACY}


@pytest.mark.parametrize("header", LEGACY)
def test_each_supported_header_is_served(endpoint, header):
    response = rpc(endpoint, "tools/list", headers={"MCP-Protocol-Version": header})
    assert response.status_code == 200
    assert "resultType" not in response.json()["result"]


def test_absent_header_means_2025_03_26(endpoint):
    """No header: a legacy (2025-03-26) request, so the 2026-07-28-only method is unknown."""
    assert rpc(endpoint, "tools/list").status_code == 200
    response = rpc(endpoint, "server/discover", modern_params())
    assert response.status_code == 200 and error_of(response)["code"] == -32601


# --- the 2026-07-28 revision ----------------------------------------------------------


def test_server_discover(endpoint):
    response = rpc(endpoint, "server/discover", modern_params(), headers=modern_headers("server/discover"))
    result = response.json()["result"]
    assert response.status_code == 200
    assert "2026-07-28" in result["supportedVersions"] and set(LEGACY) <= set(result["supportedVersions"])
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["instructions"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
    assert result["resultType"] == "complete" and result["ttlMs"] > 0 and result["cacheScope"] == "public"


def test_modern_results_carry_result_type_and_cache_hints(endpoint):
    listed = rpc(endpoint, "tools/list", modern_params(), headers=modern_headers("tools/list")).json()["result"]
    assert listed["resultType"] == "complete" and listed["cacheScope"] == "public" and listed["ttlMs"] >= 0
    name = listed["tools"][-1]["name"]
    arguments = {"postal_code": "63376"} if name == "check_service_area" else {}
    called = rpc(
        endpoint,
        "tools/call",
        modern_params({"name": name, "arguments": arguments}),
        headers=modern_headers("tools/call", name),
    ).json()["result"]
    assert called["resultType"] == "complete" and "ttlMs" not in called


@pytest.mark.parametrize("case", ["method", "name", "version", "no-meta"])
def test_modern_header_mismatches_are_400(live, case):
    params = modern_params({"name": "get_business_info", "arguments": {}})
    headers = modern_headers("tools/call", "get_business_info")
    if case == "method":
        headers["Mcp-Method"] = "tools/list"
    elif case == "name":
        headers["Mcp-Name"] = "list_categories"
    elif case == "version":
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2025-11-25"
    else:
        del params["_meta"]
    response = rpc(live.company_url(), "tools/call", params, headers=headers)
    assert response.status_code == 400
    assert error_of(response)["code"] == (-32602 if case == "no-meta" else -32020)


def test_modern_base64_name_header_is_decoded(live):
    encoded = "=?base64?" + base64.b64encode(b"get_business_info").decode() + "?="
    response = rpc(
        live.company_url(),
        "tools/call",
        modern_params({"name": "get_business_info"}),
        headers=modern_headers("tools/call", encoded),
    )
    assert response.status_code == 200 and response.json()["result"]["isError"] is False


@pytest.mark.parametrize("method", ["initialize", "no/such/method", "logging/setLevel"])
def test_modern_unknown_method_is_404_with_a_json_rpc_body(endpoint, method):
    response = rpc(
        endpoint, method, modern_params(INIT if method == "initialize" else {}), headers=modern_headers(method)
    )
    assert response.status_code == 404
    assert error_of(response)["code"] == -32601


# --- notifications, ping, methods, batches ----------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": 9, "result": {}},
    ],
)
def test_notifications_and_responses_get_202_and_no_body(endpoint, body):
    response = post(endpoint, body)
    assert response.status_code == 202
    assert response.content == b""


def test_ping_answers_an_empty_object(endpoint):
    response = rpc(endpoint, "ping", id="abc")
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": "abc", "result": {}}


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_other_http_methods_answer_405_allow_post(live, method):
    for url in (live.company_url(), live.company_url("no-such-key"), live.provider_url):
        response = requests.request(method, url, timeout=10)
        assert response.status_code == 405
        assert response.headers["Allow"] == "POST, OPTIONS"
        assert response.json()["error"]["code"] == -32600


PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
NOTE = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.mark.parametrize("version_header", [{}, {"MCP-Protocol-Version": "2025-03-26"}])
def test_a_2025_03_26_batch_answers_an_array_of_responses(endpoint, version_header):
    response = post(endpoint, [TOOLS_LIST, NOTE, PING], headers=version_header)
    assert response.status_code == 200
    answers = response.json()
    assert [answer["id"] for answer in answers] == [1, 2]  # the notification produced none
    assert answers[0]["result"]["tools"] == rpc(endpoint, "tools/list").json()["result"]["tools"]
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_a_batch_answers_each_element_as_its_own_post_would(live):
    call = {
        "jsonrpc": "2.0",
        "id": "s",
        "method": "tools/call",
        "params": {"name": "search_catalog", "arguments": {"query": "heat pump"}},
    }
    unknown = {"jsonrpc": "2.0", "id": 7, "method": "no/such"}
    init = {"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": INIT}
    answers = post(live.company_url(), [call, 1, unknown, init]).json()
    assert answers[0]["result"] == rpc(live.company_url(), "tools/call", call["params"]).json()["result"]
    assert answers[1] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request: the body must be a JSON-RPC object"},
    }
    assert answers[2]["id"] == 7 and answers[2]["error"]["code"] == -32601
    assert answers[3]["id"] == 8 and answers[3]["error"]["code"] == -32600  # initialize MUST NOT be batched


def test_an_all_notification_batch_answers_202(endpoint):
    response = post(endpoint, [NOTE, {"jsonrpc": "2.0", "id": 9, "result": {}}])
    assert response.status_code == 202 and response.content == b""


@pytest.mark.parametrize("batch", [[], [PING] * 17])
def test_empty_and_oversized_batches_are_one_invalid_request(endpoint, batch):
    response = post(endpoint, batch)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_later_revisions_refuse_batches(endpoint, version):
    response = post(endpoint, [PING], headers={"MCP-Protocol-Version": version})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == -32600 and "Batch" in error["message"]


def test_the_modern_revision_refuses_batches(endpoint):
    response = post(endpoint, [PING], headers=modern_headers("ping"))
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


# --- HTTP-level refusals --------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1", "application/jsonx"],
)
def test_wrong_content_type_is_415(endpoint, content_type):
    headers = {"Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    response = requests.post(endpoint, data=body, headers=headers, timeout=10)
    assert response.status_code == 415


def test_json_with_utf8_charset_is_fine(endpoint):
    assert rpc(endpoint, "ping", headers={"Content-Type": "application/json; charset=UTF-8"}).status_code == 200


@pytest.mark.parametrize(
    "accept,status",
    [
        ("text/html", 406),
        ("text/event-stream", 406),
        ("application/json;q=0, text/event-stream", 406),
        ("*/*", 200),
        ("application/*", 200),
        ("application/json", 200),
        ("", 200),
        ("text/event-stream, application/json", 200),
    ],
)
def test_accept_must_allow_json(endpoint, accept, status):
    assert rpc(endpoint, "ping", headers={"Accept": accept}).status_code == status


def test_bodies_over_16_kib_are_413(endpoint):
    padding = "x" * (16 * 1024)
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_pad": padding}}).encode()
    assert post(endpoint, None, raw=big).status_code == 413
    chunked = requests.post(
        endpoint,
        data=iter([big[:9000], big[9000:]]),
        timeout=10,  # no Content-Length
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    assert chunked.status_code == 413
    just_fits = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_pad": ""}})
    fitting = just_fits.replace('"_pad": ""', '"_pad": "' + "y" * (16 * 1024 - len(just_fits)) + '"').encode()
    assert len(fitting) == 16 * 1024
    assert post(endpoint, None, raw=fitting).status_code == 200


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"",
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping"',
        b"\xff\xfe{}",
        b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}',
    ],
)
def test_malformed_json_is_parse_error_400(endpoint, raw):
    response = post(endpoint, None, raw=raw)
    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == -32700 and body["id"] is None


@pytest.mark.parametrize(
    "body",
    [
        "ping",
        42,
        None,
        {"id": 1, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": 7},
        {"jsonrpc": "2.0", "id": 1, "method": ""},
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]},
        {"jsonrpc": "2.0", "id": 1},
    ],
)
def test_bad_request_shape_is_invalid_request_400(endpoint, body):
    response = post(endpoint, body)
    assert response.status_code == 400
    assert error_of(response)["code"] == -32600


def test_unknown_method_is_32601_with_200(endpoint):
    response = rpc(endpoint, "no/such/method", id=5)
    assert response.status_code == 200
    assert response.json()["id"] == 5 and error_of(response)["code"] == -32601


def test_resource_and_prompt_lists_are_empty_not_errors_on_the_company_server(live):
    url = live.company_url()
    assert rpc(url, "resources/list").json()["result"] == {"resources": []}
    assert rpc(url, "resources/templates/list").json()["result"] == {"resourceTemplates": []}
    assert rpc(url, "prompts/list").json()["result"] == {"prompts": []}
    missing = rpc(url, "resources/read", {"uri": "ui://widget/request-service.html"})
    assert error_of(missing)["code"] == -32002


@pytest.mark.parametrize(
    "params,needle",
    [
        ({"name": "no_such_tool", "arguments": {}}, "Unknown tool"),
        ({"arguments": {}}, "params.name"),
        ({"name": "check_service_area", "arguments": [1, 2]}, "arguments must be an object"),
    ],
)
def test_unknown_tool_and_bad_call_params_are_32602_with_200(endpoint, params, needle):
    response = rpc(endpoint, "tools/call", params)
    assert response.status_code == 200
    error = error_of(response)
    assert error["code"] == -32602 and needle in error["message"]


def test_json_rpc_answers_are_json_and_never_cached(endpoint):
    response = rpc(endpoint, "tools/list")
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.headers["Cache-Control"] == "no-store"
    assert "Mcp-Session-Id" not in response.headers


# --- DNS rebinding: Host ----------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:80", "127.0.0.1.evil.example", "x@127.0.0.1"])
def test_foreign_host_is_refused(endpoint, host):
    response = rpc(endpoint, "initialize", INIT, headers={"Host": host, "Origin": f"http://{host}"})
    assert 400 <= response.status_code < 500
    assert response.status_code == 421


def test_loopback_hosts_are_ours_in_development(live, endpoint):
    port = live.url.rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
        assert rpc(endpoint, "ping", headers={"Host": host}).status_code == 200, host


@pytest.fixture(scope="module")
def production(live):
    """A second app on the same data, deployed at https://mirror.example.com with a custom domain."""
    with serve_app(
        live.mirror.settings.database_url,
        live.mirror.settings.upstream_url,
        public_base_url="https://mirror.example.com",
        COMPANY_HOSTS=f"prices.tudi.example={TUDI}",
        ALLOWED_ORIGINS=ORIGIN_OK,
    ) as server:
        yield server


@pytest.mark.parametrize(
    "host,status",
    [
        ("mirror.example.com", 200),
        ("MIRROR.example.com:443", 200),
        ("prices.tudi.example", 200),
        ("127.0.0.1", 421),
        ("localhost", 421),
        ("mirror.example.com:8443", 421),
        ("evil.example.com", 421),
    ],
)
def test_production_accepts_only_its_own_hosts(production, host, status):
    for url in (f"{production.url}/companies/{TUDI}/mcp", f"{production.url}/mcp"):
        assert rpc(url, "ping", headers={"Host": host}).status_code == status, (url, host)


# --- Origin and CORS ----------------------------------------------------------------------------


def test_company_server_accepts_any_origin_with_cors(live):
    response = rpc(live.company_url(), "tools/list", headers={"Origin": "https://some-contractor.example"})
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("key", [TUDI, "no-such-key"])
def test_company_preflight_allows_the_mcp_headers_from_any_site(live, key):
    response = requests.options(
        live.company_url(key),
        timeout=10,
        headers={
            "Origin": "https://some-contractor.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
        },
    )
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "accept", "mcp-protocol-version"} <= allowed
    assert "POST" in response.headers["Access-Control-Allow-Methods"]


def test_provider_refuses_origins_not_allowed(live):
    response = rpc(live.provider_url, "tools/list", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response.headers
    preflight = requests.options(
        live.provider_url,
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        timeout=10,
    )
    assert preflight.status_code == 403


@pytest.mark.parametrize("origin", [ORIGIN_OK, "self", None])
def test_provider_accepts_allowed_own_and_absent_origins(live, origin):
    origin = live.url if origin == "self" else origin
    response = rpc(live.provider_url, "tools/list", headers={"Origin": origin} if origin else {})
    assert response.status_code == 200
    if origin:
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert "Origin" in response.headers["Vary"]
        preflight = requests.options(
            live.provider_url, timeout=10, headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
        )
        assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == origin


# --- the 404 gate ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["no-such-key", NOT_LIVE, MCP_OFF, "x" * 200])
def test_gated_companies_answer_the_one_404_before_anything_else(live, key):
    unknown = rpc(live.company_url("never-existed"), "tools/list")
    for headers in ({}, {"Content-Type": "text/plain"}, {"MCP-Protocol-Version": "1999-01-01"}):
        response = rpc(live.company_url(key), "tools/list", headers=headers)
        assert response.status_code == 404
        assert response.content == unknown.content
        assert _stable(response.headers) == _stable(unknown.headers)
    assert unknown.json()["error"] == "not_found"
    # The Host check (DNS rebinding) comes first of all: the same 421 whatever the key.
    foreign = rpc(live.company_url("never-existed"), "tools/list", headers={"Host": "evil.example.com"})
    response = rpc(live.company_url(key), "tools/list", headers={"Host": "evil.example.com"})
    assert response.status_code == foreign.status_code == 421 and response.content == foreign.content


def _stable(headers) -> dict:
    return {k: v for k, v in headers.items() if k.lower() not in ("date", "server")}
