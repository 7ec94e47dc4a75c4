"""Security checks across every surface.

- A company whose upstream record carries canary values in every private
  field (internal_id, owner name/email/phone, each product's cost and
  dealer_notes, and unknown extra fields) is crawled through every public
  surface: HTTP pages and documents, the feed, both MCP servers' tools, the
  UCP tools, error answers, the operator CLIs. No canary may appear in any
  response, log line (all loggers, DEBUG and up, and stderr) or database row.
- No open redirect: nothing a request carries can steer a redirect.
- No reflection of request text into HTML, and no script injection through a key.
- Every response carries `X-Content-Type-Options: nosniff`; every HTML page a
  restrictive CSP; no error echoes a stack trace.
"""

from __future__ import annotations

import logging
from urllib.parse import quote

import pytest
from sqlalchemy import inspect, text

from tests.ops_helpers import MCP_HEADERS, UNKNOWN_KEY
from tests.surface_helpers import DEFAULT_PRODUCTS, add_company, sync
from tests.ucp_helpers import insecure_profiles, profile_server

CANARY_OWNER = {"name": "Canary Ownerperson", "email": "canary-owner@private.example", "phone": "+13145550199"}
CANARY_COST = "7373.91"
CANARIES = (
    "Canary Ownerperson",
    "canary-owner@private.example",
    "3145550199",
    "987654321",
    CANARY_COST,
    "737391",
    "CANARY-DEALER-NOTES",
    "CANARY-EXTRA-COMPANY",
    "CANARY-EXTRA-PRODUCT",
    "CANARY-NESTED",
)
CANARY_PRODUCTS = tuple(
    {**p, "cost": CANARY_COST, "dealer_notes": "CANARY-DEALER-NOTES", "wholesale_code": "CANARY-EXTRA-PRODUCT"}
    for p in DEFAULT_PRODUCTS
)


def _canary_company(upstream, **overrides) -> str:
    return add_company(
        upstream,
        products=CANARY_PRODUCTS,
        internal_id=987654321,
        owner=dict(CANARY_OWNER),
        secret_margin="CANARY-EXTRA-COMPANY",
        billing={"account": "CANARY-NESTED"},
        **overrides,
    )


def _rpc(client, path: str, method: str, params: dict | None = None):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return client.post(path, json=body, headers=MCP_HEADERS)


def _tool(client, path: str, name: str, arguments: dict):
    return _rpc(client, path, "tools/call", {"name": name, "arguments": arguments})


def _crawl_http(client, key: str, funnel_key: str) -> list:
    paths = [
        f"/companies/{key}/pricing.json",
        f"/companies/{key}.jsonld",
        f"/companies/{key}/pricing",
        f"/companies/{key}/quote",
        f"/companies/{funnel_key}/quote",
        f"/companies/{key}/webmcp.json",
        f"/companies/{key}/webmcp-demo",
        f"/companies/{key}/.well-known/ucp",
        "/v1/businesses?page_size=500",
        "/.well-known/mcp.json",
        "/llms.txt",
        "/openapi.json",
        "/metrics",
        "/readyz",
        "/healthz",
        "/webmcp.js",
        f"/companies/{key}/pricing.json?source=canary-check",
        f"/companies/{key}/nope",
        "/v1/businesses?page=0",
    ]
    responses = [client.get(path) for path in paths]
    responses.append(client.post(f"/companies/{key}/pricing.json"))  # 405
    return responses


def _crawl_mcp(client, key: str) -> list:
    company = f"/companies/{key}/mcp"
    calls = [
        _rpc(
            client,
            company,
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        ),
        _rpc(client, company, "tools/list"),
        _tool(client, company, "get_business_info", {}),
        _tool(client, company, "list_categories", {}),
        _tool(client, company, "search_catalog", {"query": "heat pump filter softener"}),
        _tool(client, company, "compare_tiers", {"category": "heat-pump-system"}),
        _tool(client, company, "check_service_area", {"postal_code": "63385"}),
        _tool(client, company, "check_service_area", {"postal_code": "nope"}),
        _tool(client, company, "search_catalog", {"query": 5, "extra": True}),
        _rpc(client, "/mcp", "tools/list"),
        _tool(client, "/mcp", "request_service", {"business_id": key}),
        _tool(client, "/mcp", "check_service_area", {"business_id": key, "postal_code": "63385"}),
        _tool(client, "/mcp", "search_businesses", {"postal_code": "63385"}),
        _tool(client, "/mcp", "request_service", {"business_id": UNKNOWN_KEY}),
        _rpc(client, "/mcp", "resources/read", {"uri": "ui://widget/request-service.html"}),
    ]
    assert all(call.status_code == 200 for call in calls), [c.status_code for c in calls]
    return calls


