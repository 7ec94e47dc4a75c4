"""Web requests read from a real Postgres streaming replica; everything that writes uses the primary.

A primary cluster is made with initdb and a hot standby of it with
`pg_basebackup -R` (tests.ops_helpers.streaming_replica), both on free
loopback ports. The app gets DATABASE_URL = the primary and
DATABASE_READ_URL = the replica. The replica's WAL replay is paused and
resumed to make its lag visible: what a request answers must follow the
replica (so that is where it reads), and once the replica has replayed a
sync, the answers (the render cache included) follow that sync at once.
"""

from __future__ import annotations

import re
import time

import pytest
from sqlalchemy import create_engine, func, select, text

from mirror.service.scheduler import scheduled_sync
from mirror.store.lock import sync_lock
from mirror.store.migrate import upgrade
from mirror.store.models import Company, Invocation
from tests.ops_helpers import streaming_replica
from tests.surface_helpers import ALL_CHANNELS, add_company, set_settings

pytestmark = pytest.mark.slow


@pytest.fixture
def replica():
    """A migrated primary and its streaming replica, caught up."""
    with streaming_replica() as pair:
        upgrade(pair.primary.url("mirror"))  # migrations: always the primary
        pair.wait_for_replay()
        yield pair


@pytest.fixture
def replica_app(replica, upstream):
    """The app with its reads on the replica and its writes on the primary."""
    from wsgi import create_app

    app = create_app(
        {
            "DATABASE_URL": replica.primary.url("mirror"),
            "DATABASE_READ_URL": replica.replica.url("mirror"),
            "UPSTREAM_URL": upstream.url,
            "UPSTREAM_TOKEN": "demo-token",
            "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
            "SCHEDULER_ENABLED": "false",
            "RATE_LIMIT_STORAGE_URI": "memory://",
        }
    )
    app.config["TESTING"] = True
    yield app
    app.extensions["mirror"].dispose()


def _within_a_second(send, status: int):
    """The first answer with `status`, asked every 20 ms; it must come within the gate's one-second bound."""
    start = time.monotonic()
    while True:
        response = send()
        if response.status_code == status:
            assert time.monotonic() - start <= 1.0
            return response
        assert time.monotonic() - start <= 1.0, (response.status_code, response.data[:200])
        time.sleep(0.02)


def _count(url: str, model) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(select(func.count()).select_from(model)).scalar_one()
    finally:
        engine.dispose()


def test_requests_follow_the_replica_and_a_replayed_switch_off_is_a_404(replica, replica_app, upstream):
    mirror, client = replica_app.extensions["mirror"], replica_app.test_client()
    key = add_company(upstream)
    pricing = f"/companies/{key}/pricing.json"

    # The sync writes to the primary while the replica holds its replay back.
    replica.pause_replay()
    result = mirror.sync()
    assert result.status == "success", result.error
    assert _count(replica.primary.url("mirror"), Company) > 0
    assert _count(replica.replica.url("mirror"), Company) == 0
    # Requests read the replica: it has not replayed the sync yet.
    assert client.get(pricing).status_code == 404
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["reasons"] == ["never_synced"]
    # The scheduler asks the primary, which has the run the replica lacks.
    assert scheduled_sync(mirror) == "skipped-recent"

    replica.resume_replay()
    replica.wait_for_replay()
    first = _within_a_second(lambda: client.get(pricing), 200)  # the process's gate state follows the replica
    assert first.get_json()["categories"]
    assert client.get("/readyz").status_code == 200

    # The switch goes off upstream and the next sync writes that to the primary; the replica lags behind.
    set_settings(upstream, key, channels={**ALL_CHANNELS, "pricing": False})
    replica.pause_replay()
    assert mirror.sync().status == "success"
    stale = client.get(pricing)
    assert stale.status_code == 200 and stale.data == first.data  # the replica's state, from the render cache
    replica.resume_replay()
    replica.wait_for_replay()
    # Replayed: within a second of the replay the process sees the switch off, whatever it had cached
    # (docs/contracts/surfaces.md, "Gate freshness": the bound, plus the replica's replay delay).
    closed = _within_a_second(lambda: client.get(pricing), 404)
    assert closed.data == client.get(f"/companies/{'x' * 40}/pricing.json").data  # the unknown key's 404


def test_usage_rows_and_the_sync_lock_check_use_the_primary(replica, replica_app, upstream):
    mirror, client = replica_app.extensions["mirror"], replica_app.test_client()
    key = add_company(upstream)
    assert mirror.sync().status == "success"
    replica.wait_for_replay()

    for _ in range(3):
        assert client.get(f"/companies/{key}/pricing.json").status_code == 200
    recorder = replica_app.extensions["invocation_recorder"]
    recorder.flush()
    # Written to the primary (a standby refuses every write), none lost.
    assert recorder.dropped == 0
    assert _count(replica.primary.url("mirror"), Invocation) == 3
    replica.wait_for_replay()
    assert _count(replica.replica.url("mirror"), Invocation) == 3  # and replicated like any other row

    # Advisory locks live on one server: "a sync is running" must be asked of the primary. A run
    # recorded as running (replicated) counts only while its lock is held, and that lock is on the primary.
    primary = create_engine(replica.primary.url("mirror"))
    with primary.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO sync_runs (mode, started_at, status, counts) "
                "VALUES ('incremental', now(), 'running', '{}')"
            )
        )
    primary.dispose()
    replica.wait_for_replay()
    with sync_lock(mirror.writer_engine):
        scrape = client.get("/metrics").get_data(as_text=True)
    assert re.search(r"^mirror_sync_runs_unfinished 1\.0$", scrape, re.M), scrape
    assert re.search(r"^mirror_sync_runs_unfinished 0\.0$", client.get("/metrics").get_data(as_text=True), re.M)


def test_the_replica_is_read_only_and_the_request_engine_is_on_it(replica, replica_app):
    mirror = replica_app.extensions["mirror"]
    assert mirror.engine.url.port == replica.replica.port
    assert mirror.primary_engine.url.port == mirror.writer_engine.url.port == replica.primary.port
    with mirror.Session() as session:
        assert session.execute(text("SELECT pg_is_in_recovery()")).scalar() is True
    with mirror.PrimarySession() as session:
        assert session.execute(text("SELECT pg_is_in_recovery()")).scalar() is False


def test_without_a_read_url_there_is_one_engine(make_app):
    mirror = make_app().extensions["mirror"]
    assert mirror.read_url == mirror.settings.database_url
    assert mirror.engine is mirror.primary_engine
    assert make_app(DATABASE_READ_URL="").extensions["mirror"].settings.database_read_url is None
