"""Rate limits (the `limits` library): per company per hour, per client per minute, shared through Redis.

Past a limit the answer is a 429 with Retry-After and a JSON error (a
JSON-RPC-shaped one on MCP endpoints), never a degraded answer. With
RATE_LIMIT_STORAGE_URI=redis://... the counts are shared by every app
instance and gunicorn worker; these tests use the real Redis at
TEST_REDIS_URL (default 127.0.0.1:6379) and fail when it is unreachable.
"""

from __future__ import annotations

import time

import pytest
import requests

from tests.ops_helpers import (
    MCP_HEADERS,
    TEST_REDIS_URL,
    UNKNOWN_KEY,
    process_env,
    redis_client,
    redis_keys,
    running_gunicorn,
    unique_prefix,
)
from tests.surface_helpers import add_company, sync

PROVIDER_CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}


def _assert_refusal(response, *, mcp: bool = False) -> int:
    assert response.status_code == 429
    assert response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    retry_after = int(response.headers["Retry-After"])
    body = response.get_json()
    if mcp:
        assert body["jsonrpc"] == "2.0" and body["id"] is None
        assert body["error"]["data"]["retry_after"] == retry_after
        assert "Rate limit exceeded" in body["error"]["message"]
    else:
        assert set(body) == {"error", "message", "retry_after"}
        assert body["error"] == "rate_limited" and body["retry_after"] == retry_after
    return retry_after


def test_past_the_company_budget_a_429_with_retry_after(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_COMPANY="2/hour", RATE_LIMIT_COMPANY_CLIENT_SHARE="1")
    client = app.test_client()
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    assert [client.get(f"/companies/{key}/pricing.json").status_code for _ in range(2)] == [200, 200]
    retry_after = _assert_refusal(client.get(f"/companies/{key}/pricing.json"))
    assert 3000 < retry_after <= 3600
    # The HTML page's refusal is the same JSON 429 (a refusal is never a degraded page).
    _assert_refusal(client.get(f"/companies/{key}/pricing"))
    _assert_refusal(client.post(f"/companies/{key}/mcp", json=PROVIDER_CALL, headers=MCP_HEADERS), mcp=True)


def test_retry_after_is_honest(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_COMPANY="2 per 2 seconds", RATE_LIMIT_COMPANY_CLIENT_SHARE="1")
    client = app.test_client()
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    url = f"/companies/{key}.jsonld"
    assert [client.get(url).status_code for _ in range(2)] == [200, 200]
    retry_after = _assert_refusal(client.get(url))
    assert 1 <= retry_after <= 2
    time.sleep(retry_after + 0.1)
    assert client.get(url).status_code == 200


def test_per_process_counting_starts_no_thread_per_hit(make_app, upstream):
    # The library's own memory storage started a sweep thread 10 ms after any
    # hit: a burst spread over half a second started dozens of them.
    app = make_app(RATE_LIMIT_PER_COMPANY="1000/hour")
    client = app.test_client()
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    limits = app.extensions["rate_limits"]
    storage = limits.storage
    timers, hits = set(), 0
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        assert client.get(f"/companies/{key}/pricing.json").status_code == 200
        hits += 1
        timers.add(id(storage.timer))
        time.sleep(0.005)
    assert len(timers) <= 2  # the one the storage started with, then one sweep
    assert storage.timer.daemon  # a pending sweep never holds a process's exit
    # Counting is unchanged: the company's moving window holds every one of those hits.
    budget = limits.per_company
    (item,) = budget.items
    stats = limits.strategy.get_window_stats(item, budget.prefix, key, budget.scope)
    assert stats.remaining == item.amount - hits


def test_the_feed_and_the_provider_server_share_a_per_client_budget(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_CLIENT="3/minute")
    sync(app.extensions["mirror"])
    one = app.test_client()
    one.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "203.0.113.8"
    assert one.get("/v1/businesses").status_code == 200
    assert one.post("/mcp", json=PROVIDER_CALL, headers=MCP_HEADERS).status_code == 200
    assert one.get("/v1/businesses?page=2").status_code == 200
    _assert_refusal(one.get("/v1/businesses"))
    retry_after = _assert_refusal(one.post("/mcp", json=PROVIDER_CALL, headers=MCP_HEADERS), mcp=True)
    assert 1 <= retry_after <= 60
    assert other.get("/v1/businesses").status_code == 200


def test_the_directory_ask_draws_on_the_same_per_client_budget(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_CLIENT="2/minute")
    sync(app.extensions["mirror"])
    client = app.test_client()
    question = {"query": {"text": "furnace near 63376"}}
    assert client.post("/ask", json=question).status_code == 200
    assert client.get("/v1/businesses").status_code == 200
    _assert_refusal(client.post("/ask", json=question))
    _assert_refusal(client.post("/ask", data="{", content_type="application/json"))  # the limit comes first


def test_an_ipv6_client_is_one_client_across_its_64(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_CLIENT="2/minute")
    clients = []
    for host in ("2001:db8:1:2::10", "2001:db8:1:2:ffff::1", "2001:db8:1:3::10"):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = host
        clients.append(client)
    assert clients[0].get("/v1/businesses").status_code == 200
    assert clients[1].get("/v1/businesses").status_code == 200
    assert clients[1].get("/v1/businesses").status_code == 429  # same /64
    assert clients[2].get("/v1/businesses").status_code == 200  # another /64


