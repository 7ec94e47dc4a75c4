"""The one background writer (web/recording.py): source hits and invocations go through one queue and one thread.

Checked: a `?source=` request is written by a single writer (both rows), one
table's failure costs only its own rows, and disposing the mirror flushes
the queue, ends the thread and leaves no database connection behind (and a
retiring gunicorn worker does so too).
"""

from __future__ import annotations

import threading
import time

import pytest
import requests
from sqlalchemy import create_engine, func, select, text

from mirror.store.models import Invocation, SourceHit
from tests.ops_helpers import process_env, running_gunicorn
from tests.surface_helpers import add_company, sync


def _writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "record-writer"]


def _rows(database_url: str) -> tuple[list[tuple], list[tuple]]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            hits = connection.execute(select(SourceHit.label, SourceHit.endpoint, SourceHit.status)).all()
            calls = connection.execute(select(Invocation.source, Invocation.endpoint, Invocation.status)).all()
    finally:
        engine.dispose()
    return [tuple(r) for r in hits], [tuple(r) for r in calls]


def test_a_source_request_is_recorded_by_one_writer(make_app, upstream):
    app = make_app()
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    assert app.extensions["source_recorder"] is app.extensions["invocation_recorder"]
    assert _writer_threads() == []
    response = app.test_client().get(f"/companies/{key}/pricing.json?source=newsletter")
    assert response.status_code == 200
    assert len(_writer_threads()) == 1  # one thread takes both rows
    writer = app.extensions["source_recorder"]
    writer.flush()
    assert writer.dropped == 0
    database_url = app.extensions["mirror"].settings.database_url
    assert _rows(database_url) == (
        [("newsletter", f"/companies/{key}/pricing.json", 200)],
        [("newsletter", "/companies/<key>/pricing.json", 200)],
    )


def test_one_tables_failure_costs_only_its_own_rows(make_app, upstream):
    app = make_app()
    mirror = app.extensions["mirror"]
    writer = app.extensions["source_recorder"]
    with mirror.writer_engine.begin() as connection:
        connection.execute(text("ALTER TABLE source_hits RENAME TO source_hits_away"))
    try:
        assert app.test_client().get("/v1/businesses?source=lost").status_code == 200
        writer.flush()
        assert writer.dropped == 1  # the source hit
        with mirror.Session() as session:
            assert session.scalars(select(Invocation.source)).all() == ["lost"]  # the invocation still written
    finally:
        with mirror.writer_engine.begin() as connection:
            connection.execute(text("ALTER TABLE source_hits_away RENAME TO source_hits"))


def _connections(database_url: str) -> int:
    """Other sessions connected to this Postgres database."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return connection.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            )
    finally:
        engine.dispose()


def test_disposing_the_mirror_flushes_and_stops_the_writer(make_app, upstream, database_url):
    before = _connections(database_url)
    app = make_app()
    client = app.test_client()
    for number in range(5):
        assert client.get(f"/v1/businesses?source=bye-{number}").status_code == 200
    app.extensions["mirror"].dispose()  # no flush first: dispose must write what is queued
    assert _writer_threads() == []
    hits, calls = _rows(database_url)
    assert sorted(h[0] for h in hits) == [f"bye-{n}" for n in range(5)]
    assert sorted(c[0] for c in calls) == [f"bye-{n}" for n in range(5)]
    assert _connections(database_url) == before  # the app, writer included, holds none
    # A disposed app still records: the next row starts a writer again.
    assert client.get("/v1/businesses?source=again").status_code == 200
    app.extensions["source_recorder"].flush()
    with app.extensions["mirror"].Session() as session:
        assert session.scalar(select(func.count()).select_from(SourceHit).where(SourceHit.label == "again")) == 1


@pytest.mark.slow
def test_a_retiring_gunicorn_worker_writes_what_it_holds(database_url, upstream):
    env = process_env(database_url, upstream)
    # One worker that retires after its third request: the rows of all three must outlive it.
    with running_gunicorn(env, 1, "--max-requests", "3") as base:
        for number in range(3):
            assert requests.get(f"{base}/v1/businesses?source=retire-{number}", timeout=30).status_code == 200
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the next worker answers once the first has gone
            try:
                if requests.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.2)
    hits, calls = _rows(database_url)
    assert sorted(h[0] for h in hits) == ["retire-0", "retire-1", "retire-2"]
    assert sorted(c[0] for c in calls if c[0]) == ["retire-0", "retire-1", "retire-2"]
