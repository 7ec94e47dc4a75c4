"""Every request has a cost bound: REQUEST_DEADLINE_SECONDS (web/deadline.py, mirror/runtime/deadline.py).

A question past its deadline is stopped where it is (the database statement
cancelled by the database itself, the Python loop at its next check) and
answered 503 with Retry-After in its surface's error shape; the invocation
log says `deadline_passed`, and the worker answers the next request.
Over real HTTP (the app on a loopback port).

The slow part is injected where a request reads: the catalog search runs a
statement that takes far longer than the deadline first (pg_sleep) and notes
whether it ever finished, so a statement the deadline did not cancel fails the test without
timing anything.
"""

from __future__ import annotations

import time

import jsonschema
import pytest
import requests
from sqlalchemy import select, text

import agent_tools.company
import mcp_server.ucp.catalog
import mirror.answers.company
from mirror.store.db import autocommit_rows
from mirror.store.models import Invocation
from tests.hardening_helpers import serving
from tests.mcp_helpers import HEADERS
from tests.rpc_helpers import A2A_HEADERS
from tests.surface_helpers import add_company, sync
from web.jsonrpc import DEADLINE_EXCEEDED

DEADLINE = "0.5"
PG_SLOW = "SELECT 1 FROM pg_sleep(20)"
SEARCH = {"name": "search_catalog", "arguments": {"query": "heat pump"}}


@pytest.fixture
def site(upstream, make_app):
    """A synced app with a tiny deadline on a real port: (base URL, app, company key)."""
    app = make_app(REQUEST_DEADLINE_SECONDS=DEADLINE)
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    with serving(app) as base:
        yield base, app, key


class SlowSearch:
    """Makes the next catalog search of a request read slowly first; remembers whether that read ever finished."""

    def __init__(self, monkeypatch, how: str) -> None:
        self.how, self.armed, self.finished = how, False, []
        for module in (agent_tools.company, mirror.answers.company, mcp_server.ucp.catalog):
            monkeypatch.setattr(module, "search_catalog", self._wrap(module.search_catalog))

    def _wrap(self, search):
        def slow_then_search(session, *args, **kwargs):
            if self.armed:
                self.armed = False
                self.read(session)
            return search(session, *args, **kwargs)

        return slow_then_search

    def read(self, session) -> None:
        if self.how == "autocommit":  # the raw-driver reader (mirror.store.db.AutocommitReader)
            assert autocommit_rows(session, PG_SLOW, {}) is not None
        elif self.how == "python":  # work that no statement does: the next read must not start
            time.sleep(float(DEADLINE) * 1.5)
            return
        else:  # a statement in the session's transaction
            session.execute(text(PG_SLOW)).all()
        self.finished.append(True)


def _mcp(base: str, key: str, body) -> requests.Response:
    return requests.post(f"{base}/companies/{key}/mcp", json=body, headers=HEADERS, timeout=60)


def _call(id_: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": SEARCH}


@pytest.mark.parametrize("how", ["transaction", "autocommit"])
def test_a_statement_past_the_deadline_is_cancelled_and_answered_503(site, lines, monkeypatch, how):
    base, app, key = site
    slow = SlowSearch(monkeypatch, how)
    slow.armed = True

    stopped = _mcp(base, key, _call(7))

    assert slow.finished == []  # the database cancelled the statement: it never returned
    assert stopped.status_code == 503
    assert stopped.headers["Retry-After"] == "1"  # the deadline in whole seconds, at least one
    assert stopped.headers["Cache-Control"] == "no-store"
    error = stopped.json()
    assert error["id"] == 7 and error["error"]["code"] == DEADLINE_EXCEEDED
    assert error["error"]["data"] == {"retry_after": 1}
    assert "deadline" in error["error"]["message"]

    # The worker is free and its connection sound: the same question answers at once.
    again = _mcp(base, key, _call(8))
    assert again.status_code == 200 and "result" in again.json()
    outcomes = [(e["status"], e["outcome"]) for e in lines.entries if e["endpoint"] == "/companies/<key>/mcp"]
    assert outcomes == [(503, "deadline_passed"), (200, "ok")]
    app.extensions["invocation_recorder"].flush()
    with app.extensions["mirror"].Session() as session:
        rows = session.execute(select(Invocation.status, Invocation.outcome).order_by(Invocation.id)).all()
    assert [tuple(row) for row in rows] == outcomes
    _documented_answer(requests.get(f"{base}/openapi.json", timeout=10).json(), "/companies/{key}/mcp", stopped)


def test_work_past_the_deadline_starts_no_further_statement(site, lines, monkeypatch):
    base, _app, key = site
    slow = SlowSearch(monkeypatch, "python")
    slow.armed = True
    stopped = _mcp(base, key, _call())
    assert stopped.status_code == 503 and stopped.json()["error"]["code"] == DEADLINE_EXCEEDED
    assert _mcp(base, key, _call()).status_code == 200


def test_a_batch_past_its_deadline_answers_503_with_each_remaining_message_stopped(site, monkeypatch):
    base, _app, key = site
    slow = SlowSearch(monkeypatch, "python")
    slow.armed = True
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        _call(2),
        _call(3),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    answer = _mcp(base, key, batch)
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
    first, second, third = answer.json()  # the notification gets no entry
    assert first["id"] == 1 and "tools" in first["result"]  # answered before the deadline: kept
    assert [second["id"], second["error"]["code"]] == [2, DEADLINE_EXCEEDED]
    assert [third["id"], third["error"]["code"]] == [3, DEADLINE_EXCEEDED]


def test_a2a_and_ask_answer_the_deadline_in_their_own_shapes(site, lines, monkeypatch):
    base, _app, key = site
    slow = SlowSearch(monkeypatch, "python")

    slow.armed = True
    message = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "heat pump prices"}]}}
    a2a = requests.post(
        f"{base}/companies/{key}/a2a",
        json={"jsonrpc": "2.0", "id": "a", "method": "SendMessage", "params": message},
        headers=A2A_HEADERS,
        timeout=60,
    )
    assert a2a.status_code == 503 and a2a.headers["Retry-After"] == "1"
    assert a2a.json()["id"] == "a" and a2a.json()["error"]["code"] == DEADLINE_EXCEEDED

    slow.armed = True
    ask = requests.post(f"{base}/companies/{key}/ask", json={"query": {"text": "heat pump prices"}}, timeout=60)
    assert ask.status_code == 503 and ask.headers["Retry-After"] == "1"
    assert ask.json()["error"]["code"] == "DEADLINE_EXCEEDED"
    assert ask.json()["_meta"]["response_type"] == "Failure"

    assert requests.post(f"{base}/companies/{key}/ask", json={"query": {"text": "heat pump"}}, timeout=60).ok
    got = [(e["protocol"], e["status"], e["outcome"]) for e in lines.entries]
    assert got == [("a2a", 503, "deadline_passed"), ("nlweb", 503, "deadline_passed"), ("nlweb", 200, "ok")]

    document = requests.get(f"{base}/openapi.json", timeout=10).json()  # each 503 is the one documented
    _documented_answer(document, "/companies/{key}/a2a", a2a)
    _documented_answer(document, "/companies/{key}/ask", ask)