def _crawl_ucp(client, key: str, profile: str) -> list:
    endpoint = f"/companies/{key}/ucp/mcp"
    meta = {"ucp-agent": {"profile": profile}}
    search = _tool(client, endpoint, "search_catalog", {"meta": meta, "catalog": {"query": "heat pump"}})
    assert search.status_code == 200 and not search.get_json()["result"]["isError"], search.get_data()
    ids = ["sku:HP-GOOD", "category:heat-pump-system", "sku:FLT-1"]
    return [
        search,
        _tool(client, endpoint, "lookup_catalog", {"meta": meta, "catalog": {"ids": ids}}),
        _tool(client, endpoint, "get_product", {"meta": meta, "catalog": {"id": "sku:HP-BEST"}}),
        _tool(client, endpoint, "get_product", {"meta": meta, "catalog": {"id": "category:nope"}}),
    ]


def _database_dump(mirror) -> str:
    rows = []
    with mirror.engine.connect() as connection:
        for table in inspect(connection).get_table_names():
            rows += [repr(tuple(row)) for row in connection.execute(text(f'SELECT * FROM "{table}"'))]
    return "\n".join(rows)


def _as_text(response) -> str:
    return f"{response.status_code} {sorted(response.headers.items())} {response.get_data(as_text=True)}"


def test_private_fields_never_leave_the_upstream(make_app, upstream, caplog, capfd):
    caplog.set_level(logging.DEBUG)
    logging.getLogger("mirror.invocations").addHandler(caplog.handler)
    with profile_server() as profiles:
        app = make_app(**insecure_profiles(profiles.host))
        key = _canary_company(upstream, settings={"currency": "USD", "price_description": "Installed.", "channels": {}})
        funnel_key = _canary_company(
            upstream,
            settings={
                "currency": "USD",
                "systems_estimate_url": "https://funnel.example/estimate?ref=x",
                "systems_estimate_url_verified": True,
                "channels": {},
            },
        )
        sync(app.extensions["mirror"])
        client = app.test_client()
        responses = _crawl_http(client, key, funnel_key) + _crawl_mcp(client, key)
        responses += _crawl_ucp(client, key, profiles.url + "/agent.json")
    try:
        assert responses[0].status_code == 200 and responses[4].status_code == 302
        runner = app.test_cli_runner()
        app.extensions["invocation_recorder"].flush()
        app.extensions["source_recorder"].flush()
        reports = [runner.invoke(args=[name]).output for name in ("usage", "sources", "demo-urls")]
        haystacks = {
            "responses": "\n".join(_as_text(r) for r in responses),
            "logs": "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records),
            "stderr": "".join(capfd.readouterr()),
            "database": _database_dump(app.extensions["mirror"]),
            "reports": "\n".join(reports),
        }
    finally:
        logging.getLogger("mirror.invocations").removeHandler(caplog.handler)
    assert "invocation" in haystacks["logs"] and key in haystacks["database"]  # the haystacks are real
    for where, haystack in haystacks.items():
        for canary in CANARIES:
            assert canary not in haystack, f"{canary!r} leaked into {where}"


# --- redirects ----------------------------------------------------------------------------------

STEERING = {
    "next": "https://evil.example/",
    "redirect": "//evil.example",
    "url": "https://evil.example",
    "return_to": "https://evil.example",
    "redirect_uri": "https://evil.example",
    "continue": "//evil.example",
}


