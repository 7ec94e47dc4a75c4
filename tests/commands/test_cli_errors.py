"""One-line CLI errors with documented exit codes, `sync --json`, and logs an operator can read.

The CLI runs for real, in a subprocess (`python -m flask --app wsgi ...`),
against a real demo upstream over HTTP and real Postgres databases (on the
tests' server: tests/conftest.py). `.flaskenv` is never read here
(FLASK_SKIP_DOTENV), so a `make run` in this checkout cannot change what a
test sees.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import uuid

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from commands import (
    EXIT_CODES,
    EXIT_CONFIG,
    EXIT_DATABASE_UNREACHABLE,
    EXIT_NOT_MIGRATED,
    EXIT_UNKNOWN_COMPANY,
    EXIT_UPSTREAM_REFUSED,
    EXIT_UPSTREAM_UNREACHABLE,
    PROGRESS_EVERY_SECONDS,
    SyncProgress,
)
from mirror.runtime.config import normalise_database_url
from mirror.service.scheduler import scheduled_sync
from tests import REPO_ROOT
from tests.ops_helpers import free_port


def run_cli(
    *args: str, database_url: str, upstream_url: str = "", token: str = "demo-token", timeout: float = 90, **settings
):
    """Run `flask --app wsgi ARGS` with only these settings (and `settings`); returns the CompletedProcess."""
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(REPO_ROOT),
        "FLASK_SKIP_DOTENV": "1",
        "DATABASE_URL": database_url,
        "UPSTREAM_URL": upstream_url,
        "UPSTREAM_TOKEN": token,
        **settings,
    }
    return subprocess.run(
        [sys.executable, "-m", "flask", "--app", "wsgi", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def error_line(result) -> str:
    """The one `error:` line of stderr (and no traceback anywhere)."""
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def unmigrated_url(postgres_server):
    """An empty database nobody migrated."""
    server = make_url(normalise_database_url(postgres_server))
    name = f"mirror_unmigrated_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield server.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


# --- the database ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [("sync",), ("db", "upgrade"), ("scheduler",), ("sources",), ("usage",)])
def test_an_unreachable_database_is_one_line_naming_host_and_port_without_the_password(command):
    port = free_port()  # nothing listens there
    url = f"postgresql://mirror:s3cret-pass@127.0.0.1:{port}/mirror"
    result = run_cli(*command, database_url=url, upstream_url="http://127.0.0.1:9")
    assert result.returncode == EXIT_DATABASE_UNREACHABLE
    line = error_line(result)
    assert f"127.0.0.1:{port}" in line and "DATABASE_URL" in line
    assert "s3cret" not in result.stderr + result.stdout


@pytest.mark.parametrize("command", [("sync",), ("scheduler",), ("sources",), ("demo-urls",), ("usage",)])
def test_a_database_nobody_migrated_says_to_run_db_upgrade(unmigrated_url, upstream, command):
    result = run_cli(*command, database_url=unmigrated_url, upstream_url=upstream.url)
    assert result.returncode == EXIT_NOT_MIGRATED
    assert error_line(result).endswith("run `.venv/bin/flask --app wsgi db upgrade`")
    assert upstream.requests.count == 0  # nothing was asked of the upstream


# --- the settings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, value",
    [("SYNC_INTERVAL_SECONDS", "abc"), ("RATE_LIMIT_PER_COMPANY", "lots"), ("DATABASE_URL", "mysql://x")],
)
@pytest.mark.parametrize("command", [("sync",), ("usage",), ("db", "current")])
def test_a_bad_setting_is_one_line_naming_it_and_exit_2(command, name, value):
    settings = {"DATABASE_URL": f"postgresql://127.0.0.1:{free_port()}/m", name: value}  # never reached
    result = run_cli(*command, database_url=settings.pop("DATABASE_URL"), upstream_url="http://127.0.0.1:9", **settings)
    assert result.returncode == EXIT_CONFIG == 2  # the table's "a setting is missing or bad"; 1 is a failed sync run
    assert result.stdout == "" and "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"configuration error: {name} ") and repr(value) in line


# --- the upstream ----------------------------------------------------------------------------


def test_sync_of_a_company_the_upstream_does_not_know_fails(database_url, upstream):
    result = run_cli("sync", "--company", "NOPE", database_url=database_url, upstream_url=upstream.url)
    assert result.returncode == EXIT_UNKNOWN_COMPANY
    line = error_line(result)
    assert "'NOPE'" in line and upstream.url in line
    known = upstream.catalog.company_keys()[0]
    assert run_cli("sync", "--company", known, database_url=database_url, upstream_url=upstream.url).returncode == 0


def test_an_upstream_refusing_the_token_is_one_line(database_url, upstream):
    result = run_cli("sync", database_url=database_url, upstream_url=upstream.url, token="wrong")
    assert result.returncode == EXIT_UPSTREAM_REFUSED
    line = error_line(result)
    assert upstream.url in line and "UPSTREAM_TOKEN" in line
    assert result.stderr.splitlines() == [line]  # the documented line alone: no log line of the failed run beside it
    assert failed_runs(database_url) == ["UpstreamAuthError: /v1/companies: 401 the upstream refused the token"]


def failed_runs(database_url: str) -> list[str]:
    """The errors sync_runs holds for failed runs, oldest first (where a failure is kept besides the CLI's line)."""
    engine = create_engine(normalise_database_url(database_url))
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT error FROM sync_runs WHERE status = 'failed' ORDER BY id")).scalars()
        errors = list(rows)
    engine.dispose()
    return errors


def test_a_failed_run_the_scheduler_starts_is_still_logged_at_error(make_app, caplog):
    mirror = make_app(UPSTREAM_TOKEN="wrong").extensions["mirror"]
    caplog.set_level(logging.ERROR, logger="mirror.sync")
    assert scheduled_sync(mirror) == "failed"
    [record] = [r for r in caplog.records if r.name == "mirror.sync"]
    assert record.levelno == logging.ERROR and "UpstreamAuthError" in record.getMessage()


def test_an_unreachable_upstream_is_one_line_naming_the_url_at_once(database_url):
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there: refused on the first request, never retried
    result = run_cli("sync", "--json", database_url=database_url, upstream_url=url)
    assert result.returncode == EXIT_UPSTREAM_UNREACHABLE
    line = error_line(result)
    assert url in line and "UPSTREAM_URL" in line and "connection refused" in line
    assert " retry " not in result.stderr  # not 17 s of backoff first (mirror/sync/upstream.py's retry rule)
    assert result.stderr.splitlines() == [line]  # the documented line alone
    *_, last = result.stdout.splitlines()
    assert json.loads(last) == {"status": "error", "exit_code": EXIT_UPSTREAM_UNREACHABLE, "error": line[7:]}


def test_a_missing_upstream_setting_names_the_settings_and_flaskenv(database_url):
    result = run_cli("sync", database_url=database_url, upstream_url="", token="")
    assert result.returncode == 2
    line = error_line(result)
    assert "UPSTREAM_URL" in line and ".flaskenv" in line


def test_every_exit_code_is_documented():
    operations = (REPO_ROOT / "docs" / "operations.md").read_text()
    for code, meaning in EXIT_CODES.items():
        assert f"| {code} | {meaning} |" in operations


# --- what a run prints -------------------------------------------------------------------------


def test_sync_json_is_one_object_on_stdout(database_url, upstream):
    result = run_cli("sync", "--json", database_url=database_url, upstream_url=upstream.url)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "success" and summary["mode"] == "incremental"
    assert summary["counts"]["companies_seen"] == upstream.catalog.stats()["companies"]
    assert set(summary) == {"run_id", "mode", "status", "seconds", "counts", "error"}


def test_invalid_records_are_one_warning_per_run(database_url):
    from demo.server import start_in_thread

    with start_in_thread(companies=40, products=40, seed=3, messiness=4.0) as messy:
        invalid = messy.catalog.stats()["invalid_products"]
        assert invalid >= 3
        result = run_cli("sync", database_url=database_url, upstream_url=messy.url)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if " WARNING " in line]
    [summary] = [line for line in warnings if "invalid records" in line]
    assert f"skipped {invalid} invalid records (invalid " in summary and "; first: " in summary
    assert not [line for line in warnings if "skipped invalid" in line]
    assert "setup plugin" not in result.stderr


