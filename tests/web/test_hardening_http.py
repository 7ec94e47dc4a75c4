"""Issue 12's attack-pass findings, reproduced over real HTTP (and Postgres where it matters).

- no Location is ever built from the request's Host (Werkzeug's merge-slashes
  308), and MCP's Host check (421) runs first on every path spelling;
- an upstream URL the wire cannot carry (port 99999) is dropped at sync, so
  /quote never 500s and the feed never publishes it; a response that fails
  after its view returned is recorded with the status actually sent;
- text the database cannot store (NUL, lone surrogates) is every surface's
  normal invalid-argument error, never a 500;
- a connection lost after the view's queries (at ROLLBACK) is the documented
  503, not the server's HTML 500;
- closed keys do exactly the work unknown keys do (no object built);
- the unfinished-runs gauge forgets killed runs; bidi controls never reach
  <title>; source hits store the matched route.
"""

from __future__ import annotations

import http.client
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from flask import redirect
from sqlalchemy import create_engine, event, select, text, update
from werkzeug.serving import make_server

from mirror.store.models import Company, SourceHit, SyncRun
from tests.mirror_helpers import postgres_statements
from tests.ops_helpers import UNKNOWN_KEY, closed_companies
from tests.surface_helpers import ALL_CHANNELS, add_company, set_settings, sync
from tests.ucp_helpers import insecure_profiles, profile_server

EVIL_HOST = "evil.example"
MCP = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
BAD_ESTIMATE = "https://evil.example:99999/?ref=1"


@dataclass
class Live:
    app: object
    port: int

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def request(self, method: str, path: str, *, host: str | None = None, body=None, headers=None):
        """One raw HTTP/1.1 request (the path exactly as given); (status, headers, body bytes)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", host or self.host)
            data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
            for name, value in {**(MCP if data is not None else {}), **(headers or {})}.items():
                connection.putheader(name, value)
            if data is not None:
                connection.putheader("Content-Length", str(len(data)))
            connection.endheaders(data)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def rpc(self, path: str, tool: str, arguments: dict) -> dict:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        status, _headers, raw = self.request("POST", path, body=body)
        assert status == 200, raw
        return json.loads(raw)


@contextmanager
def serving(app):
    """The app on a real loopback HTTP server (Werkzeug's threaded server)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="hardening-live", daemon=True
    )
    thread.start()
    try:
        yield Live(app, server.server_port)
    finally:
        server.shutdown()
        thread.join(5)


@pytest.fixture
def live(app):
    with serving(app) as running:
        yield running


# --- 2. no redirect from the request's Host; the MCP Host check first -------------------------


def test_no_path_spelling_is_redirected_and_no_location_names_the_request_host(upstream, mirror, live):
    key = add_company(upstream)
    sync(mirror)
    spellings = [
        f"//companies//{key}/pricing.json",
        f"/companies//{key}/pricing.json",
        "/v1//businesses",
        "//v1/businesses",
        f"/companies//{UNKNOWN_KEY}/pricing.json",
        f"/companies/{key}/pricing.json/",
        "//healthz",
        "/healthz/",
    ]
    for rule in live.app.url_map.iter_rules():  # every route, doubled and with a trailing slash
        path = rule.rule.replace("<key>", key)
        spellings += ["/" + path, path.replace("/", "//"), path + "/"]
    for path in spellings:
        for method in ("GET", "POST"):
            status, headers, body = live.request(method, path, host=EVIL_HOST, body={} if method == "POST" else None)
            assert not 300 <= status < 400 and "location" not in headers, (method, path, status, headers)
            assert EVIL_HOST.encode() not in body, (method, path)
    # Inner doubled slashes match no route: the normal JSON 404. (A leading "//" is
    # collapsed by Werkzeug's development server itself before routing; served, not redirected.)
    for path in (f"/companies//{key}/pricing.json", "/v1//businesses", f"/companies//{UNKNOWN_KEY}/pricing.json"):
        status, headers, body = live.request("GET", path)
        assert status == 404 and json.loads(body)["error"] == "not_found", (path, status, body)


MCP_SPELLINGS = [
    "/companies/{key}/mcp",
    "//companies//{key}/mcp",
    "/companies/{key}//mcp",
    "/companies/{key}/mcp/",
    "/mcp",
    "//mcp",
    "/mcp/",
    "/companies/{key}/ucp/mcp",
    "/companies/{key}/ucp//mcp",
    "/ucp/mcp",
    "//ucp//mcp",
]


