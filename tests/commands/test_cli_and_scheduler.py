"""The CLI (sync summary and exit codes, db verbs) and one-sync-at-a-time across processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select

from commands import EXIT_CONFIG
from mirror.service.scheduler import scheduled_sync
from mirror.store.models import SyncRun
from tests import REPO_ROOT
from tests.ops_helpers import free_port, process_env


def _flask(*args) -> list[str]:
    return [sys.executable, "-m", "flask", "--app", "wsgi", *args]


def test_sync_command_prints_a_summary(app, upstream):
    result = app.test_cli_runner().invoke(args=["sync"])
    assert result.exit_code == 0, result.output
    assert "success" in result.output and "products written" in result.output


def test_sync_command_fails_with_a_non_zero_status(app, upstream):
    upstream.faults.add("unauthorized", path="/v1/companies", nth=1, times=None)
    result = app.test_cli_runner().invoke(args=["sync", "--full"])
    assert result.exit_code == 6  # EXIT_UPSTREAM_REFUSED (tests/commands/test_cli_errors.py covers the others)
    assert "refused UPSTREAM_TOKEN" in result.output and "401" in result.output


def test_db_verbs(app):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    current = runner.invoke(args=["db", "check"])
    assert current.exit_code == 0, current.output  # models and migrations agree


@pytest.mark.slow
def test_concurrent_sync_processes_run_one_at_a_time(database_url, upstream, mirror):
    upstream.faults.add("slow", seconds=3, path="/v1/companies", nth=1)
    env = process_env(database_url, upstream)
    processes = [
        subprocess.Popen(_flask("sync"), cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    codes = sorted(p.wait(60) for p in processes)
    assert codes == [0, 75, 75]
    with mirror.Session() as session:
        assert session.scalar(select(func.count()).select_from(SyncRun)) == 1


def test_a_scheduler_tick_skips_right_after_a_run(mirror, synced):
    assert scheduled_sync(mirror) == "skipped-recent"


@pytest.mark.slow
def test_gunicorn_workers_with_the_scheduler_start_one_sync(database_url, upstream, mirror):
    port = free_port()
    env = process_env(
        database_url,
        upstream,
        SCHEDULER_ENABLED="true",
        SYNC_INTERVAL_SECONDS="3600",
        PUBLIC_BASE_URL=f"http://127.0.0.1:{port}",
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "3", "--bind", f"127.0.0.1:{port}", "wsgi:create_app()"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 25
        runs = 0
        while time.time() < deadline:
            with mirror.Session() as session:
                runs = session.scalar(select(func.count()).select_from(SyncRun).where(SyncRun.status == "success"))
            if runs:
                break
            time.sleep(0.5)
        time.sleep(3)  # the other workers' first ticks have passed by now
        with mirror.Session() as session:
            statuses = session.scalars(select(SyncRun.status)).all()
        assert statuses == ["success"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(20)


# --- start-up: nothing built at import; a bad setting is one line, not a traceback ----------

BAD_SETTING = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO_ROOT), "SYNC_INTERVAL_SECONDS": "often"}
BAD_LINE = "configuration error: SYNC_INTERVAL_SECONDS must be a whole number of seconds, got 'often'"


def test_importing_wsgi_builds_no_app():
    code = "import wsgi, threading; assert not hasattr(wsgi, 'app'); print(threading.active_count())"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=BAD_SETTING, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr  # the bad setting is not even read
    assert result.stdout.strip() == "1"  # no writer, no scheduler


@pytest.mark.slow
def test_the_cli_finds_the_factory_and_refuses_a_bad_setting_in_one_line(database_url):
    good = subprocess.run(
        _flask("db", "current"),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**BAD_SETTING, "SYNC_INTERVAL_SECONDS": "900", "DATABASE_URL": database_url},
    )
    assert good.returncode == 0, good.stderr
    assert "(head)" in good.stdout
    for args in (("--help",), ("db", "current"), ("sync",)):
        bad = subprocess.run(_flask(*args), cwd=REPO_ROOT, env=BAD_SETTING, capture_output=True, text=True, timeout=60)
        assert bad.stderr.strip() == BAD_LINE, args
        assert bad.returncode == EXIT_CONFIG, args
        assert "Traceback" not in bad.stdout + bad.stderr


def test_gunicorn_refuses_a_bad_setting_at_once_in_one_line():
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            "2",
            "--bind",
            f"127.0.0.1:{free_port()}",
            "wsgi:create_app()",
        ],
        cwd=REPO_ROOT,
        env=BAD_SETTING,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == EXIT_CONFIG  # as the CLI: docs/operations.md, exit codes
    assert BAD_LINE in result.stderr.splitlines()
    assert "Traceback" not in result.stderr and "Booting worker" not in result.stderr  # no worker ever started
    assert time.monotonic() - started < 30
