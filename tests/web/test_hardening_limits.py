"""A fair per-company limit (issue 12, finding 3), and a counter outage that stays cheap (finding 10).

One client used to spend a company's whole budget and black the contractor
out for everyone (`Retry-After: 2956` for every other client). Now each
client has its own share of a company's budget (counted per company and
client), the company-wide ceiling is a multiple of the budget that only many
clients together reach, and a 304 costs nothing. Over real HTTP (werkzeug's
threaded server; clients told apart by X-Forwarded-For behind one trusted
proxy hop), on memory:// and on the real Redis at TEST_REDIS_URL.

A Redis that is down or hangs costs one warning per interval and at most one
socket time-out per interval, not a traceback and a delay per request.
"""

from __future__ import annotations

import json
import logging
import time

import requests

from tests.hardening_helpers import hanging_host, serving
from tests.ops_helpers import MCP_HEADERS
from tests.surface_helpers import add_company, sync

TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def _get(base: str, path: str, client: str, **headers) -> requests.Response:
    return requests.get(base + path, headers={"X-Forwarded-For": client, **headers}, timeout=10)


def test_one_client_cannot_black_out_a_company_for_the_others(make_app, upstream, limit_storage):
    # Budget 4/hour: each client's share is 2 (0.5), the company-wide ceiling 6 (1.5 times the budget).
    app = make_app(
        RATE_LIMIT_PER_COMPANY="4/hour",
        RATE_LIMIT_COMPANY_CLIENT_SHARE="0.5",
        RATE_LIMIT_COMPANY_CEILING="1.5",
        TRUSTED_PROXY_HOPS="1",
        **limit_storage,
    )
    key = add_company(upstream)
    other_key = add_company(upstream)
    sync(app.extensions["mirror"])
    path = f"/companies/{key}/pricing.json"
    with serving(app) as base:
        greedy = [_get(base, path, "198.51.100.1").status_code for _ in range(10)]
        refusal = _get(base, path, "198.51.100.1")
        second = [_get(base, path, "198.51.100.2").status_code for _ in range(3)]
        third = [_get(base, f"/companies/{key}.jsonld", "198.51.100.3").status_code for _ in range(2)]
        fourth = _get(base, f"/companies/{key}/pricing", "198.51.100.4")  # the company-wide ceiling (6) is reached
        elsewhere = _get(base, f"/companies/{other_key}/pricing.json", "198.51.100.1")
        mcp = requests.post(
            f"{base}/companies/{key}/mcp",
            json=TOOLS_LIST,
            timeout=10,
            headers={**MCP_HEADERS, "X-Forwarded-For": "198.51.100.5"},
        )
    assert greedy == [200, 200] + [429] * 8
    assert refusal.status_code == 429 and "this client at this company" in refusal.json()["message"]
    assert 3000 < int(refusal.headers["Retry-After"]) <= 3600
    assert second == [200, 200, 429]  # its own share, untouched by the greedy client
    assert third == [200, 200]  # the share covers every surface of the company together
    assert fourth.status_code == 429 and "this company" in fourth.json()["message"]
    assert "this client" not in fourth.json()["message"]
    assert elsewhere.status_code == 200  # another company is another budget
    assert mcp.status_code == 429 and mcp.json()["error"]["code"] == -32000


def test_a_304_costs_nothing_and_a_conditional_200_costs_one(make_app, upstream, limit_storage):
    app = make_app(
        RATE_LIMIT_PER_COMPANY="2/hour", RATE_LIMIT_COMPANY_CLIENT_SHARE="1", TRUSTED_PROXY_HOPS="1", **limit_storage
    )
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    path = f"/companies/{key}/pricing.json"
    client = "198.51.100.9"
    with serving(app) as base:
        first = _get(base, path, client)
        etag = first.headers["ETag"]
        revalidations = [_get(base, path, client, **{"If-None-Match": etag}).status_code for _ in range(6)]
        stale = _get(base, path, client, **{"If-None-Match": '"not-the-etag"'})  # a 200: costs one
        after = _get(base, path, client, **{"If-None-Match": etag})
        plain = _get(base, path, client)
    assert first.status_code == 200
    assert revalidations == [304] * 6
    assert stale.status_code == 200
    assert after.status_code == 429  # the budget (2) is spent: a revalidation is refused, not served
    assert plain.status_code == 429


