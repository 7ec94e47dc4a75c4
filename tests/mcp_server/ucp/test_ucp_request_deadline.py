"""A UCP batch spends one agent-profile deadline, not one per call (issue 22, finding 3).

A JSON array of 16 `tools/call`s on /companies/{key}/ucp/mcp whose agent
profiles point at servers that accept and never answer ran one request for
48 s (16 deadlines of 3 s in a row; nginx gave up after 30 s while the
invocation log recorded a 200). Now one HTTP request spends at most one
deadline in total: the first fetch starts it, later fetches get what
remains, and what cannot finish in it answers `profile_unreachable` at once.
A host's failure is remembered for every port and subdomain of its
registrable domain, and a call refused because every fetch slot is busy no
longer spends the client's fetch budget.

Over real HTTP: gunicorn (one worker, four threads) in front of Postgres;
the hostile profile hosts are loopback listeners (each on its own
127.0.0.x address, so each is a different host) that accept and never answer.
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack

import pytest
import requests
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from mcp_server.ucp.agent_profile import (
    TIMEOUT_SECONDS,
    UNFETCHABLE_CONTENT,
    AgentProfiles,
    FetchPolicy,
    ProfileError,
    host_key,
)
from mirror.runtime.config import normalise_database_url
from mirror.store.models import Invocation
from tests.hardening_helpers import hanging_host, serving
from tests.ops_helpers import process_env, running_gunicorn
from tests.surface_helpers import add_company, sync
from tests.ucp_helpers import AGENT_PROFILE, UCP_HEADERS, insecure_policy, insecure_profiles, profile_server

BATCH = 16


def _call(n: int, profile: str) -> dict:
    arguments = {"meta": {"ucp-agent": {"profile": profile}}, "catalog": {"query": "filter"}}
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "search_catalog", "arguments": arguments},
    }


def _post(base: str, key: str, body, client: str | None = None) -> tuple[requests.Response, float]:
    headers = {**UCP_HEADERS, **({"X-Forwarded-For": client} if client else {})}
    started = time.monotonic()
    response = requests.post(f"{base}/companies/{key}/ucp/mcp", json=body, headers=headers, timeout=20)
    return response, time.monotonic() - started


def _logged(database_url: str, endpoint: str, timeout: float = 10.0) -> list[Invocation]:
    """The invocation rows of `endpoint`, once the server's writer has written them (it lingers a second)."""
    engine = create_engine(normalise_database_url(database_url))
    try:
        deadline = time.monotonic() + timeout
        while True:
            with Session(engine) as session:
                rows = list(session.scalars(select(Invocation).where(Invocation.endpoint == endpoint)))
            if rows or time.monotonic() > deadline:
                return rows
            time.sleep(0.2)
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_batch_on_hanging_profile_hosts_spends_one_deadline_in_total(database_url, upstream, mirror):
    key = add_company(upstream)
    sync(mirror)
    with ExitStack() as stack:
        hosts = [stack.enter_context(hanging_host(f"127.0.0.{n}")) for n in range(2, 2 + BATCH)]
        env = process_env(database_url, upstream, **insecure_profiles(*(host.host for host in hosts)))
        base = stack.enter_context(running_gunicorn(env, 1, "--threads", "4"))
        batch = [_call(n, f"http://{host.address}:{host.port}/agent.json") for n, host in enumerate(hosts)]
        response, seconds = _post(base, key, batch)
        connections = sum(host.connections for host in hosts)
        rows = _logged(database_url, "/companies/<key>/ucp/mcp")
    assert response.status_code == 200
    answers = response.json()
    assert [answer["id"] for answer in answers] == list(range(BATCH))
    errors = [answer["error"] for answer in answers]
    assert all(e["code"] == -32001 and e["data"]["code"] == "profile_unreachable" for e in errors), errors
    assert errors[0]["data"]["content"] == UNFETCHABLE_CONTENT  # the first call spent the deadline
    assert all("spent its agent-profile deadline" in e["data"]["content"] for e in errors[1:]), errors
    assert seconds < TIMEOUT_SECONDS + 1.5, seconds  # one deadline, not sixteen
    assert connections == 1  # the calls past the deadline never reached their hosts
    (row,) = rows  # what the client got: one request, a 200 whose every answer was an error, in one deadline
    assert row.status == 200 and row.outcome == "rpc_error" and row.duration_ms < (TIMEOUT_SECONDS + 1.5) * 1000


