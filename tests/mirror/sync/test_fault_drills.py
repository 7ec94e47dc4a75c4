"""Fault drills, judged by the public output (pricing.json of every company and the whole feed).

tests/mirror/sync/test_sync.py already proves each upstream fault (500s, 429s, slow
answers, truncated JSON, resets, expired cursors) at the database level;
here the drills are the ones that need whole processes or the database
itself, and the verdict is what the public sees over HTTP:

- a bad upstream day (several kinds of fault over several runs): while runs
  fail the public output does not move; afterwards it equals a clean full
  sync's;
- the sync process SIGKILLed between pages: nothing partial visible, the
  lock free at once, the next run converges;
- the database connection dropped during a request (Postgres): that request
  answers a clean 503 JSON, the next one succeeds;
- two scheduler processes started at once: one sync runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from sqlalchemy import create_engine, func, select, text

from mirror.store.db import _ReaderConnection
from mirror.store.models import SyncRun
from tests import REPO_ROOT
from tests.ops_helpers import flask_command, process_env
from tests.surface_helpers import sync

VOLATILE = {"last_synced_at", "content_updated_at", "freshness_state"}


def public_output(client, keys) -> dict:
    """pricing.json of every company (its status when refused) and every feed record."""
    output = {}
    for key in keys:
        response = client.get(f"/companies/{key}/pricing.json")
        document = response.get_json() if response.status_code == 200 else response.status_code
        output[key] = (
            {k: v for k, v in document.items() if k not in VOLATILE} if isinstance(document, dict) else document
        )
    feed, page = [], 1
    while True:
        body = client.get(f"/v1/businesses?page={page}&page_size=500").get_json()
        feed.extend(body["businesses"])
        if page >= body["total_pages"]:
            break
        page += 1
    output["feed"] = feed
    return output


def clean_full_sync_output(make_app, upstream, database_url: str) -> dict:
    """What a fresh mirror on `database_url`, fully synced from the upstream as it is now, shows the public."""
    reference = make_app(DATABASE_URL=database_url)
    assert reference.extensions["mirror"].sync(full=True).status == "success"
    return public_output(reference.test_client(), upstream.catalog.company_keys())


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.time() + seconds
    while not condition():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_bad_upstream_day_never_shows_and_the_mirror_converges(
    app, mirror, client, upstream, other_database_url, make_app
):
    sync(mirror)
    keys = upstream.catalog.company_keys()
    before = public_output(client, keys)
    upstream.catalog.mutate(0.3, seed=21, company_fraction=0.4)
    upstream.catalog.add_company(products=6)
    for fault in (
        {"kind": "status", "status": 500, "times": None},
        {"kind": "truncated", "times": None},
        {"kind": "cursor_expired", "times": None},
    ):
        upstream.faults.add(path="/v1/", nth=2, **fault)
        failed = mirror.sync(client=mirror.upstream_client(max_retries=1, backoff_seconds=0, max_cursor_restarts=1))
        assert failed.status == "failed"
        upstream.faults.clear()
        assert public_output(client, keys) == before
    # The day ends with transient trouble only: a 429, a slow page, a cut body, an expired cursor.
    for kind, options in (
        ("rate_limit", {"retry_after": 0}),
        ("slow", {"seconds": 1}),
        ("truncated", {}),
        ("cursor_expired", {}),
    ):
        upstream.faults.add(kind, path="/v1/", nth=2, **options)
    assert mirror.sync(client=mirror.upstream_client(backoff_seconds=0, timeout=(2.0, 5.0))).status == "success"
    keys = upstream.catalog.company_keys()
    assert public_output(client, keys) == clean_full_sync_output(make_app, upstream, other_database_url)


def test_a_sync_killed_between_pages_leaves_nothing_and_the_next_run_converges(
    database_url, app, mirror, client, upstream, other_database_url, make_app
):
    sync(mirror)
    keys = upstream.catalog.company_keys()
    before = public_output(client, keys)
    upstream.catalog.mutate(0.3, seed=8, company_fraction=0.5)
    for _ in range(3):
        upstream.catalog.add_company(products=5)  # each new company's catalog is its own walk
    # The second catalog page stalls: the run has written the first one (uncommitted) when it dies.
    upstream.faults.add("slow", seconds=60, path="/v1/companies/", nth=2)
    process = subprocess.Popen(
        flask_command("sync"),
        cwd=REPO_ROOT,
        env=process_env(database_url, upstream),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: upstream.faults.fired, 60, "the sync to reach the stalled page")
        time.sleep(0.3)
        assert public_output(client, keys) == before  # mid-run: nothing visible yet
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    upstream.faults.clear()
    assert public_output(client, keys) == before  # killed: nothing partial, ever
    with mirror.Session() as session:
        assert session.scalars(select(SyncRun.status).order_by(SyncRun.id)).all() == ["success", "running"]
    result = mirror.sync()  # the lock is free at once (no SyncBusy)
    assert result.status == "success", result.error
    keys = upstream.catalog.company_keys()
    assert public_output(client, keys) == clean_full_sync_output(make_app, upstream, other_database_url)


@pytest.mark.slow
def test_two_schedulers_started_at_once_run_one_sync(database_url, mirror, upstream):
    upstream.faults.add("slow", seconds=2, path="/v1/companies", nth=1)  # the runs would overlap
    env = process_env(database_url, upstream, SYNC_INTERVAL_SECONDS="3600")
    schedulers = [
        subprocess.Popen(
            flask_command("scheduler"),
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for _ in range(2)
    ]
    try:

        def finished() -> int:
            with mirror.Session() as session:
                return session.scalar(select(func.count()).select_from(SyncRun).where(SyncRun.status == "success"))

        _wait_for(lambda: finished() >= 1, 60, "a scheduled sync")
        time.sleep(3)  # both first ticks (5 s after start) have long passed
        assert all(p.poll() is None for p in schedulers)  # the loser skipped; it did not crash
        with mirror.Session() as session:
            assert session.scalars(select(SyncRun.status)).all() == ["success"]
    finally:
        for scheduler in schedulers:
            os.killpg(scheduler.pid, signal.SIGTERM)
            scheduler.wait(20)


# --- the database connection drops ---------------------------------------------------------------


def _terminate(database_url: str, pid_filter: str) -> int:
    """Terminate the matching server backends and wait until they are gone; how many there were."""
    admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        pids = (
            connection.execute(
                text(
                    "SELECT pid FROM pg_stat_activity "
                    f"WHERE datname = current_database() AND pid <> pg_backend_pid() AND {pid_filter}"
                )
            )
            .scalars()
            .all()
        )
        for pid in pids:  # only this test database's backends, never another session's
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        gone = text("SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = ANY(:pids)")
        _wait_for(lambda: connection.execute(gone, {"pids": list(pids)}).scalar(), 10, "the backends to exit")
    admin.dispose()
    return len(pids)


def _a_public_key(client) -> str:
    return client.get("/v1/businesses?page_size=1").get_json()["businesses"][0]["id"]


def test_a_connection_dropped_between_requests_is_replaced_unseen(mirror, client):
    sync(mirror)
    assert client.get("/v1/businesses").status_code == 200
    assert _terminate(mirror.settings.database_url, "true") >= 1  # every pooled connection of the app
    assert client.get("/v1/businesses").status_code == 200  # the pool noticed at checkout and reconnected


def test_a_connection_dropped_during_a_request_is_a_clean_503_then_recovers(mirror, client):
    sync(mirror)
    key = _a_public_key(client)
    url = mirror.settings.database_url

    dropped_once = []
    original = _ReaderConnection.execute  # the request's one-statement read (mirror.store.db.AutocommitReader)

    def execute(reader, sql, values, **kwargs):  # the server drops us just as the request reads
        if not dropped_once:
            dropped_once.append(_terminate(url, f"pid = {reader.connection.info.backend_pid}"))
        return original(reader, sql, values, **kwargs)

    _ReaderConnection.execute = execute
    try:
        dropped = client.get(f"/companies/{key}/pricing.json")
    finally:
        _ReaderConnection.execute = original
    assert dropped_once == [1]
    assert dropped.status_code == 503
    assert dropped.get_json() == {
        "error": "database_unavailable",
        "message": "The database is unavailable; retry shortly.",
    }
    assert dropped.headers["Retry-After"] == "1"
    assert "Traceback" not in dropped.get_data(as_text=True)
    assert client.get(f"/companies/{key}/pricing.json").status_code == 200