def test_db_commands_print_no_alembic_plugin_chatter(unmigrated_url):
    result = run_cli("db", "upgrade", database_url=unmigrated_url)
    assert result.returncode == 0, result.stderr
    assert "setup plugin" not in result.stderr and "Running upgrade" in result.stderr


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_without_a_terminal_progress_is_a_log_line_at_most_every_10_seconds(caplog):
    caplog.set_level(logging.INFO, logger="commands")
    clock = _Clock()
    with SyncProgress(io.StringIO(), tty=False, clock=clock) as progress:
        for _ in range(100):  # 100 pages over 25 s
            clock.now += 0.25
            progress("products", 500)
    lines = [r.getMessage() for r in caplog.records if r.name == "commands"]
    assert len(lines) == int(25 / PROGRESS_EVERY_SECONDS)
    assert lines[0] == "sync: products 20,000 · 10s"


def test_on_a_terminal_log_lines_print_above_the_progress_line():
    terminal = io.StringIO()
    handler = logging.StreamHandler(terminal)
    logger = logging.getLogger("tests.progress")
    logger.addHandler(handler)
    logger.propagate = False
    clock = _Clock()
    try:
        with SyncProgress(terminal, tty=True, clock=clock) as progress:
            progress("companies", 300)
            logger.warning("upstream slow")
            progress("companies", 200)
        logger.warning("after")
    finally:
        logger.removeHandler(handler)
    clear = "\r\033[K"
    assert terminal.getvalue() == (
        f"{clear}sync: companies 300 · 0s"
        f"{clear}upstream slow\nsync: companies 300 · 0s"
        f"{clear}sync: companies 500 · 0s"
        f"{clear}after\n"
    )