def test_a_host_failure_is_remembered_for_its_other_ports():
    with hanging_host() as first, hanging_host() as second:
        cache = AgentProfiles(insecure_policy(first.host, second.host, timeout=0.5))
        outcomes = []
        for host in (first, second):
            started = time.monotonic()
            with pytest.raises(ProfileError) as raised:
                cache.get(f"http://127.0.0.1:{host.port}/agent.json")
            outcomes.append((raised.value.code, time.monotonic() - started))
        connections = (first.connections, second.connections)
    assert [code for code, _ in outcomes] == ["profile_unreachable"] * 2
    assert connections == (1, 0) and outcomes[1][1] < 0.1  # the second port was answered from memory


def test_a_host_failure_is_remembered_for_every_subdomain_of_its_registrable_domain():
    fetched: list[str] = []

    def hanging(url, policy):
        fetched.append(url)
        raise ProfileError("profile_unreachable", "took too long", host_wide=True)

    cache = AgentProfiles(FetchPolicy(), fetch=hanging)
    urls = [
        "https://a.hang.example/agent.json",
        "https://b.c.hang.example:8443/agent.json?n=1",  # another subdomain and port: from memory
        "https://HANG.example./other.json",  # the domain itself, spelled otherwise: from memory
        "https://agent.example.co.uk/agent.json",
        "https://x.agent.example.co.uk/agent.json",  # from memory: the same registrable domain
        "https://other.co.uk/agent.json",  # co.uk is a public suffix: a different domain
        "https://me.github.io/agent.json",
        "https://you.github.io/agent.json",  # github.io is a suffix others register under: different
    ]
    for url in urls:
        with pytest.raises(ProfileError):
            cache.get(url)
    assert fetched == [urls[0], urls[3], urls[5], urls[6], urls[7]]


@pytest.mark.parametrize(
    "url, key",
    [
        ("https://a.b.agent.example/x", "agent.example"),
        ("https://agent.example:8443/x", "agent.example"),
        ("https://me.github.io/x", "me.github.io"),
        ("https://co.uk/x", "co.uk"),
        ("http://localhost:8001/x", "localhost"),
        ("http://127.0.0.1:1/x", "127.0.0.1"),
        ("https://[2001:db8:1:2::5]:444/x", "2001:db8:1:2::/64"),
        ("https://[::ffff:203.0.113.9]/x", "203.0.113.9"),
        ("https://[::1/x", None),
        ("https:///x", None),
    ],
)
def test_host_key_is_the_registrable_domain_or_the_address(url, key):
    assert host_key(url) == key


def test_a_call_refused_as_busy_spends_none_of_the_clients_fetch_budget(make_app, upstream):
    # One fetch slot, held by a hanging profile; a budget of two fetches per minute per client.
    # The hanging host has an address of its own: its failure is remembered for every port of it.
    with ExitStack() as stack:
        hung, profiles = stack.enter_context(hanging_host("127.0.0.2")), stack.enter_context(profile_server())
        app = make_app(
            **insecure_profiles(hung.host, profiles.host),
            UCP_PROFILE_FETCH_CONCURRENCY="1",
            UCP_PROFILE_FETCHES_PER_CLIENT="2/minute",
            TRUSTED_PROXY_HOPS="1",
        )
        key = add_company(upstream)
        sync(app.extensions["mirror"])
        base = stack.enter_context(serving(app))
        held = threading.Thread(
            target=_post, args=(base, key, _call(0, f"http://127.0.0.2:{hung.port}/agent.json"), "198.51.100.50")
        )
        held.start()
        deadline = time.monotonic() + 5
        while not hung.connections and time.monotonic() < deadline:
            time.sleep(0.02)
        urls = [profiles.json(f"/agent-{n}.json", AGENT_PROFILE) for n in range(3)]
        busy = [_post(base, key, _call(1, urls[0]), "198.51.100.51")[0].json() for _ in range(3)]
        busy_batch = _post(base, key, [_call(n, urls[0]) for n in range(4)], "198.51.100.51")[0].json()
        held.join(10)
        after = [_post(base, key, _call(2, url), "198.51.100.51")[0].json() for url in urls]
    for answer in [*busy, *busy_batch]:
        assert "not queued" in answer["error"]["data"]["content"], answer
    assert "result" in after[0] and "result" in after[1]  # the busy refusals spent nothing of the budget (2)
    assert "too many agent-profile fetches" in after[2]["error"]["data"]["content"]  # which still holds
    assert [profiles.count(f"/agent-{n}.json") for n in range(3)] == [1, 1, 0]
