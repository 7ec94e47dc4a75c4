"""`make run` behaves: chosen ports, one run per instance folder, a failed sync still serves, signals stop it all.

Each test starts the real scripts/run_demo.sh (through `make run` or directly)
with a small demo on free ports, its own instance folder and its own
`.flaskenv`, and talks to it over HTTP. Without DATABASE_URL the demo starts
the embedded Postgres in `<instance>/postgres` (mirror/store/embedded.py),
which runs in its own session: each test stops it at the end whatever happened.
The instance folder is outside pytest's temporary root (`outside_tmp_path`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests
from sqlalchemy import create_engine, text

from commands import EXIT_CONFIG, EXIT_DATABASE_UNREACHABLE, EXIT_UPSTREAM_UNREACHABLE
from mirror.runtime.config import normalise_database_url
from mirror.store import embedded
from tests.ops_helpers import free_port
from tests.ucp_helpers import ucp_call

pytestmark = pytest.mark.slow

from tests import REPO_ROOT  # noqa: E402

TUDI = "000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq"


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def instance(outside_tmp_path) -> Path:
    """The run's instance folder: outside pytest's own temporary root, for the embedded Postgres run as root."""
    return outside_tmp_path / "instance"


def _environment(tmp_path: Path, instance: Path, **extra: str) -> tuple[dict, int, int]:
    port, upstream_port = free_port(), free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "UPSTREAM_URL", "UPSTREAM_TOKEN", "PUBLIC_BASE_URL", "MAKEFLAGS", "MAKELEVEL")
    }
    env.update(
        PORT=str(port),
        UPSTREAM_PORT=str(upstream_port),
        INSTANCE_DIR=str(instance),
        FLASKENV_FILE=str(tmp_path / ".flaskenv"),
        DEMO_COMPANIES="3",
        DEMO_PRODUCTS="12",
        **extra,
    )
    return env, port, upstream_port


def _start(command: list[str], env: dict, log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _wait_serving(port: int, process: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise AssertionError(f"not serving after {timeout}s:\n{log.read_text()}")


def _assert_all_down(ports: tuple[int, ...], process: subprocess.Popen, within: float = 10) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(_listening(port) for port in ports):
        time.sleep(0.2)
    assert not any(_listening(port) for port in ports), "still listening 10 s after the signal"
    process.wait(timeout=within)  # make exits once the last process (the embedded Postgres) has stopped


HEAT_PUMP = {"query": "heat pump"}


def _try_links(log: Path, timeout: float = 30) -> list[str]:
    """The URLs `make run` prints under "Try:" (demo-urls), once it has printed them all; the MCP line aside."""
    deadline = time.monotonic() + timeout
    while "run: serving http://" not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.2)
    lines = log.read_text().split("Try:\n", 1)[1].splitlines()
    links = [line.strip() for line in lines if line.startswith("  http")]
    assert len(links) >= 8, lines
    return links


def _tudi_ucp(port: int) -> str:
    """Tudi's UCP endpoint on the demo at `port`."""
    return f"http://127.0.0.1:{port}/companies/{TUDI}/ucp/mcp"


def _kill_group(process: subprocess.Popen, instance: Path) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    embedded.stop(instance / "postgres")  # pg_ctl detached it from the group


def _companies(url: str) -> int:
    engine = create_engine(normalise_database_url(url))
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT count(*) FROM companies")).scalar()
    finally:
        engine.dispose()


def _assert_embedded_stopped(folder: Path) -> None:
    assert embedded.running_pid(folder) is None
    log = (folder / "log").read_text()
    assert "received fast shutdown request" in log and log.rstrip().endswith("database system is shut down")


