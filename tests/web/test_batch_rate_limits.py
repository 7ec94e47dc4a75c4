"""A batch pays for every message, and a limit's check and charge are one step (issue 22, findings 4 and 6.3).

After one 16-call batch the company ceiling, the client's share and the
provider server's per-client budget each counted 1. Now each message of a
2025-03-26 batch counts against every limit its own POST would meet: the
gate charges the first, the transport each further one, and the messages
past a limit are answered in place with that limit's JSON-RPC error
(-32000, `data.retry_after`; the batch itself is a 200, since the messages
before the limit were served). A request refused by one budget spends
nothing of the others.

With 4 concurrent clients revalidating with a stale If-None-Match, 11
requests were served against a share of 10: the budget was only checked
before the view and charged after it. Now every request is charged up front
(the moving window's acquire: one step under a lock in memory, one Lua
script on Redis) and a 304 gives its unit back.

Over real HTTP (werkzeug's threaded server; clients told apart by
X-Forwarded-For behind one trusted proxy hop), on memory:// and on the real
Redis at TEST_REDIS_URL.
"""

from __future__ import annotations

import threading

import pytest
import requests

from tests.hardening_helpers import serving
from tests.ops_helpers import MCP_HEADERS, redis_client, redis_keys
from tests.surface_helpers import add_company, sync

COMPANY_ENDPOINTS = ["mcp", "webmcp/mcp", "ucp/mcp"]  # every per-company JSON-RPC endpoint that has batches
COMPANIES = 5  # races for five shares: on memory:// one race in three or so went over before


def _list(n: int) -> dict:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/list"}


def _post(url: str, body, client: str) -> requests.Response:
    return requests.post(url, json=body, headers={**MCP_HEADERS, "X-Forwarded-For": client}, timeout=10)


def _counted(storage: dict, scope: str) -> list[int]:
    """The entries counted under one budget scope ("company-client", "company", "client"), per key (Redis)."""
    redis = redis_client()
    prefix = storage["RATE_LIMIT_KEY_PREFIX"]
    return sorted(redis.llen(key) for key in redis_keys(redis, prefix) if f"/{scope}/" in key.decode())


def _results_then_limited(answers: list, served: int, whom: str) -> None:
    assert all("result" in answer for answer in answers[:served]), answers
    for answer in answers[served:]:
        error = answer["error"]
        assert error["code"] == -32000 and f"for {whom} (" in error["message"], answer
        assert isinstance(error["data"]["retry_after"], int) and error["data"]["retry_after"] >= 1


@pytest.mark.parametrize("endpoint", COMPANY_ENDPOINTS)
def test_each_message_of_a_batch_counts_against_the_clients_share(make_app, upstream, limit_storage, endpoint):
    app = make_app(RATE_LIMIT_PER_COMPANY="5/hour", TRUSTED_PROXY_HOPS="1", **limit_storage)
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    url = f"/companies/{key}/{endpoint}"
    with serving(app) as base:
        batch = _post(base + url, [_list(n) for n in range(8)], "198.51.100.60")
        after = _post(base + url, _list(9), "198.51.100.60")
        other = _post(base + url, _list(10), "198.51.100.61")
    assert batch.status_code == 200
    answers = batch.json()
    assert [answer["id"] for answer in answers] == list(range(8))
    _results_then_limited(answers, 5, "this client at this company")
    assert after.status_code == 429 and after.json()["error"]["code"] == -32000  # the batch spent the share
    assert other.status_code == 200  # another client's share is its own
    if "RATE_LIMIT_KEY_PREFIX" in limit_storage:
        assert _counted(limit_storage, "company-client") == [1, 5]  # the refused messages cost nothing
        assert _counted(limit_storage, "company") == [6]