def _documented_answer(document: dict, path: str, response: requests.Response) -> None:
    """`response` is what /openapi.json says `path`'s POST answers with its status: the body's schema, the headers."""
    documented = document["paths"][path]["post"]["responses"][str(response.status_code)]
    schema = {**documented["content"]["application/json"]["schema"], "components": document["components"]}
    jsonschema.Draft202012Validator(schema).validate(response.json())
    assert set(documented.get("headers", {})) <= set(response.headers)


# --- what a slow request costs (web/limits.py) ---------------------------------------------------

SLOW_CLIENT, OTHER_CLIENT = "198.51.100.7", "198.51.100.8"


def _client(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_requests_stopped_at_the_deadline_spend_the_clients_company_budget_not_others(
    upstream, make_app, limit_storage, monkeypatch
):
    # 100 a client at the company: a request stopped at its deadline costs 1 + 4 shares x 10 units = 41.
    app = make_app(REQUEST_DEADLINE_SECONDS=DEADLINE, RATE_LIMIT_PER_COMPANY="100/hour", **limit_storage)
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    slow = SlowSearch(monkeypatch, "python")
    attacker, other = _client(app, SLOW_CLIENT), _client(app, OTHER_CLIENT)

    statuses = []
    for _ in range(5):
        slow.armed = True
        statuses.append(attacker.post(f"/companies/{key}/mcp", json=_call(), headers=HEADERS).status_code)
    assert statuses == [503, 503, 503, 429, 429]  # refused after 3 requests, not after 100
    refused = attacker.post(f"/companies/{key}/mcp", json=_call(), headers=HEADERS)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0

    slow.armed = False  # the refused requests never reached the search
    assert all(other.post(f"/companies/{key}/mcp", json=_call(), headers=HEADERS).status_code == 200 for _ in range(10))


def test_slow_directory_questions_spend_the_clients_own_budget(upstream, make_app, monkeypatch):
    import nlweb_server.routes
    from mirror.runtime.deadline import check_deadline

    app = make_app(REQUEST_DEADLINE_SECONDS=DEADLINE, RATE_LIMIT_PER_CLIENT="60/minute")
    add_company(upstream)
    sync(app.extensions["mirror"])
    answer = nlweb_server.routes.answer_directory
    slow = {"armed": False}

    def slow_answer(*args, **kwargs):  # a directory question that loops past the deadline
        while slow["armed"]:
            check_deadline()
        return answer(*args, **kwargs)

    monkeypatch.setattr(nlweb_server.routes, "answer_directory", slow_answer)
    attacker, other = _client(app, SLOW_CLIENT), _client(app, OTHER_CLIENT)
    slow["armed"] = True
    question = {"query": {"text": "heat pump near 63376"}}
    assert [attacker.post("/ask", json=question).status_code for _ in range(3)] == [503, 503, 429]
    slow["armed"] = False
    assert attacker.post("/ask", json=question).status_code == 429
    assert all(other.post("/ask", json=question).status_code == 200 for _ in range(5))