def test_the_mcp_host_check_answers_421_first_on_every_spelling(upstream, mirror, live, subtests):
    key = add_company(upstream)
    sync(mirror)
    tools_list = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for spelling in MCP_SPELLINGS:  # one company and one server for every spelling, each a subtest
        with subtests.test(spelling=spelling):
            path = spelling.format(key=key)
            status, headers, _body = live.request("POST", path, host=EVIL_HOST, body=tools_list)
            assert status == 421 and "location" not in headers
            status, headers, _body = live.request("POST", path, host=f"{EVIL_HOST}:{live.port}", body=tools_list)
            assert status == 421
            status, _headers, body = live.request("POST", path, body=tools_list)
            assert status in (200, 404) and "location" not in _headers  # ours: served, or no such route (never 3xx)
            if "//" in path[1:]:
                assert status == 404 and json.loads(body)["error"] == "not_found"


# --- 4. upstream URLs parsed completely; the status sent is the status recorded ----------------


def test_an_estimate_url_with_a_port_out_of_range_is_dropped_so_quote_never_500s(upstream, mirror, live):
    key = add_company(upstream)
    set_settings(upstream, key, systems_estimate_url=BAD_ESTIMATE, systems_estimate_url_verified=True)
    sync(mirror)
    with mirror.Session() as session:
        assert session.get(Company, key).estimate_url is None
    status, headers, body = live.request("GET", f"/companies/{key}/quote")
    assert status == 200 and "location" not in headers and b"99999" not in body
    status, _headers, raw = live.request("GET", "/v1/businesses?page_size=100")
    assert status == 200
    mine = [b for b in json.loads(raw)["businesses"] if key in json.dumps(b)]
    assert mine, "the company must be in the feed for this to mean anything"
    assert "99999" not in json.dumps(mine) and mine[0]["platform_url"].endswith(f"/companies/{key}/quote")


def test_a_row_stored_before_the_check_is_never_redirected_to(upstream, mirror, live):
    key = add_company(upstream)
    sync(mirror)
    with mirror.Session() as session:  # as a row synced before URLs were parsed completely
        session.execute(update(Company).where(Company.plugin_key == key).values(estimate_url=BAD_ESTIMATE))
        session.commit()
    status, headers, _body = live.request("GET", f"/companies/{key}/quote")
    assert status == 200 and "location" not in headers


def test_a_response_that_fails_after_its_view_is_recorded_with_the_status_sent(make_app):
    app = make_app()
    app.add_url_rule("/test-bad-location", "bad_location", lambda: redirect(BAD_ESTIMATE, 302))
    with serving(app) as running:
        status, headers, body = running.request("GET", "/test-bad-location?source=probe")
        assert status == 500 and "location" not in headers
        assert json.loads(body)["error"] == "internal_error"
        _status, _headers, metrics = running.request("GET", "/metrics")
    lines = [
        line
        for line in metrics.decode().splitlines()
        if 'endpoint="/test-bad-location"' in line and line.startswith("mirror_http_requests_total")
    ]
    assert lines and all('status="500"' in line for line in lines), lines
    app.extensions["invocation_recorder"].flush()
    app.extensions["source_recorder"].flush()
    with app.extensions["mirror"].Session() as session:
        from mirror.store.models import Invocation

        assert session.scalars(select(Invocation.status).where(Invocation.endpoint == "/test-bad-location")).all() == [
            500
        ]
        assert session.scalars(select(SourceHit.status)).all() == [500]


# --- 5. text the database cannot store ----------------------------------------------------------

UNSTORABLE = ["\u0000", "a\u0000b", "\ud800", "x\udfffy"]


@pytest.mark.parametrize("bad", UNSTORABLE, ids=["nul", "inner-nul", "high-surrogate", "low-surrogate"])
def test_unstorable_text_is_an_invalid_argument_on_every_mcp_surface(upstream, make_app, bad):
    with profile_server() as profiles:
        app = make_app(**insecure_profiles(profiles.host))  # the agent profile is served over loopback http
        key = add_company(upstream)
        sync(app.extensions["mirror"])
        with serving(app) as live:
            _unstorable_calls(live, key, bad, profiles.url + "/agent.json")