def test_no_request_can_steer_a_redirect(upstream, mirror, client):
    plain = add_company(upstream)
    funnel = add_company(
        upstream,
        settings={
            "currency": "USD",
            "channels": {},
            "systems_estimate_url": "https://funnel.example/estimate?ref=site",
            "systems_estimate_url_verified": True,
        },
    )
    sync(mirror)
    paths = [
        f"/companies/{plain}/quote",
        f"/companies/{funnel}/quote",
        f"/companies/{plain}/pricing",
        f"/companies/{plain}/pricing.json",
        "/v1/businesses",
        "/llms.txt",
        "//evil.example",
        "//evil.example/x",
        "/\\evil.example",
        "/%2F%2Fevil.example",
        f"/companies/{plain}/quote/",
        "/llms.txt/",
    ]
    for path in paths:
        response = client.get(
            path,
            query_string=STEERING,
            headers={"Referer": "https://evil.example/", "X-Forwarded-Host": "evil.example"},
        )
        location = response.headers.get("Location", "")
        assert "evil" not in location, (path, location)
        if 300 <= response.status_code < 400:
            assert location == "https://funnel.example/estimate?ref=ai_interfaces", (path, location)


# --- injection and reflection ----------------------------------------------------------------------

INJECTED = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "';alert(1)//", "</title><svg onload=1>"]


@pytest.mark.parametrize("payload", INJECTED)
def test_request_text_is_never_reflected_into_html_or_errors(client, payload):
    for path in (
        f"/companies/{quote(payload, safe='')}/pricing",
        f"/companies/{quote(payload, safe='')}/quote",
        f"/companies/{quote(payload, safe='')}/webmcp-demo",
        f"/companies/{quote(payload, safe='')}.jsonld",
        f"/{quote(payload, safe='')}",
        "/v1/businesses",
    ):
        body = client.get(path, query_string={"source": payload, "page": payload}).get_data(as_text=True)
        assert payload not in body and "<script>" not in body and "onerror" not in body, path


# --- headers on everything -------------------------------------------------------------------------


def test_every_response_is_nosniff_and_every_html_page_has_a_strict_csp(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_COMPANY="3/hour", RATE_LIMIT_COMPANY_CLIENT_SHARE="1")
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    client = app.test_client()
    pricing = client.get(f"/companies/{key}/pricing.json")
    responses = [
        pricing,
        client.get(f"/companies/{key}/pricing.json", headers={"If-None-Match": pricing.headers["ETag"]}),
        client.get(f"/companies/{key}/pricing"),
        client.get(f"/companies/{UNKNOWN_KEY}/pricing"),
        client.get(f"/companies/{key}/quote"),
        client.get(f"/companies/{key}/webmcp-demo"),
        client.get(f"/companies/{key}/pricing"),  # 429
        client.get("/nowhere"),
        client.post("/llms.txt"),
        client.get("/v1/businesses?page=0"),
        client.options(f"/companies/{key}/mcp"),
        client.get("/mcp"),
        client.post("/mcp", data="{", headers=MCP_HEADERS),
        client.get("/metrics"),
        client.get("/readyz"),
        client.get("/openapi.json"),
        client.get("/webmcp.js"),
    ]
    statuses = {r.status_code for r in responses}
    assert {200, 204, 304, 400, 404, 405, 429} <= statuses
    for response in responses:
        assert response.headers.get("X-Content-Type-Options") == "nosniff", response.status_code
        if response.mimetype == "text/html":
            policy = {d.split()[0]: d.split()[1:] for d in response.headers["Content-Security-Policy"].split("; ")}
            assert policy["default-src"] == ["'none'"]
            assert policy["frame-ancestors"] == ["'none'"] and policy["base-uri"] == ["'none'"]
            assert "'unsafe-inline'" not in policy.get("script-src", []) and "*" not in policy.get("script-src", [])
            assert "'unsafe-eval'" not in response.headers["Content-Security-Policy"]


def test_errors_never_echo_a_stack_trace(make_app, upstream, monkeypatch):
    app = make_app()
    key = add_company(upstream)
    sync(app.extensions["mirror"])

    def broken(*args, **kwargs):
        raise ValueError("SECRET-INTERNAL-DETAIL in /work/main/feeds/pricing.py")

    monkeypatch.setattr(app.extensions["render_cache"], "entry", broken)
    monkeypatch.setattr(app.extensions["render_cache"], "document", broken)
    client = app.test_client()
    for response in (
        client.get(f"/companies/{key}/pricing.json"),
        client.get(f"/companies/{key}/pricing"),
        client.post(
            f"/companies/{key}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_categories"}},
            headers=MCP_HEADERS,
        ),
    ):
        assert response.status_code == 500
        assert response.get_json() == {"error": "internal_error", "message": "Something went wrong on our side."}
        body = response.get_data(as_text=True)
        assert "SECRET" not in body and "Traceback" not in body and ".py" not in body
