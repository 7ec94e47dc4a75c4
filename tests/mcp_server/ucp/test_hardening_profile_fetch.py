"""Agent-profile fetches cannot starve the service (issue 12, finding 1).

A UCP call whose `meta.ucp-agent.profile` names a host that accepts and never
answers used to hold a request thread for the whole 3 s deadline; a dozen
such calls with distinct URLs (a new query string each, spread over hosts)
held every thread and `/healthz` took seconds. Now at most
UCP_PROFILE_FETCH_CONCURRENCY fetches run at once per process, a call past
that is refused at once with UCP's profile_unreachable (never queued), a
host's failure is remembered for every URL on it, and each client has a
budget of fetches (cache misses) per minute.

The service runs under gunicorn (one worker, four threads) on loopback; the
hostile hosts are loopback listeners that accept and never answer; profiles
are fetched only from them (UCP_ALLOW_INSECURE_PROFILES with each listed in
UCP_INSECURE_PROFILE_HOSTS, which allows http:// to those loopback ports and
nothing else).
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack

import requests

from mcp_server.ucp.agent_profile import (
    AgentProfiles,
    ProfileError,
    fetch_profile,
)
from tests.hardening_helpers import hanging_host, serving
from tests.ops_helpers import free_port, process_env, running_gunicorn
from tests.surface_helpers import add_company, sync
from tests.ucp_helpers import AGENT_PROFILE, UCP_HEADERS, insecure_policy, insecure_profiles, profile_server

CONCURRENCY = 2
CALLS = 12


def _search(base: str, key: str, profile: str, client: str | None = None) -> tuple[dict, float]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "search_catalog",
            "arguments": {"meta": {"ucp-agent": {"profile": profile}}, "catalog": {"query": "filter"}},
        },
    }
    headers = {**UCP_HEADERS, **({"X-Forwarded-For": client} if client else {})}
    started = time.monotonic()
    response = requests.post(f"{base}/companies/{key}/ucp/mcp", json=body, headers=headers, timeout=30)
    return response.json(), time.monotonic() - started


def _timed_get(url: str) -> float:
    started = time.monotonic()
    assert requests.get(url, timeout=30).status_code == 200
    return time.monotonic() - started


def test_hanging_profiles_cannot_starve_healthz_or_pricing(database_url, upstream, mirror):
    keys = [add_company(upstream) for _ in range(3)]  # spread over companies, as the attack did
    sync(mirror)
    with ExitStack() as stack:
        hosts = [stack.enter_context(hanging_host()) for _ in range(3)]
        settings = {
            **insecure_profiles(*(host.host for host in hosts)),
            "UCP_PROFILE_FETCH_CONCURRENCY": str(CONCURRENCY),
        }
        base = stack.enter_context(
            running_gunicorn(process_env(database_url, upstream, **settings), 1, "--threads", "4")
        )
        baseline = max(_timed_get(f"{base}/healthz") for _ in range(3))
        answers: list[tuple[dict, float]] = []

        def call(n: int) -> None:
            host = hosts[n % len(hosts)]
            answers.append(_search(base, keys[n % len(keys)], f"http://127.0.0.1:{host.port}/agent.json?n={n}"))

        threads = [threading.Thread(target=call, args=(n,)) for n in range(CALLS)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # the fetches that got a slot are now hanging
        health = [_timed_get(f"{base}/healthz") for _ in range(3)]
        pricing = [_timed_get(f"{base}/companies/{keys[0]}/pricing.json") for _ in range(3)]
        for thread in threads:
            thread.join(30)
        held = sum(host.connections for host in hosts)
        # A new query string on a host that just hung is answered from memory, without a connection.
        hung = next(host for host in hosts if host.connections)
        again, again_seconds = _search(base, keys[0], f"http://127.0.0.1:{hung.port}/agent.json?n=fresh")
        held_after = sum(host.connections for host in hosts)
    assert max(health) < max(1.0, 5 * baseline), (health, baseline)
    assert max(pricing) < 1.5, pricing
    assert len(answers) == CALLS
    errors = [answer["error"] for answer, _ in answers]
    assert all(e["code"] == -32001 and e["data"]["code"] == "profile_unreachable" for e in errors), errors
    refused_at_once = [seconds for answer, seconds in answers if "not queued" in answer["error"]["data"]["content"]]
    assert len(refused_at_once) >= CALLS - CONCURRENCY and max(refused_at_once) < 1.5, refused_at_once
    assert held <= CONCURRENCY  # never more fetches in flight than the bound
    assert again["error"]["data"]["code"] == "profile_unreachable" and again_seconds < 1.0
    assert held_after == held


def test_a_host_failure_is_remembered_for_every_url_on_it():
    port = free_port()  # nobody listens: connection refused
    attempts = []

    def counting(url, policy):
        attempts.append(url)
        return fetch_profile(url, policy)

    cache = AgentProfiles(insecure_policy(f"127.0.0.1:{port}"), fetch=counting)
    for n in range(5):
        try:
            cache.get(f"http://127.0.0.1:{port}/agent-{n}.json?cache-buster={n}")
        except ProfileError as error:
            assert error.code == "profile_unreachable"
        else:
            raise AssertionError("a refused connection fetched a profile")
    assert len(attempts) == 1


def test_a_failed_path_does_not_block_the_hosts_other_paths():
    with profile_server() as profiles:
        cache = AgentProfiles(insecure_policy(profiles.host))
        try:
            cache.get(profiles.url + "/missing.json")  # a 404: the URL's failure, not the host's
        except ProfileError as error:
            assert error.code == "profile_unreachable"
        assert cache.get(profiles.url + "/agent.json") == AGENT_PROFILE


def test_each_client_has_a_budget_of_profile_fetches(make_app, upstream):
    with ExitStack() as stack:
        profiles = stack.enter_context(profile_server())
        app = make_app(
            **insecure_profiles(profiles.host), UCP_PROFILE_FETCHES_PER_CLIENT="2/minute", TRUSTED_PROXY_HOPS="1"
        )
        key = add_company(upstream)
        sync(app.extensions["mirror"])
        base = stack.enter_context(serving(app))
        urls = [profiles.json(f"/agent-{n}.json", AGENT_PROFILE) for n in range(4)]
        first = [_search(base, key, url, "198.51.100.30")[0] for url in urls[:3]]
        cached = _search(base, key, urls[0], "198.51.100.30")[0]  # no fetch needed: not counted, not refused
        other = _search(base, key, urls[3], "198.51.100.31")[0]
        fetched = [profiles.count(f"/agent-{n}.json") for n in range(4)]
    assert "result" in first[0] and "result" in first[1]
    refusal = first[2]["error"]
    assert refusal["code"] == -32001 and refusal["data"]["code"] == "profile_unreachable"
    assert (
        "too many agent-profile fetches" in refusal["data"]["content"] and "retry after" in refusal["data"]["content"]
    )
    assert "result" in cached and "result" in other
    assert fetched == [1, 1, 0, 1]  # the refused call never reached the profile host