def test_make_run_serves_refuses_a_second_run_writes_flaskenv_and_stops_on_sigterm_to_make(tmp_path, instance):
    env, port, upstream_port = _environment(tmp_path, instance)
    log = tmp_path / "make.log"
    # -o: the virtualenv counts as installed (the test must not run pip).
    make = _start(["make", "--no-print-directory", "-o", ".venv/.installed", "run"], env, log)
    try:
        _wait_serving(port, make, log)
        pricing = requests.get(f"http://127.0.0.1:{port}/companies/{TUDI}/pricing.json", timeout=5)
        assert pricing.status_code == 200 and pricing.json()["business"]["name"] == "Tudi Mechanical Systems"
        assert f"logs: {instance}/demo-upstream.log" in log.read_text()
        # Every link it prints to try opens something, offline: the quote redirect lands on the demo
        # upstream's stand-in for the contractor's estimate page (demo/sites.py), not on a .example name.
        for link in _try_links(log):
            opened = requests.get(link, timeout=10)
            assert opened.status_code == 200, (link, opened.status_code)
            assert opened.url.startswith("http://127.0.0.1:"), (link, opened.url)
        # No DATABASE_URL: the embedded Postgres, its data in the instance folder, named in .flaskenv.
        postgres = instance / "postgres"
        assert f"database: the embedded Postgres in {postgres} (log: {postgres}/log)" in log.read_text()
        [database_url] = [
            line.split("=", 1)[1]
            for line in (tmp_path / ".flaskenv").read_text().splitlines()
            if line.startswith("DATABASE_URL=")
        ]
        assert database_url.startswith("postgresql://") and "/mirror?host=/" in database_url
        assert (postgres / "PG_VERSION").read_text().strip() == "18" and embedded.running_pid(postgres)
        # The demo's agent profile is fetched over loopback http; no other loopback port is (not even the app's).
        assert (
            ucp_call(
                _tudi_ucp(port), "search_catalog", HEAT_PUMP, f"http://127.0.0.1:{upstream_port}/agent-profile.json"
            )["result"]["isError"]
            is False
        )
        other = ucp_call(_tudi_ucp(port), "search_catalog", HEAT_PUMP, f"http://127.0.0.1:{port}/healthz")["error"][
            "data"
        ]
        assert other["code"] == "invalid_profile_url" and other["content"] == "The agent profile URL must use https"

        lock = (instance / "run.lock").read_text()
        flaskenv_stamp = (tmp_path / ".flaskenv").stat().st_mtime_ns
        started = time.monotonic()
        second = subprocess.run(
            ["bash", "scripts/run_demo.sh"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=10
        )
        assert time.monotonic() - started < 2
        assert second.returncode == 1 and second.stdout == ""
        [line] = second.stderr.splitlines()
        assert "already running" in line and f"http://127.0.0.1:{port}/" in line and "kill " in line
        assert (instance / "run.lock").read_text() == lock
        assert (tmp_path / ".flaskenv").stat().st_mtime_ns == flaskenv_stamp

        # The CLI finds the demo's settings in .flaskenv, from a shell with nothing exported.
        shell = tmp_path / "shell"
        shell.mkdir()
        (shell / ".flaskenv").write_text((tmp_path / ".flaskenv").read_text())
        bare = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO_ROOT), "HOME": os.environ.get("HOME", "/tmp")}

        def sync_in_shell() -> subprocess.CompletedProcess:
            command = [str(REPO_ROOT / ".venv/bin/flask"), "--app", "wsgi", "sync"]
            return subprocess.run(command, cwd=shell, env=bare, capture_output=True, text=True, timeout=60)

        synced = sync_in_shell()
        assert synced.returncode == 0, synced.stderr
        assert ": success in " in synced.stdout

        companies = _companies(database_url)
        assert companies > 0
        make.send_signal(signal.SIGTERM)
        _assert_all_down((port, upstream_port), make)
        assert not (instance / "run.lock").exists()
        _assert_embedded_stopped(postgres)

        # The .flaskenv stays behind, naming a database and an upstream nobody serves any more: the CLI
        # says so at once, the database first; with the database up again (its data kept), the upstream.
        stale = sync_in_shell()
        assert stale.returncode == EXIT_DATABASE_UNREACHABLE, stale.stderr
        [line] = [line for line in stale.stderr.splitlines() if line.startswith("error: ")]
        assert f"cannot use the database {postgres}/mirror (" in line
        assert embedded.start(postgres) == database_url
        assert _companies(database_url) == companies  # the data stays in the instance folder
        stale = sync_in_shell()
        assert stale.returncode == EXIT_UPSTREAM_UNREACHABLE, stale.stderr
        [line] = [line for line in stale.stderr.splitlines() if line.startswith("error: ")]
        assert f"http://127.0.0.1:{upstream_port}" in line and "connection refused" in line
        assert " retry " not in stale.stderr  # no backoff against a port nothing listens on
    finally:
        _kill_group(make, instance)


def test_a_bad_setting_stops_make_run_before_it_writes_or_starts_anything(tmp_path, instance):
    env, port, upstream_port = _environment(tmp_path, instance, SYNC_INTERVAL_SECONDS="abc")
    result = subprocess.run(
        ["bash", "scripts/run_demo.sh"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == EXIT_CONFIG
    # The variable named, as every command names it; no migration blamed for it.
    assert result.stderr.splitlines() == [
        "configuration error: SYNC_INTERVAL_SECONDS must be a whole number of seconds, got 'abc'"
    ]
    assert not (tmp_path / ".flaskenv").exists()  # nothing a fresh shell's CLI would trip over later
    assert not (instance / "run.lock").exists()
    assert not (instance / "postgres").exists()  # no database started for a run refused
    assert not _listening(upstream_port) and not _listening(port)


def test_an_embedded_postgres_that_cannot_start_stops_make_run_with_one_line(tmp_path, instance):
    env, port, upstream_port = _environment(tmp_path, instance)
    postgres = instance / "postgres"
    postgres.mkdir(parents=True)
    (postgres / "PG_VERSION").write_text("15\n")  # a data folder it cannot use
    result = subprocess.run(
        ["bash", "scripts/run_demo.sh"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: embedded Postgres could not start in {postgres} (") and line.endswith("/log")
    assert not (tmp_path / ".flaskenv").exists()
    assert not (instance / "run.lock").exists()
    assert embedded.running_pid(postgres) is None
    assert not _listening(upstream_port) and not _listening(port)


def test_a_failed_first_sync_still_serves_and_sigint_to_the_group_stops_everything(tmp_path, instance):
    env, port, upstream_port = _environment(tmp_path, instance, UPSTREAM_TOKEN="not-the-demo-token")
    log = tmp_path / "run.log"
    script = _start(["bash", "scripts/run_demo.sh"], env, log)
    try:
        _wait_serving(port, script, log)
        assert "the first sync failed" in log.read_text()
        ready = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
        assert ready.status_code == 503
        os.killpg(script.pid, signal.SIGINT)
        _assert_all_down((port, upstream_port), script)
        _assert_embedded_stopped(instance / "postgres")
    finally:
        _kill_group(script, instance)


def test_with_database_url_it_uses_that_server_and_sigterm_to_the_script_stops_everything(
    tmp_path, instance, postgres_url
):
    env, port, upstream_port = _environment(tmp_path, instance, DATABASE_URL=postgres_url)
    log = tmp_path / "run.log"
    script = _start(["bash", "scripts/run_demo.sh"], env, log)
    try:
        _wait_serving(port, script, log)
        assert _companies(postgres_url) > 0  # synced into the server it was given
        assert "embedded" not in log.read_text() and not (instance / "postgres").exists()
        script.send_signal(signal.SIGTERM)
        _assert_all_down((port, upstream_port), script)
        assert "stopping" in log.read_text()
    finally:
        _kill_group(script, instance)
