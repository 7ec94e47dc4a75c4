"""Gate freshness is bounded, not instant (docs/contracts/surfaces.md, "Gate freshness"; mirror/read/gate.py).

Each process answers from its gate state, which follows the database within
a second. Proven with real processes on a real Postgres: three gunicorn
servers, each one process, read the primary while a sync in the test process
switches a channel off or changes a price; every one of them answers the
404 (or the new body) within one second of the sync's commit, never goes
back, and never serves a body of a state in between. The streaming-replica
case is in tests/mirror/store/test_read_replica.py. The watcher's own rules (a request
polls when its state is older than a second; a failing poll fails the
request, never serves an unconfirmed state) are checked with a clock of
the test's.
"""

from __future__ import annotations

import threading
import time
from contextlib import ExitStack

import pytest
import requests

from mirror.read.gate import GateWatcher
from tests.mirror_helpers import fresh_mirror
from tests.ops_helpers import process_env, running_gunicorn
from tests.surface_helpers import ALL_CHANNELS, HEAT_PUMP, add_company, set_product, set_settings, sync

BOUND_SECONDS = 1.0
PROCESSES = 3


def _poll_until(urls: list[str], done, budget: float) -> dict[str, list[tuple[float, requests.Response]]]:
    """GET each URL every 20 ms from its own thread until `done(response)` or the budget ends; the answers, timed."""
    seen: dict[str, list[tuple[float, requests.Response]]] = {url: [] for url in urls}
    start = time.monotonic()

    def poll(url: str) -> None:
        session = requests.Session()
        while time.monotonic() - start < budget:
            response = session.get(url, timeout=5)
            seen[url].append((time.monotonic() - start, response))
            if done(response):
                # A few more: once moved on, a process never goes back.
                for _ in range(5):
                    time.sleep(0.02)
                    seen[url].append((time.monotonic() - start, session.get(url, timeout=5)))
                return
            time.sleep(0.02)

    threads = [threading.Thread(target=poll, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen


@pytest.fixture
def servers(database_url, upstream):
    """Three single-process gunicorn servers of one Postgres mirror."""
    with ExitStack() as stack:
        env = process_env(database_url, upstream, RATE_LIMIT_STORAGE_URI="memory://")
        yield [stack.enter_context(running_gunicorn(env, 1)) for _ in range(PROCESSES)]


@pytest.mark.slow
def test_a_switch_turned_off_is_a_404_on_every_process_within_a_second(database_url, mirror, upstream, servers):
    key = add_company(upstream)
    sync(mirror)
    urls = [f"{base}/companies/{key}/pricing.json" for base in servers]
    opened = _poll_until(urls, lambda r: r.status_code == 200, 10)
    assert all(answers[-1][1].status_code == 200 for answers in opened.values()), "every process serves it"
    for url in urls:  # and holds it in its render cache
        assert requests.get(url, timeout=5).status_code == 200

    set_settings(upstream, key, channels={**ALL_CHANNELS, "pricing": False})
    sync(mirror)  # committed in this process: the servers only learn of it from the database
    seen = _poll_until(urls, lambda r: r.status_code == 404, 5)
    unknown = requests.get(f"{servers[0]}/companies/{'x' * 40}/pricing.json", timeout=5)
    for url, answers in seen.items():
        statuses = [r.status_code for _, r in answers]
        first_404 = statuses.index(404)
        assert answers[first_404][0] <= BOUND_SECONDS, (url, answers[first_404][0])
        assert set(statuses[:first_404]) <= {200} and set(statuses[first_404:]) == {404}, (url, statuses)
        assert answers[-1][1].content == unknown.content  # the unknown key's 404, exactly


@pytest.mark.slow
def test_every_process_moves_to_a_new_price_within_a_second_and_never_mixes_states(
    database_url, mirror, upstream, servers
):
    key = add_company(upstream)
    sync(mirror)
    urls = [f"{base}/companies/{key}/pricing.json" for base in servers]
    before = _poll_until(urls, lambda r: r.status_code == 200, 10)
    # Each server's own body (their URLs name their own PUBLIC_BASE_URL).
    old = {url: answers[-1][1].content for url, answers in before.items()}

    set_product(upstream, key, "HP-GOOD", name="Heat pump, good", category=HEAT_PUMP, tier="good", price="7999.00")
    sync(mirror)
    seen = _poll_until(urls, lambda r: r.status_code == 200 and r.content not in old.values(), 5)
    for url, answers in seen.items():
        bodies = [r.content for _, r in answers]
        new_body = bodies[-1]
        assert new_body != old[url] and b'"price_low":7999' in new_body, url
        moved = next(i for i, body in enumerate(bodies) if body != old[url])
        assert answers[moved][0] <= BOUND_SECONDS, (url, answers[moved][0])
        # One state or the next, whole: never a body between them, never back.
        assert set(bodies[:moved]) <= {old[url]} and set(bodies[moved:]) == {new_body}, url
        assert {r.headers["ETag"] for _, r in answers[moved:]} == {answers[-1][1].headers["ETag"]}


# --- the watcher's own rules, with the test's clock ---------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_state_older_than_a_second_is_confirmed_by_the_request_itself(mirror, upstream):
    add_company(upstream)
    sync(mirror)
    clock = _Clock()
    watcher = GateWatcher(mirror.engine, poll_seconds=3600, clock=clock)  # its thread never polls in this test
    first = watcher.current()
    assert first.entries and watcher.reloads == 1
    clock.now += 0.9  # confirmed 0.9 s ago: answered from memory
    assert watcher.current() is first and watcher.reloads == 1
    add_company(upstream, name="Another Company")
    sync(mirror)
    assert watcher.current() is first  # still within its second
    clock.now += 0.2  # 1.1 s: the request polls before it answers, and sees the new version
    second = watcher.current()
    assert second is not first and second.version > first.version and len(second.entries) == len(first.entries) + 1
    watcher.stop()


def test_a_poll_that_fails_fails_the_request_and_never_serves_an_unconfirmed_state(mirror, upstream, monkeypatch):
    from mirror.read import gate

    add_company(upstream)
    sync(mirror)
    clock = _Clock()
    watcher = GateWatcher(mirror.engine, poll_seconds=3600, clock=clock)
    watcher.current()

    def database_down(_engine):
        raise ConnectionError("the database is down")

    monkeypatch.setattr(gate, "read_version", database_down)
    clock.now += 0.5
    watcher.current()  # within its second: still answers
    clock.now += 0.6
    with pytest.raises(ConnectionError):
        watcher.current()
    watcher.stop()


def test_a_poll_that_began_before_this_processs_sync_confirms_nothing(mirror, upstream, monkeypatch):
    """The thread's poll reads the version, the sync commits and invalidates, then the poll finishes."""
    from mirror.read import gate

    add_company(upstream)
    sync(mirror)
    clock = _Clock()
    watcher = GateWatcher(mirror.engine, poll_seconds=3600, clock=clock)
    before = watcher.current()
    clock.now += 2  # the state is old: the next poll reads the version
    real_read_version = gate.read_version
    key = add_company(upstream, name="Reborn Heating")

    def version_then_commit(engine):
        version = real_read_version(engine)  # the version before the sync below
        sync(mirror)  # another thread commits meanwhile ...
        clock.now += 0.01
        watcher.invalidate()  # ... and invalidates, as Mirror.sync does
        return version

    monkeypatch.setattr(gate, "read_version", version_then_commit)
    assert watcher.refresh(after=clock()) is before  # the poll that began first saw the old version
    monkeypatch.setattr(gate, "read_version", real_read_version)
    assert key in watcher.current().entries  # the next request polls again: the sync is seen at once
    watcher.stop()


def test_the_polling_thread_follows_a_commit_from_another_process_within_the_bound(mirror, upstream, make_app):
    """The app's own watcher (real clock, real thread) picks up a sync made through another Mirror."""
    app = make_app()
    client = app.test_client()
    key = add_company(upstream)
    other = fresh_mirror(mirror.settings.database_url, upstream.url)
    sync(other)
    deadline = time.monotonic() + 3
    while client.get(f"/companies/{key}/pricing.json").status_code != 200:
        assert time.monotonic() < deadline, "the new company never appeared"
        time.sleep(0.02)
    set_settings(upstream, key, channels={**ALL_CHANNELS, "pricing": False})
    sync(other)
    committed = time.monotonic()
    while client.get(f"/companies/{key}/pricing.json").status_code != 404:
        time.sleep(0.02)
    assert time.monotonic() - committed <= BOUND_SECONDS
    other.dispose()