def test_a_scheduler_tick_that_skips_says_why(mirror, synced, caplog):
    caplog.set_level(logging.INFO, logger="mirror.service.scheduler")
    assert scheduled_sync(mirror) == "skipped-recent"
    [record] = [r for r in caplog.records if r.name == "mirror.service.scheduler"]
    assert record.levelname == "INFO" and "skipped: the last run ended" in record.getMessage()


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["", "true"])
def test_gunicorns_access_log_is_off_unless_the_setting_turns_it_on(database_url, tmp_path, setting):
    """One line per request: the invocation line; gunicorn's own access line only with GUNICORN_ACCESS_LOG."""
    import time

    import requests

    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(REPO_ROOT),
        "DATABASE_URL": database_url,
        "GUNICORN_ACCESS_LOG": setting,
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
    }
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", f"127.0.0.1:{port}", "wsgi:create_app()"],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:  # ready once /healthz answers (health probes are never logged)
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass  # not listening yet, or a busy machine's worker still importing the app
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        # One request, however slow the machine: a retried one would be logged twice.
        assert requests.get(f"http://127.0.0.1:{port}/v1/businesses", timeout=30).status_code == 200
        time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=20)
    lines = [line for line in log.read_text().splitlines() if "/v1/businesses" in line]
    invocation = [line for line in lines if '"event":"invocation"' in line]
    access = [line for line in lines if '"GET /v1/businesses"' in line]
    assert len(invocation) == 1, lines
    assert len(access) == (1 if setting else 0), lines