def test_the_default_share_and_ceiling(make_app):
    from mirror.runtime.config import Settings

    # The test apps give their one client the whole budget (conftest); put the declared default back.
    default_share = Settings.model_fields["rate_limit_company_client_share"].default
    limits = make_app(RATE_LIMIT_COMPANY_CLIENT_SHARE=str(default_share)).extensions["rate_limits"]  # 1000/hour
    assert [(i.amount, i.GRANULARITY.name) for i in limits.per_company_client.items] == [(250, "hour")]
    assert [(i.amount, i.GRANULARITY.name) for i in limits.per_company.items] == [(2000, "hour")]


# --- the counter's outage -----------------------------------------------------------------------


def _outage_requests(app, key: str, count: int) -> tuple[list[int], list[float]]:
    statuses, durations = [], []
    with serving(app) as base:
        for _ in range(count):
            started = time.monotonic()
            statuses.append(_get(base, f"/companies/{key}/pricing.json", "198.51.100.20").status_code)
            durations.append(time.monotonic() - started)
    return statuses, durations


def _server_seconds(caplog, first: int) -> list[float]:
    """What the server spent on each request logged since record `first`: the invocation log's duration.

    The server's own figure, not the client's wall clock: a loaded CI machine can hold a request
    between the client and the server for half a second, which is not the limiter's doing.
    """
    lines = [r.getMessage() for r in caplog.records[first:] if r.name == "mirror.invocations"]
    return [json.loads(line)["duration_ms"] / 1000 for line in lines]


def _limit_warnings(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "web.limits" and r.levelno >= logging.WARNING]


def test_a_down_redis_costs_one_warning_per_interval_not_a_traceback_per_request(make_app, upstream, caplog):
    app = make_app(
        RATE_LIMIT_STORAGE_URI="redis://127.0.0.1:1/0", RATE_LIMIT_PER_COMPANY="1/hour", TRUSTED_PROXY_HOPS="1"
    )
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    caplog.set_level(logging.WARNING, logger="web.limits")
    statuses, _ = _outage_requests(app, key, 20)
    assert statuses == [200] * 20  # fail open
    warnings = _limit_warnings(caplog)
    assert len(warnings) == 1, [w.getMessage() for w in warnings]
    assert warnings[0].exc_info is None and "retrying in 30 s" in warnings[0].getMessage()


def test_a_hanging_redis_delays_at_most_one_request_per_interval(make_app, upstream, caplog):
    with hanging_host() as redis:
        app = make_app(
            RATE_LIMIT_STORAGE_URI=f"redis://127.0.0.1:{redis.port}/0",
            RATE_LIMIT_PER_COMPANY="1/hour",
            TRUSTED_PROXY_HOPS="1",
            RATE_LIMIT_STORAGE_RETRY_SECONDS="2",
        )
        key = add_company(upstream)
        sync(app.extensions["mirror"])
        caplog.set_level(logging.WARNING, logger="web.limits")
        caplog.set_level(logging.INFO, logger="mirror.invocations")
        first = len(caplog.records)
        statuses, _ = _outage_requests(app, key, 12)
        assert statuses == [200] * 12
        durations = _server_seconds(caplog, first)
        slow = [d for d in durations if d > 0.4]
        assert len(durations) == 12 and len(slow) <= 1 and max(durations) < 2.0, durations  # one time-out (0.5 s)
        time.sleep(2.1)  # the interval is over: one request probes again, pays one time-out, and warns once
        first = len(caplog.records)
        statuses, _ = _outage_requests(app, key, 6)
        assert statuses == [200] * 6
        durations = _server_seconds(caplog, first)
        assert len(durations) == 6 and len([d for d in durations if d > 0.4]) <= 1 and max(durations) < 2.0, durations
        assert len(_limit_warnings(caplog)) == 2


def test_the_breaker_probes_once_per_interval_and_closes_when_the_storage_answers():
    from web.limits import StorageBreaker

    now = [100.0]
    breaker = StorageBreaker(30, clock=lambda: now[0])
    assert breaker.allow()
    breaker.failed(ConnectionError("down"))
    assert [breaker.allow() for _ in range(5)] == [False] * 5  # open: nobody touches the storage
    now[0] += 30
    assert breaker.allow() and not breaker.allow()  # one probe, the others keep skipping
    breaker.succeeded()
    assert all(breaker.allow() for _ in range(5))  # closed again: limits apply