def _unstorable_calls(live, key: str, bad: str, profile: str) -> None:
    for tool, arguments, named in (
        ("request_service", {"business_id": bad}, "business_id"),
        ("check_service_area", {"business_id": bad, "postal_code": "63385"}, "business_id"),
        ("check_service_area", {"business_id": key, "postal_code": bad}, "postal_code"),
    ):
        result = live.rpc("/mcp", tool, arguments)["result"]
        assert result["isError"] is True and f"{named}: " in result["content"][0]["text"], (tool, result)
    result = live.rpc(f"/companies/{key}/mcp", "check_service_area", {"postal_code": bad})["result"]
    assert result["isError"] is True and "postal_code: " in result["content"][0]["text"]
    meta = {"ucp-agent": {"profile": profile}}
    for tool, catalog, named in (
        ("lookup_catalog", {"ids": [bad]}, "catalog.ids.0"),
        ("lookup_catalog", {"ids": ["sku:HP-GOOD", bad]}, "catalog.ids.1"),
        ("get_product", {"id": bad}, "catalog.id"),
    ):
        answer = live.rpc(f"/companies/{key}/ucp/mcp", tool, {"meta": meta, "catalog": catalog})
        assert "error" in answer or answer["result"].get("isError") or "messages" in json.dumps(answer)
        assert named in json.dumps(answer), (tool, answer)
        assert "internal" not in json.dumps(answer).lower()


