"""The invocation log: one JSON line (and one `invocations` row) per public request and MCP call.

Checked: the fields and their values (endpoint as the route rule, protocol
mcp/webmcp/http, platform from User-Agent or clientInfo, source label,
status, outcome, duration, company, keyed agent hash), that the client's
address appears nowhere, that recording can neither fail nor slow a
request, and the `flask --app wsgi usage` report.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import subprocess
import threading
import time

import pytest
from sqlalchemy import select
from werkzeug.serving import make_server

from mirror.store.models import Invocation
from tests.ops_helpers import MCP_HEADERS, UNKNOWN_KEY
from tests.surface_helpers import add_company, node_env, sync
from web.observability import detect_platform

ADDRESS = "198.51.100.23"
AGENT = re.compile(r"^[0-9a-f]{16}$")


@pytest.fixture
def site(upstream, make_app):
    app = make_app(USAGE_HASH_KEY="test-usage-key")
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = ADDRESS
    return app, client, key


def _rows(app) -> list[Invocation]:
    app.extensions["invocation_recorder"].flush()
    with app.extensions["mirror"].Session() as session:
        return list(session.scalars(select(Invocation).order_by(Invocation.id)))


def _call(client, key: str, method: str, params: dict | None = None, **headers):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return client.post(f"/companies/{key}/mcp", json=body, headers={**MCP_HEADERS, **headers})


def test_an_http_request_is_one_json_line_and_one_row(site, lines):
    app, client, key = site
    response = client.get(f"/companies/{key}/pricing.json?source=newsletter", headers={"User-Agent": "curl/8.5.0"})
    assert response.status_code == 200
    assert len(lines.raw) == 1 and "\n" not in lines.raw[0]
    entry = lines.entries[0]
    expected_agent = hmac.new(b"test-usage-key", f"{ADDRESS}\x00curl/8.5.0".encode(), hashlib.sha256).hexdigest()[:16]
    assert entry | {"ts": "-", "duration_ms": 0} == {
        "ts": "-",
        "event": "invocation",
        "endpoint": "/companies/<key>/pricing.json",
        "method": "GET",
        "protocol": "http",
        "rpc_method": None,
        "tool": None,
        "platform": "curl",
        "source": "newsletter",
        "status": 200,
        "outcome": "ok",
        "duration_ms": 0,
        "company_key": key,
        "agent": expected_agent,
    }
    assert 0 <= entry["duration_ms"] < 5000
    [row] = _rows(app)
    assert (row.endpoint, row.protocol, row.platform, row.source, row.status, row.company_key, row.agent) == (
        "/companies/<key>/pricing.json",
        "http",
        "curl",
        "newsletter",
        200,
        key,
        expected_agent,
    )


def test_the_address_is_never_logged_or_stored(site, lines):
    app, client, key = site
    client.get(f"/companies/{key}/pricing?source={ADDRESS}x")
    client.get(f"/companies/{UNKNOWN_KEY}.jsonld")
    _call(client, key, "tools/call", {"name": "get_business_info", "arguments": {}})
    assert len(lines.raw) == 3
    stored = repr([{c.name: getattr(r, c.name) for c in Invocation.__table__.columns} for r in _rows(app)])
    for text in (*lines.raw, stored):
        assert ADDRESS not in text.replace(f"{ADDRESS}x", "")


def test_mcp_calls_name_the_tool_the_platform_and_the_outcome(site, lines):
    _, client, key = site
    _call(
        client,
        key,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "openai-mcp", "version": "1"}},
        **{"User-Agent": "python-httpx/0.28"},
    )
    _call(
        client,
        key,
        "tools/call",
        {"name": "search_catalog", "arguments": {"query": "filter"}},
        **{"User-Agent": "Claude-User/1.0"},
    )
    _call(client, key, "tools/call", {"name": "check_service_area", "arguments": {"postal_code": "nope"}})
    _call(client, key, "tools/call", {"name": "no_such_tool", "arguments": {}})
    _call(client, key, "bogus/method")
    got = [
        (e["protocol"], e["rpc_method"], e["tool"], e["platform"], e["outcome"], e["company_key"])
        for e in lines.entries
    ]
    assert got == [
        ("mcp", "initialize", None, "openai", "ok", key),
        ("mcp", "tools/call", "search_catalog", "anthropic", "ok", key),
        ("mcp", "tools/call", "check_service_area", "unknown", "tool_error", key),
        ("mcp", "tools/call", "unknown", "unknown", "rpc_error", key),
        ("mcp", "other", None, "unknown", "rpc_error", key),
    ]


def test_refusals_are_logged_with_their_outcome(make_app, upstream, lines):
    app = make_app(RATE_LIMIT_PER_COMPANY="1/hour")
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    client = app.test_client()
    client.get(f"/companies/{key}/pricing.json")
    client.get(f"/companies/{key}/pricing.json")
    client.get(f"/companies/{UNKNOWN_KEY}/pricing.json")
    client.post(f"/companies/{key}/mcp", data="{", headers=MCP_HEADERS)
    client.get("/v1/businesses?page=0")
    client.get("/no/such/path")
    got = [(e["endpoint"], e["status"], e["outcome"], e["company_key"]) for e in lines.entries]
    assert got == [
        ("/companies/<key>/pricing.json", 200, "ok", key),
        ("/companies/<key>/pricing.json", 429, "rate_limited", key),
        ("/companies/<key>/pricing.json", 404, "not_found", None),
        ("/companies/<key>/mcp", 429, "rate_limited", key),
        ("/v1/businesses", 400, "client_error", None),
        ("<unmatched>", 404, "client_error", None),
    ]


def test_ask_and_a2a_requests_are_logged_with_their_protocol(site, lines):
    app, client, key = site
    client.post(f"/companies/{key}/ask", json={"query": {"text": "furnace"}})
    client.post(f"/companies/{key}/ask", json={"query": {}})
    client.post(f"/companies/{UNKNOWN_KEY}/ask", json={"query": {"text": "furnace"}})
    client.post("/ask?source=agent-x", json={"query": {"text": "furnace near 63376"}})
    client.options("/ask")  # a browser's preflight is plain HTTP
    client.post(f"/companies/{key}/a2a", data="{", headers={"Content-Type": "application/json", "A2A-Version": "1.0"})
    got = [
        (e["endpoint"], e["protocol"], e["status"], e["outcome"], e["company_key"], e["source"]) for e in lines.entries
    ]
    assert got == [
        ("/companies/<key>/ask", "nlweb", 200, "ok", key, None),
        ("/companies/<key>/ask", "nlweb", 400, "client_error", key, None),
        ("/companies/<key>/ask", "nlweb", 404, "not_found", None, None),
        ("/ask", "nlweb", 200, "ok", None, "agent-x"),
        ("/ask", "http", 204, "ok", None, None),
        ("/companies/<key>/a2a", "a2a", 200, "rpc_error", key, None),
    ]
    assert [row.protocol for row in _rows(app)] == ["nlweb"] * 4 + ["http", "a2a"]


def test_probes_are_not_invocations(site, lines):
    _, client, _ = site
    for path in ("/healthz", "/readyz", "/metrics"):
        client.get(path)
    assert lines.raw == []


@pytest.mark.parametrize(
    ("user_agent", "client_name", "platform"),
    [
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
            None,
            "openai",
        ),
        ("Claude-User/1.0 (+Claude-User@anthropic.com)", None, "anthropic"),
        ("node", "claude-ai", "anthropic"),
        ("node", "cursor-vscode", "cursor"),
        ("node", "Visual Studio Code", "vscode"),
        ("Mozilla/5.0 (compatible; Google-Extended)", None, "google"),
        ("Mozilla/5.0 (compatible; Perplexity-User/1.0)", None, "perplexity"),
        ("curl/8.5.0", None, "curl"),
        ("python-httpx/0.28.1", "mcp", "python"),
        ("Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36", None, "browser"),
        (None, None, "unknown"),
        ("", "", "unknown"),
    ],
)
def test_platform_detection(user_agent, client_name, platform):
    assert detect_platform(user_agent, client_name) == platform


def test_agent_hash_is_stable_under_a_key_and_unlinkable_without(make_app, upstream, lines):
    keyed = [make_app(USAGE_HASH_KEY="same"), make_app(USAGE_HASH_KEY="same")]
    unkeyed = [make_app(), make_app()]
    for app in (*keyed, *unkeyed):
        app.test_client().get("/v1/businesses", headers={"User-Agent": "curl/8"})
    agents = [entry["agent"] for entry in lines.entries]
    assert all(AGENT.match(agent) for agent in agents)
    assert agents[0] == agents[1]
    assert len({agents[1], agents[2], agents[3]}) == 3  # random per-process keys


def test_a_failing_or_slow_database_never_fails_or_slows_a_request(site, lines, monkeypatch):
    app, client, key = site
    recorder = app.extensions["invocation_recorder"]

    class Hanging:
        def __enter__(self):
            time.sleep(3)
            raise RuntimeError("database down")

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(recorder, "session_factory", Hanging)
    started = time.monotonic()
    statuses = [client.get(f"/companies/{key}/pricing.json").status_code for _ in range(20)]
    assert statuses == [200] * 20
    assert time.monotonic() - started < 2.5
    recorder.flush(timeout=10)
    assert recorder.dropped >= 20
    assert len(lines.raw) == 20  # the log line does not depend on the database


def test_a_full_queue_drops_and_counts(site):
    app, client, key = site
    recorder = app.extensions["invocation_recorder"]
    recorder.queue.maxsize = 1
    recorder.linger_seconds = 0  # at most two rows absorbed: one in the stalled writer's hand, one queued
    blocker = threading.Event()
    recorder.session_factory = lambda: (blocker.wait(5), None)[1]  # the writer thread stalls
    for _ in range(5):
        assert client.get(f"/companies/{key}/pricing.json").status_code == 200
    assert recorder.dropped >= 3
    blocker.set()


def test_usage_report_per_company_and_tool(site):
    app, client, key = site
    for _ in range(3):
        _call(client, key, "tools/call", {"name": "list_categories", "arguments": {}})
    _call(client, key, "tools/call", {"name": "check_service_area", "arguments": {"postal_code": "bad"}})
    client.get(f"/companies/{key}/pricing.json", headers={"User-Agent": "curl/8"})
    client.get("/v1/businesses")
    app.extensions["invocation_recorder"].flush()
    for handler in logging.getLogger("mirror.invocations").handlers:
        handler.flush()  # every line written now: none may land in the commands' output below
    output = app.test_cli_runner().invoke(args=["usage", "--since", "1h"]).output
    rows = {tuple(line.split()[:3]): line.split()[3:] for line in output.splitlines()[1:] if line.strip()}
    assert rows[(key, "list_categories", "mcp")][:3] == ["3", "1", "0"]
    assert rows[(key, "check_service_area", "mcp")][:3] == ["1", "1", "1"]
    assert rows[(key, "/companies/<key>/pricing.json", "http")][:2] == ["1", "1"]
    assert rows[("-", "/v1/businesses", "http")][:2] == ["1", "1"]
    assert "curl" in output and "platform" in output
    only = app.test_cli_runner().invoke(args=["usage", "--company", UNKNOWN_KEY]).output
    assert only.strip() == "no invocations recorded"
    future = app.test_cli_runner().invoke(args=["usage", "--since", "2999-01-01T00:00:00Z"]).output
    assert future.strip() == "no invocations recorded"


# --- the WebMCP embed identifies itself ---------------------------------------------------

NODE_HARNESS = """
const [moduleUrl, fileBase, serverBase] = process.argv.slice(1);
const realFetch = globalThis.fetch;
globalThis.fetch = (url, options) => realFetch(String(url).replace(fileBase, serverBase), options);
const tools = [];
globalThis.document = {
  modelContext: { registerTool: (tool) => { tools.push(tool); } },
  querySelectorAll: () => [],
};
const module = await import(moduleUrl);
await module.ready;
const result = await tools.find((t) => t.name === "get_business_info").execute({});
console.log(JSON.stringify(result.name ? "ok" : result));
"""


def test_calls_from_webmcp_js_are_logged_as_webmcp(site, lines, tmp_path):
    app, _, key = site
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        module = tmp_path / "webmcp.mjs"
        module.write_bytes(app.test_client().get("/webmcp.js").get_data())
        lines.raw.clear()
        run = subprocess.run(
            [
                "node",
                "--input-type=module",
                "-e",
                NODE_HARNESS,
                f"{module.as_uri()}?key={key}",
                tmp_path.as_uri() + "/",
                f"http://127.0.0.1:{server.server_port}/",
            ],
            capture_output=True,
            text=True,
            env=node_env(),
            timeout=60,
        )
    finally:
        server.shutdown()
    assert run.returncode == 0 and run.stdout.strip() == '"ok"', run.stderr
    calls = [e for e in lines.entries if e["endpoint"] == "/companies/<key>/webmcp/mcp"]  # the embed's own endpoint
    assert [(e["protocol"], e["tool"], e["outcome"]) for e in calls] == [("webmcp", "get_business_info", "ok")]


def test_the_line_is_exactly_what_json_dumps_writes_in_ascii():
    # The line is made by orjson where that gives the same bytes (ASCII text)
    # and by the standard library otherwise: the same line either way.
    import random
    from datetime import UTC, datetime

    from web.observability import _log_line

    chance = random.Random(7)
    alphabet = "az/\\\"\x00\x1f\x7f\n\t é<>&'\u2028\ud800"
    for _ in range(5000):
        record = {
            "recorded_at": datetime.now(UTC),
            "endpoint": "".join(chance.choice(alphabet) for _ in range(chance.randint(0, 12))),
            "status": chance.choice([200, 404]),
            "duration_ms": round(chance.random() * 10 ** chance.randint(0, 9), 1),
            "tool": chance.choice([None, "search_catalog"]),
        }
        expected = {"ts": record["recorded_at"].isoformat().replace("+00:00", "Z"), "event": "invocation"}
        expected.update({k: v for k, v in record.items() if k != "recorded_at"})
        assert _log_line(record) == json.dumps(expected, ensure_ascii=True, separators=(",", ":"))


def test_with_only_its_own_handler_each_request_is_one_line_on_stderr(site, capfd):
    # The configured path: no other handler on the logger, so a request
    # queues its fields alone and the listener writes the lines in batches.
    # (pytest attaches its capture handlers to every logger: set aside here.)
    _app, client, key = site
    logger = logging.getLogger("mirror.invocations")
    [ours] = [h for h in logger.handlers if type(h).__name__ == "_DeferredQueueHandler"]
    others = [h for h in logger.handlers if h is not ours]
    queued = []
    ours.enqueue_fields = lambda fields: (queued.append(fields), type(ours).enqueue(ours, fields))
    for handler in others:
        logger.removeHandler(handler)
    try:
        ours.flush()  # lines of earlier requests are written now, before the capture starts
        capfd.readouterr()
        for source in ("a", "b", "c"):
            assert client.get(f"/companies/{key}/pricing.json?source={source}").status_code == 200
        assert client.get("/companies/nope/pricing.json").status_code == 404
        ours.flush()
    finally:
        for handler in others:
            logger.addHandler(handler)
        del ours.enqueue_fields
    assert len(queued) == 4  # the fields alone: no LogRecord on the request thread
    written = [json.loads(line) for line in capfd.readouterr().err.splitlines() if '"event":"invocation"' in line]
    assert [(e["source"], e["status"], e["company_key"]) for e in written] == [
        ("a", 200, key),
        ("b", 200, key),
        ("c", 200, key),
        (None, 404, None),
    ]
    assert all(e["endpoint"] == "/companies/<key>/pricing.json" and AGENT.match(e["agent"]) for e in written)