def test_other_public_endpoints_are_not_limited(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_CLIENT="1/minute", RATE_LIMIT_PER_COMPANY="1/hour")
    client = app.test_client()
    for path in ("/.well-known/mcp.json", "/llms.txt", "/webmcp.js", "/openapi.json", "/healthz"):
        assert {client.get(path).status_code for _ in range(3)} == {200}, path


# --- Redis -----------------------------------------------------------------------------------


def test_two_app_instances_share_the_count_through_redis(make_app, upstream):
    redis = redis_client()
    prefix = unique_prefix()
    config = {
        "RATE_LIMIT_STORAGE_URI": TEST_REDIS_URL,
        "RATE_LIMIT_KEY_PREFIX": prefix,
        "RATE_LIMIT_PER_COMPANY": "3/hour",
        "RATE_LIMIT_COMPANY_CLIENT_SHARE": "1",
    }
    first, second = make_app(**config), make_app(**config)
    key = add_company(upstream)
    sync(first.extensions["mirror"])
    a, b = first.test_client(), second.test_client()
    try:
        for _ in range(5):
            assert a.get(f"/companies/{UNKNOWN_KEY}/pricing.json").status_code == 404
        assert redis_keys(redis, prefix) == []  # the limiter never saw the unknown key
        statuses = [
            a.get(f"/companies/{key}/pricing.json").status_code,
            b.get(f"/companies/{key}/pricing.json").status_code,
            a.get(f"/companies/{key}/pricing.json").status_code,
            b.get(f"/companies/{key}/pricing.json").status_code,
        ]
        assert statuses == [200, 200, 200, 429]
        _assert_refusal(a.get(f"/companies/{key}/pricing.json"))
        stored = redis_keys(redis, prefix)  # the client's share of the company, and the company's ceiling
        assert len(stored) == 2 and all(key.encode() in stored_key for stored_key in stored)
        assert all(0 < redis.ttl(stored_key) <= 3600 for stored_key in stored)  # counts expire on their own
    finally:
        for stored_key in redis_keys(redis, prefix):
            redis.delete(stored_key)


@pytest.mark.slow
def test_gunicorn_workers_share_the_count_through_redis(database_url, upstream, mirror):
    redis = redis_client()
    prefix = unique_prefix()
    key = add_company(upstream)
    sync(mirror)
    env = process_env(
        database_url,
        upstream,
        RATE_LIMIT_STORAGE_URI=TEST_REDIS_URL,
        RATE_LIMIT_KEY_PREFIX=prefix,
        RATE_LIMIT_PER_COMPANY="5/hour",
        RATE_LIMIT_PER_CLIENT="4/minute",
        RATE_LIMIT_COMPANY_CLIENT_SHARE="1",
    )
    try:
        # Workers retire after 3 requests: many processes answer, and only a shared count stays exact.
        with running_gunicorn(env, 2, "--max-requests", "3") as base:
            company = [requests.get(f"{base}/companies/{key}/pricing.json", timeout=10).status_code for _ in range(12)]
            feed = [requests.get(f"{base}/v1/businesses", timeout=10).status_code for _ in range(10)]
            refusal = requests.get(f"{base}/v1/businesses", timeout=10)
    finally:
        for stored_key in redis_keys(redis, prefix):
            redis.delete(stored_key)
    assert company == [200] * 5 + [429] * 7
    assert feed == [200] * 4 + [429] * 6
    assert refusal.status_code == 429 and int(refusal.headers["Retry-After"]) >= 1


def test_an_unreachable_redis_fails_open_and_fast(make_app, upstream):
    app = make_app(
        RATE_LIMIT_STORAGE_URI="redis://127.0.0.1:1/0",
        RATE_LIMIT_PER_COMPANY="1/hour",
        RATE_LIMIT_PER_CLIENT="1/minute",
    )
    client = app.test_client()
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    started = time.monotonic()
    statuses = [client.get(f"/companies/{key}/pricing.json").status_code for _ in range(3)]
    statuses += [client.get("/v1/businesses").status_code for _ in range(3)]
    assert statuses == [200] * 6  # an outage of the counter is not an outage of the site
    assert time.monotonic() - started < 10


def test_behind_a_trusted_proxy_the_forwarded_client_is_the_client(make_app, upstream):
    direct = make_app(RATE_LIMIT_PER_CLIENT="1/minute")
    proxied = make_app(RATE_LIMIT_PER_CLIENT="1/minute", TRUSTED_PROXY_HOPS="1")
    for app, expected in ((direct, [200, 429]), (proxied, [200, 200])):
        client = app.test_client()  # every request comes from the proxy's address
        statuses = [
            client.get("/v1/businesses", headers={"X-Forwarded-For": forwarded}).status_code
            for forwarded in ("203.0.113.1", "203.0.113.2")
        ]
        assert statuses == expected  # without trust, X-Forwarded-For is ignored: no dodging the limit by spoofing


def test_counting_adds_no_request_hook(app):
    """The counters are the `limits` library's storage and strategy, used by the gate alone: no Flask
    extension registers a per-request pass (Flask-Limiter's hooks cost more than the count, with nothing to do)."""
    hooks = [
        *app.before_request_funcs.get(None, []),
        *app.after_request_funcs.get(None, []),
        *app.teardown_request_funcs.get(None, []),
    ]
    assert hooks and not [
        h for h in hooks if (getattr(h, "__module__", "") or "").startswith(("flask_limiter", "web.limits"))
    ]
