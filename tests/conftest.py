"""Shared fixtures: a migrated Postgres database per test, a real demo upstream over HTTP, and the app.

Postgres is the server at TEST_DATABASE_URL when it is set (CI's), else an
embedded one this test process starts (mirror/store/embedded.py; one per
pytest-xdist worker, its data in a temporary folder; stopped and removed at
the end). It is never optional: when neither can be had, the tests that need it
fail rather than skip.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

import mirror.store.models  # registers the tables TABLES lists
from mirror.runtime.config import normalise_database_url
from mirror.store.db import Base
from mirror.store.migrate import upgrade

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "").strip()
TABLES = tuple(table.name for table in Base.metadata.sorted_tables)  # every table a test may have written

# Hypothesis tests that name no example count of their own take it from a profile: `make test` runs
# "suite" (bounded and derandomised: a few seconds per endpoint, the same examples every run), and
# `make fuzz` selects "fuzz" (HYPOTHESIS_PROFILE=fuzz: many more, new ones each run).
hypothesis_settings.register_profile("suite", max_examples=40, derandomize=True, deadline=None, database=None)
hypothesis_settings.register_profile("fuzz", max_examples=2500, deadline=None, database=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@contextlib.contextmanager
def folder_outside_pytest_root(prefix: str):
    """A fresh folder right under the system's temporary folder (not pytest's), removed afterwards.

    For an embedded Postgres run as root: the server then runs as the wheel's own user, which must
    reach its data folder. The wheel opens the folders above it to that user, but each pytest session
    that starts closes pytest's root (/tmp/pytest-of-root) to its owner again, which fails a server
    starting at that moment (another session of the suite on the same machine).
    """
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# How much a test costs, roughly, in ordinary tests: what the marks in pytest.ini say about it.
SLOW_COST, BROWSER_COST = 20, 5


def _cost(item: pytest.Item) -> int:
    return SLOW_COST if item.get_closest_marker("slow") else BROWSER_COST if item.get_closest_marker("browser") else 1


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, each worker's share of the run starts with its share of the slow modules.

    `--dist worksteal` (pytest.ini) deals the collection out in equal consecutive parts, one per worker,
    and an idle worker then takes half of what another still has queued, from its end. With the slow
    tests (marked `slow` or `browser`) spread over the parts, heaviest module first, and each part's
    quick tests behind them, every worker starts on slow work and the run ends on quick tests that
    can still be shared: no worker waits alone for a long test it picked up last. Modules stay whole
    (their fixtures are set up once per worker, as before); only the order of the run changes.
    """
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    if workers < 2:
        return  # one process: the usual order
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    slow = [m for m in modules.values() if any(_cost(item) > 1 for item in m)]
    quick = [item for m in modules.values() if not any(_cost(i) > 1 for i in m) for item in m]
    parts: list[list[pytest.Item]] = [[] for _ in range(workers)]
    loads = [0] * workers
    for module in sorted(slow, key=lambda m: -sum(map(_cost, m))):  # the heaviest first, to the lightest part
        lightest = loads.index(min(loads))
        parts[lightest] += module
        loads[lightest] += sum(map(_cost, module))
    share = len(items) // workers
    ordered: list[pytest.Item] = []
    for number, part in enumerate(parts):
        take = len(quick) if number == workers - 1 else max(0, share - len(part))
        ordered += part + quick[:take]
        quick = quick[take:]
    items[:] = ordered


@pytest.fixture
def outside_tmp_path():
    """Like `tmp_path`, for an embedded Postgres's data (see folder_outside_pytest_root)."""
    with folder_outside_pytest_root("mirror-test-") as folder:
        yield folder


@pytest.fixture(scope="session")
def postgres_server():
    """The Postgres server's URL: TEST_DATABASE_URL, else an embedded server of this test process's own."""
    if TEST_DATABASE_URL:
        yield TEST_DATABASE_URL
        return
    from mirror.store import embedded

    with folder_outside_pytest_root("mirror-test-postgres-") as folder:
        try:
            url = embedded.start(folder / "postgres", database="postgres")
        except embedded.EmbeddedPostgresError as error:
            pytest.fail(f"TEST_DATABASE_URL is not set and {error}")
        yield url
        embedded.stop(folder / "postgres")


def _migrated_database(server_url: str):
    """A private, migrated database on `server_url` for this test process (yields its URL); dropped at the end."""
    server = make_url(normalise_database_url(server_url))
    name = f"mirror_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as error:
        where = "TEST_DATABASE_URL" if TEST_DATABASE_URL else "the embedded server"
        pytest.fail(f"PostgreSQL at {where} is unreachable: {error}")
    url = server.set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    yield url
    _forget_resetter(url)
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def postgres_url(postgres_server):
    """A private, migrated Postgres database for this test process; dropped at the end."""
    yield from _migrated_database(postgres_server)


@pytest.fixture(scope="session")
def second_postgres_url(postgres_server):
    """Another private, migrated database of this test process, for a second mirror beside the first."""
    yield from _migrated_database(postgres_server)