def test_a_batch_that_crosses_the_company_ceiling_is_answered_past_it(make_app, upstream, limit_storage):
    # Budget 4/hour: each client may spend all 4, every client together 6 (the ceiling, 1.5 times).
    app = make_app(
        RATE_LIMIT_PER_COMPANY="4/hour", RATE_LIMIT_COMPANY_CEILING="1.5", TRUSTED_PROXY_HOPS="1", **limit_storage
    )
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    url = f"/companies/{key}/mcp"
    with serving(app) as base:
        first = [_post(base + url, _list(n), "198.51.100.70").status_code for n in range(4)]
        batch = _post(base + url, [_list(n) for n in range(4)], "198.51.100.71")
    assert first == [200] * 4
    assert batch.status_code == 200
    _results_then_limited(batch.json(), 2, "this company")
    if "RATE_LIMIT_KEY_PREFIX" in limit_storage:
        # The second client's share was given back for the two messages the ceiling refused.
        assert _counted(limit_storage, "company-client") == [2, 4]
        assert _counted(limit_storage, "company") == [6]


def test_each_message_counts_against_the_provider_servers_per_client_budget(make_app, upstream, limit_storage):
    app = make_app(RATE_LIMIT_PER_CLIENT="3/minute", TRUSTED_PROXY_HOPS="1", **limit_storage)
    sync(app.extensions["mirror"])
    with serving(app) as base:
        batch = _post(base + "/mcp", [_list(n) for n in range(5)], "198.51.100.80")
        after = _post(base + "/mcp", _list(6), "198.51.100.80")
        feed = requests.get(base + "/v1/businesses", headers={"X-Forwarded-For": "198.51.100.80"}, timeout=10)
    assert batch.status_code == 200
    _results_then_limited(batch.json(), 3, "this client")
    assert after.status_code == 429
    assert feed.status_code == 429  # the feed shares the per-client budget the batch spent


def test_notifications_in_a_batch_count_and_are_never_answered(make_app, upstream, limit_storage):
    app = make_app(RATE_LIMIT_PER_COMPANY="2/hour", TRUSTED_PROXY_HOPS="1", **limit_storage)
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    with serving(app) as base:
        batch = _post(f"{base}/companies/{key}/mcp", [_list(1), notification, _list(3), notification], "198.51.100.90")
    answers = batch.json()
    assert batch.status_code == 200 and [answer["id"] for answer in answers] == [1, 3]
    _results_then_limited(answers, 1, "this client at this company")  # the notification took the second unit


def test_a_batch_under_the_limit_is_served_whole(make_app, upstream, limit_storage):
    app = make_app(RATE_LIMIT_PER_COMPANY="16/hour", TRUSTED_PROXY_HOPS="1", **limit_storage)
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    with serving(app) as base:
        batch = _post(f"{base}/companies/{key}/mcp", [_list(n) for n in range(16)], "198.51.100.95")
        after = _post(f"{base}/companies/{key}/mcp", _list(16), "198.51.100.95")
    assert batch.status_code == 200 and all("result" in answer for answer in batch.json())
    assert after.status_code == 429  # exactly the budget: sixteen messages, sixteen units


def test_concurrent_stale_revalidations_never_exceed_the_share(make_app, upstream, limit_storage):
    app = make_app(RATE_LIMIT_PER_COMPANY="10/hour", TRUSTED_PROXY_HOPS="1", **limit_storage)
    keys = [add_company(upstream) for _ in range(COMPANIES)]  # each a fresh share of 10 to race for
    sync(app.extensions["mirror"])
    statuses: dict[str, list[int]] = {key: [] for key in keys}
    lock, together = threading.Lock(), threading.Barrier(4)
    with serving(app) as base:

        def revalidate() -> None:
            with requests.Session() as session:  # one connection per client, as a poller keeps
                for key in keys:
                    for _ in range(4):
                        together.wait(10)  # the four clients ask at the same moment, round after round
                        response = session.get(
                            f"{base}/companies/{key}/pricing.json",
                            headers={"If-None-Match": '"stale"', "X-Forwarded-For": "198.51.100.99"},
                            timeout=10,
                        )
                        with lock:
                            statuses[key].append(response.status_code)

        clients = [threading.Thread(target=revalidate) for _ in range(4)]
        for client in clients:
            client.start()
        for client in clients:
            client.join(60)
    for seen in statuses.values():
        assert len(seen) == 16 and set(seen) == {200, 429}, seen
    assert [seen.count(200) for seen in statuses.values()] == [10] * COMPANIES  # the share exactly, never one more
    if "RATE_LIMIT_KEY_PREFIX" in limit_storage:
        assert _counted(limit_storage, "company-client") == [10] * COMPANIES