def test_unstorable_text_in_keys_and_feed_parameters(upstream, mirror, live):
    add_company(upstream)
    sync(mirror)
    _status, _headers, unknown = live.request("GET", f"/companies/{UNKNOWN_KEY}/pricing.json")
    for path in (
        "/companies/%00/pricing.json",
        "/companies/a%00b/pricing.json",
        "/companies/%00.jsonld",
        "/companies/%00/pricing",
    ):
        status, _headers, body = live.request("GET", path)
        assert status == 404, (path, body)
        if path.endswith(".json"):
            assert body == unknown
    status, _headers, body = live.request(
        "POST", "/companies/%00/mcp", body={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert status == 404
    status, _headers, body = live.request("GET", "/v1/businesses?page=%00")
    assert status == 400 and json.loads(body)["parameter"] == "page"
    status, _headers, body = live.request("GET", "/v1/businesses?changes_token=chg_%00&source=%00x")
    assert status == 200


# --- 7. a connection lost after the view's queries ---------------------------------------------


def test_a_connection_lost_at_rollback_is_the_documented_503(upstream, postgres_url):
    from tests.conftest import _empty_postgres
    from wsgi import create_app

    _empty_postgres(postgres_url)
    app = create_app(
        {
            "DATABASE_URL": postgres_url,
            "UPSTREAM_URL": upstream.url,
            "UPSTREAM_TOKEN": "demo-token",
            "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
            "SCHEDULER_ENABLED": "false",
            "RATE_LIMIT_STORAGE_URI": "memory://",
        }
    )
    mirror = app.extensions["mirror"]
    key = add_company(upstream)
    sync(mirror)
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    view = app.view_functions["feeds.pricing_json"]

    def view_then_lose_the_connection(**kwargs):
        from web.db import db

        response = view(**kwargs)
        session = db()
        session.execute(text("SELECT 1"))  # the request's transaction is open: close() must ROLLBACK
        pid = session.connection().connection.driver_connection.info.backend_pid
        with admin.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        return response

    app.view_functions["feeds.pricing_json"] = view_then_lose_the_connection
    try:
        with serving(app) as running:
            status, headers, body = running.request("GET", f"/companies/{key}/pricing.json")
            assert status == 503, body[:300]
            assert json.loads(body)["error"] == "database_unavailable"
            assert headers["retry-after"] == "1" and headers["cache-control"] == "no-store"
            app.view_functions["feeds.pricing_json"] = view
            status, _headers, _body = running.request("GET", f"/companies/{key}/pricing.json")
            assert status == 200  # the pool replaced the dead connection
    finally:
        admin.dispose()
        mirror.dispose()


# --- 9. closed keys cost exactly what unknown keys cost ----------------------------------------


@contextmanager
def work_on_this_thread(mirror):
    """SQL statements (SQLAlchemy's and the gate's raw psycopg ones) and Company objects built."""
    seen: list[str] = []
    me = threading.get_ident()

    def keep(what: str) -> None:
        if threading.get_ident() == me and what.strip().upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            seen.append(what)

    def built(target, *rest):
        keep("Company built")

    event.listen(Company, "init", built)
    event.listen(Company, "load", built)
    try:
        with postgres_statements(keep):
            yield seen
    finally:
        event.remove(Company, "init", built)
        event.remove(Company, "load", built)


def test_unknown_churned_not_live_and_switched_off_keys_do_the_same_work(upstream, mirror, client):
    closed = closed_companies(upstream, ("pricing", "mcp"))
    sync(mirror)
    client.get(f"/companies/{UNKNOWN_KEY}/pricing.json")  # warm the pool
    seen = {}
    with work_on_this_thread(mirror) as work:
        for name, key in {"unknown": UNKNOWN_KEY, **closed}.items():
            for path in (f"/companies/{key}/pricing.json", f"/companies/{key}/mcp"):
                if name.endswith(" off") and not path.endswith(name.split()[0] if name != "pricing off" else ".json"):
                    continue  # a switch closes only its own surface
                work.clear()
                if path.endswith("/mcp"):
                    response = client.post(path, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=MCP)
                else:
                    response = client.get(path)
                assert response.status_code == 404
                seen[(name, path.rsplit("/", 1)[1])] = list(work)
    for surface in ("pricing.json", "mcp"):
        shapes = {name: tuple(work) for (name, s), work in seen.items() if s == surface}
        assert len(set(shapes.values())) == 1, shapes
        assert not any("Company built" in w for w in shapes.values()), shapes
        assert shapes["unknown"] == (), shapes  # the gate state answers: no statement at all (mirror/read/gate.py)


# --- 10. smaller findings ------------------------------------------------------------------------


def test_the_unfinished_runs_gauge_forgets_a_killed_run(upstream, mirror, live):
    sync(mirror)
    with mirror.Session() as session:  # a run killed before it recorded its end
        session.add(
            SyncRun(
                mode="incremental", started_at=session.scalar(select(SyncRun.started_at)), status="running", counts={}
            )
        )
        session.commit()
    _status, _headers, body = live.request("GET", "/metrics")
    assert "mirror_sync_runs_unfinished 0.0" in body.decode()
    from mirror.store.lock import sync_lock

    with sync_lock(mirror.engine):  # a sync running now
        _status, _headers, body = live.request("GET", "/metrics")
    assert "mirror_sync_runs_unfinished 1.0" in body.decode()


BIDI = "\u202e\u2066\u200f"


def test_bidi_controls_never_reach_the_title_or_meta_description(upstream, mirror, live):
    key = add_company(
        upstream,
        name=f"Evil{BIDI}gpj.exe Heating",
        address={
            "line1": "1 Main St",
            "city": f"Went{BIDI}zville",
            "state": "MO",
            "postal_code": "63385",
            "country": "US",
        },
    )
    set_settings(upstream, key, channels=dict(ALL_CHANNELS))
    sync(mirror)
    for path in (f"/companies/{key}/pricing", f"/companies/{key}/quote", f"/companies/{key}/webmcp-demo"):
        status, _headers, raw = live.request("GET", path)
        assert status == 200, path
        page = raw.decode()
        head = page[: page.index("</head>")]
        title = head[head.index("<title>") : head.index("</title>")]
        assert "Evilgpj.exe Heating" in title, title
        meta = head[head.index('<meta name="description"') :]
        meta = meta[: meta.index(">")]
        assert not any(c in title + meta for c in BIDI), path
        if "/webmcp-demo" not in path:
            assert '<p class="eyebrow"><bdi>' in page


def test_source_hits_store_the_matched_route_not_the_raw_path(upstream, mirror, live):
    key = add_company(upstream)
    sync(mirror)
    for path in (
        f"/companies/{key}/pricing.json?source=a",
        "/companies/<script>x/pricing.json?source=b",
        "/wp-admin/../../etc/passwd?source=c",
        f"/companies/{UNKNOWN_KEY}/quote?source=d",
    ):
        live.request("GET", path)
    live.app.extensions["source_recorder"].flush()
    with mirror.Session() as session:
        stored = dict(session.execute(select(SourceHit.label, SourceHit.endpoint)).all())
    assert stored == {
        "a": f"/companies/{key}/pricing.json",
        "b": "/companies/<key>/pricing.json",
        "c": "<unmatched>",
        "d": "/companies/<key>/quote",
    }