_RESETTERS: dict[str, tuple] = {}  # database URL -> (its kept engine, the statement that empties it)


def _empty_postgres(url: str) -> None:
    """Empty every table of `url` and restart its id sequences, as `TRUNCATE ... RESTART IDENTITY` would.

    DELETE on one kept connection rather than TRUNCATE on a new one: TRUNCATE takes an ACCESS EXCLUSIVE
    lock and rewrites each table's files, which for a handful of small tables costs ~10x more per test
    than deleting their few rows; the connection is pinged first (a test may have terminated it).
    """
    if url not in _RESETTERS:
        engine = create_engine(normalise_database_url(url), pool_size=1, pool_pre_ping=True)
        with engine.connect() as connection:
            sequences = connection.execute(
                text(
                    "SELECT s.oid::regclass::text FROM pg_class s "
                    "JOIN pg_depend d ON d.objid = s.oid AND d.deptype IN ('a', 'i') "
                    "JOIN pg_class t ON t.oid = d.refobjid "
                    "WHERE s.relkind = 'S' AND t.relname = ANY(:tables) ORDER BY 1"
                ),
                {"tables": list(TABLES)},
            ).scalars()
            restarts = [f"ALTER SEQUENCE {sequence} RESTART" for sequence in sequences]
        deletes = [f"DELETE FROM {table}" for table in reversed(TABLES)]  # children before their parents
        _RESETTERS[url] = (engine, text("; ".join(deletes + restarts)))
    engine, statement = _RESETTERS[url]
    with engine.begin() as connection:
        connection.execute(statement)


def _forget_resetter(url: str) -> None:
    """Close the kept connection `_empty_postgres` holds on `url` (before its database is dropped)."""
    kept = _RESETTERS.pop(url, None)
    if kept is not None:
        kept[0].dispose()


@pytest.fixture
def database_url(postgres_url) -> str:
    """A freshly migrated, empty database."""
    _empty_postgres(postgres_url)
    return postgres_url


@pytest.fixture
def other_database_url(second_postgres_url) -> str:
    """A second freshly migrated, empty database, beside `database_url` (a reference mirror, a larger one)."""
    _empty_postgres(second_postgres_url)
    return second_postgres_url


@pytest.fixture
def upstream():
    """A real demo upstream over HTTP with a small seeded catalog."""
    from demo.server import start_in_thread

    server = start_in_thread(companies=12, products=20, seed=7)
    yield server
    server.stop()


@pytest.fixture
def make_app(database_url, upstream):
    """Build apps bound to this test's database and upstream."""
    from wsgi import create_app

    apps = []

    def build(**overrides):
        config = {
            "DATABASE_URL": database_url,
            "UPSTREAM_URL": upstream.url,
            "UPSTREAM_TOKEN": "demo-token",
            "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
            "SCHEDULER_ENABLED": "false",
            "RATE_LIMIT_STORAGE_URI": "memory://",
            # One test client is one address: give it the whole company budget, as a lone client had before
            # the fair share; the tests of the share set their own (tests/web/test_hardening_limits.py).
            "RATE_LIMIT_COMPANY_CLIENT_SHARE": "1",
            **overrides,
        }
        app = create_app(config)
        app.config["TESTING"] = True
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.extensions["mirror"].dispose()


@pytest.fixture
def app(make_app):
    """The app with default test settings."""
    return make_app()


@pytest.fixture
def mirror(app):
    """The app's database handles."""
    return app.extensions["mirror"]


@pytest.fixture
def client(app):
    """Flask's test client."""
    return app.test_client()


@pytest.fixture
def synced(mirror):
    """The mirror after one successful sync of the demo upstream."""
    result = mirror.sync()
    assert result.status == "success", result.error
    return result


@pytest.fixture(params=["memory", "redis"])
def limit_storage(request):
    """The rate limiter's storage settings: per process, or the shared Redis at TEST_REDIS_URL (cleaned up after)."""
    from tests.ops_helpers import TEST_REDIS_URL, redis_client, redis_keys, unique_prefix

    if request.param == "memory":
        yield {"RATE_LIMIT_STORAGE_URI": "memory://"}
        return
    redis = redis_client()
    prefix = unique_prefix()
    yield {"RATE_LIMIT_STORAGE_URI": TEST_REDIS_URL, "RATE_LIMIT_KEY_PREFIX": prefix}
    for key in redis_keys(redis, prefix):
        redis.delete(key)


@pytest.fixture(scope="module")
def http():
    """One keep-alive HTTP session per module, for tests that send many requests to a live server."""
    import requests

    with requests.Session() as session:
        yield session


class Lines(logging.Handler):
    """Collects the invocation logger's lines (`lines` fixture: each test's own, parsed as JSON)."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.raw.append(record.getMessage())

    @property
    def entries(self) -> list[dict]:
        return [json.loads(line) for line in self.raw]


@pytest.fixture
def lines():
    """The invocation log's lines written while the test runs."""
    handler = Lines()
    logger = logging.getLogger("mirror.invocations")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
