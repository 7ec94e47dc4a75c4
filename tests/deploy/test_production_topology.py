"""The documented production topology, started from the documented files (docs/operations.md).

deploy/ holds what an operator installs. These tests read those very files:
the environment examples must list exactly the declared settings with the
production values the docs promise, and the slow test starts what the
systemd units start (their ExecStartPre/ExecStart lines, with this checkout
in place of /srv/mirror), with the environment of deploy/production.env.example
(only the addresses changed to this machine's): gunicorn from
deploy/gunicorn.conf.py with two workers, nginx from deploy/nginx-site.conf in
front, a separate scheduler process, Postgres (TEST_DATABASE_URL), Redis
(TEST_REDIS_URL) and the demo upstream. It then checks that the scheduler
syncs, the mirror serves through nginx, the rate limit is one count across
the workers and per real client address, /metrics sums the workers, and a
graceful reload (SIGHUP to the gunicorn master) under a steady loop of
requests fails none of them.
"""

from __future__ import annotations

import http.client
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack, contextmanager

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from commands import EXIT_CONFIG
from mirror.runtime.config import ConfigError, Settings, env_name, load_settings
from tests import REPO_ROOT
from tests.conftest import _empty_postgres
from tests.deploy.test_slow_clients import deploy_nginx
from tests.ops_helpers import (
    DEPLOY,
    TEST_REDIS_URL,
    free_port,
    read_env_file,
    redis_client,
    redis_keys,
    unique_prefix,
    unit_command,
    unit_directives,
)
from tests.surface_helpers import add_company

LIBPQ_ONLY = {"PGPASSWORD"}  # read by libpq, not by the app
DECLARED = {env_name(name) for name in Settings.model_fields}


def _examples() -> tuple[dict, dict]:
    return read_env_file(DEPLOY / "production.env.example"), read_env_file(DEPLOY / "secrets.env.example")


# --- the files themselves (fast) -----------------------------------------------------


def test_the_environment_examples_list_exactly_the_declared_settings():
    settings, secret = _examples()
    assert not set(settings) & set(secret), "a setting is in both files"
    assert set(settings) | set(secret) == DECLARED | LIBPQ_ONLY
    assert set(secret) == {"UPSTREAM_TOKEN", "USAGE_HASH_KEY", "PGPASSWORD"}
    assert all(value == "" for value in secret.values()), "no secret value belongs in the repository"


def test_every_gunicorn_variable_is_a_declared_setting():
    """deploy/gunicorn.conf.py reads no variable of its own: each GUNICORN_* is checked, and listed in the README."""
    import re

    files = [
        DEPLOY / "gunicorn.conf.py",
        REPO_ROOT / "gunicorn.conf.py",
        *DEPLOY.glob("*.service"),
        *DEPLOY.glob("*.example"),
    ]
    named = {name for path in files for name in re.findall(r"\bGUNICORN_[A-Z_]+\b", path.read_text())}
    assert {"GUNICORN_BIND", "GUNICORN_WORKERS", "GUNICORN_THREADS", "GUNICORN_TIMEOUT"} <= named
    assert named <= DECLARED, named - DECLARED
    assert "os.environ" not in (DEPLOY / "gunicorn.conf.py").read_text()


def test_a_bad_gunicorn_setting_is_one_line_naming_it():
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO_ROOT), "GUNICORN_WORKERS": "lots"}
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:create_app()"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == EXIT_CONFIG
    assert "Traceback" not in result.stderr and "Booting worker" not in result.stderr
    assert (
        result.stderr.splitlines()[-1]
        == "configuration error: GUNICORN_WORKERS must be a whole number of processes, got 'lots'"
    )


def test_the_examples_hold_safe_production_values():
    settings, _ = _examples()
    production = load_settings({**settings, "UPSTREAM_TOKEN": "t", "USAGE_HASH_KEY": secrets.token_hex(32)})
    assert production.rate_limit_storage_uri.startswith("redis://")
    assert production.trusted_proxy_hops == 1
    assert {str(network) for network in production.trusted_proxies} == {"127.0.0.0/8", "::1/128"}  # nginx, here
    assert production.scheduler_enabled is False and production.ucp_allow_insecure_profiles is False
    assert production.database_url.startswith("postgresql") and production.database_read_url is None
    assert production.public_base_url.startswith("https://") and production.upstream_url.startswith("https://")
    assert production.prometheus_multiproc_dir is None  # gunicorn.conf.py makes a fresh one per start
    assert settings["GUNICORN_BIND"].startswith("127.0.0.1:")  # loopback only: nginx is the one client
    with pytest.raises(ConfigError, match="SYNC_INTERVAL_SECONDS"):  # an emptied number is refused, not defaulted
        load_settings({**settings, "SYNC_INTERVAL_SECONDS": ""})


def test_the_units_run_the_documented_commands_with_both_environment_files():
    for unit in ("mirror-web.service", "mirror-scheduler.service"):
        directives = unit_directives(unit)
        assert directives["EnvironmentFile"] == ["/etc/mirror/mirror.env", "/etc/mirror/secrets.env"]
        assert directives["User"] == ["mirror"] and directives["WorkingDirectory"] == ["/srv/mirror"]
    assert unit_command("mirror-web.service")[1:] == ["-c", "deploy/gunicorn.conf.py", "wsgi:create_app()"]
    assert unit_directives("mirror-web.service")["ExecReload"] == ["/bin/kill -s HUP $MAINPID"]
    assert unit_command("mirror-scheduler.service")[1:] == ["--app", "wsgi", "scheduler"]


def test_one_unix_socket_path_and_the_web_unit_creates_its_folder():
    import re

    files = [
        *(p for p in DEPLOY.iterdir() if p.is_file()),
        REPO_ROOT / "README.md",
        REPO_ROOT / "docs" / "operations.md",
    ]
    named = {path for file in files for path in re.findall(r"unix:(/[\w./-]+)", file.read_text())}
    assert named == {"/run/mirror/web.sock"}, named  # gunicorn's bind, nginx's upstream, the docs: one path
    web = unit_directives("mirror-web.service")
    # systemd makes /run/mirror for User= at each start: nothing else may write to /run (ProtectSystem=strict).
    assert web["RuntimeDirectory"] == ["mirror"] and web["ProtectSystem"] == ["strict"]
    assert os.path.dirname(named.pop()) == "/run/" + web["RuntimeDirectory"][0]


def test_the_web_unit_refuses_to_start_without_a_usage_hash_key():
    check = unit_command("mirror-web.service", "ExecStartPre")
    assert subprocess.run(check, env={"USAGE_HASH_KEY": ""}, capture_output=True).returncode != 0
    assert subprocess.run(check, env={"USAGE_HASH_KEY": "k"}, capture_output=True).returncode == 0


def test_the_proxy_passes_host_and_the_client_address():
    site = (DEPLOY / "nginx-site.conf").read_text()
    assert "proxy_set_header Host $host;" in site
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in site
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in site


MASTER_PROBE = """
import runpy, sys
config = runpy.run_path("deploy/gunicorn.conf.py")
config["on_starting"](None)
print(sorted({m.split(".")[0] for m in sys.modules} & {"mirror", "web", "wsgi", "flask", "pydantic", "sqlalchemy"}))
"""


def test_the_gunicorn_master_imports_nothing_a_reload_must_replace():
    """What the master imports, every worker forked after a SIGHUP inherits: it must be none of the app."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO_ROOT), "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp()}
    good = subprocess.run([sys.executable, "-c", MASTER_PROBE], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert good.returncode == 0 and good.stdout.strip() == "[]", good.stdout + good.stderr
    # ... and it still refuses a bad setting at start, in one line.
    bad = subprocess.run(
        [sys.executable, "-c", MASTER_PROBE],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**env, "SYNC_INTERVAL_SECONDS": "soon"},
    )
    assert bad.returncode == EXIT_CONFIG and bad.stdout == ""
    assert (
        bad.stderr.strip() == "configuration error: SYNC_INTERVAL_SECONDS must be a whole number of seconds, got 'soon'"
    )


# --- the topology, running (slow) ----------------------------------------------------------


def production_env(database_url: str, upstream, app_port: int, prefix: str) -> dict:
    """deploy/production.env.example and the secrets, with this machine's addresses: nothing else changes."""
    settings, _ = _examples()
    local = {  # the site-specific values: where things are on this machine
        "DATABASE_URL": database_url,
        "UPSTREAM_URL": upstream.url,
        "RATE_LIMIT_STORAGE_URI": TEST_REDIS_URL,
        "RATE_LIMIT_KEY_PREFIX": prefix,
        "GUNICORN_BIND": f"127.0.0.1:{app_port}",
        "GUNICORN_WORKERS": "2",
        # Small enough to reach in a test (the production value is 600/minute).
        "RATE_LIMIT_PER_CLIENT": f"{CLIENT_BUDGET}/minute",
        # Where the test can see which worker answered what (empty in production: a fresh one per start).
        "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(prefix="mirror-topology-metrics-"),
    }
    assert set(local) <= set(settings)
    return {
        **settings,
        **local,
        "UPSTREAM_TOKEN": "demo-token",
        "USAGE_HASH_KEY": secrets.token_hex(32),
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(REPO_ROOT),
    }


CLIENT_BUDGET = 6


@contextmanager
def unit_process(unit: str, env: dict):
    """Run a unit's ExecStartPre (if any) and ExecStart from this checkout; stop it with SIGTERM as systemd would."""
    if "ExecStartPre" in unit_directives(unit):
        subprocess.run(unit_command(unit, "ExecStartPre"), env=env, check=True, timeout=10)
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        unit_command(unit), cwd=REPO_ROOT, env=env, stdout=log, stderr=log, start_new_session=True
    )
    try:
        yield process, log
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
        log.close()


def _tail(log) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-3000:]


def _wait(what: str, check, processes, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except requests.RequestException:
            pass
        for process, log in processes:
            assert process.poll() is None, f"{process.args[:2]} exited while waiting for {what}: {_tail(log)}"
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s: " + " | ".join(
            _tail(log) for _, log in processes
        )
        time.sleep(0.25)


def get_from(source: str, port: int, path: str, headers: dict | None = None) -> int:
    """GET through a new connection from the loopback address `source` (another client, as nginx sees it)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def concurrent_gets(source: str, port: int, path: str, count: int) -> list[int]:
    """`count` GETs from `source`, all started at once (a barrier), each on its own connection."""
    barrier = threading.Barrier(count)
    statuses: list[int] = []

    def one() -> None:
        barrier.wait(10)
        statuses.append(get_from(source, port, path))

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return statuses


def businesses_served_per_worker(multiproc_dir: str) -> dict[str, float]:
    """`/v1/businesses` answers counted by each worker (pid), from each worker's own metrics file."""
    import glob
    import shutil

    from prometheus_client import CollectorRegistry, generate_latest, multiprocess

    served = {}
    for path in glob.glob(os.path.join(multiproc_dir, "counter_*.db")):
        alone = tempfile.mkdtemp()
        shutil.copy(path, alone)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=alone)
        total = sum(
            sample.value
            for family in text_string_to_metric_families(generate_latest(registry).decode())
            for sample in family.samples
            if sample.name == "mirror_http_requests_total" and sample.labels.get("endpoint") == "/v1/businesses"
        )
        shutil.rmtree(alone)
        if total:
            served[os.path.basename(path)] = total
    return served


def requests_total(base: str, endpoint: str, status: str = "200") -> float:
    """mirror_http_requests_total for one route rule and status, from one scrape."""
    text = requests.get(f"{base}/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if (
                sample.name == "mirror_http_requests_total"
                and sample.labels.get("endpoint") == endpoint
                and sample.labels.get("method") == "GET"
                and sample.labels.get("status") == status
            ):
                return sample.value
    return 0.0


def worker_pids(master: int) -> set[int]:
    """The gunicorn master's children (its workers)."""
    with open(f"/proc/{master}/task/{master}/children") as handle:
        return {int(pid) for pid in handle.read().split()}


class SteadyLoop:
    """A bounded, steady loop of GETs (one every `interval` s) on its own thread, counting every failure."""

    def __init__(self, url: str, interval: float = 0.05) -> None:
        self.url, self.interval = url, interval
        self.answers: list[int] = []
        self.slowest = 0.0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with requests.Session() as session:
            while not self._stop.is_set():
                started = time.monotonic()
                try:
                    # nginx's own proxy_read_timeout: a request may wait in the listen queue while new workers boot.
                    status = session.get(self.url, timeout=30).status_code
                    self.answers.append(status)
                    self.slowest = max(self.slowest, time.monotonic() - started)
                    if status != 200:
                        self.failures.append(f"status {status}")
                except requests.RequestException as error:
                    self.failures.append(repr(error))
                self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(15)


@pytest.mark.slow
def test_the_documented_topology_syncs_serves_limits_counts_and_reloads_gracefully(postgres_url, upstream):
    _empty_postgres(postgres_url)
    redis = redis_client()
    prefix = unique_prefix()
    key = add_company(upstream)
    app_port = free_port()
    with ExitStack() as stack:
        env = production_env(postgres_url, upstream, app_port, prefix)

        # First deploy, as documented: migrate, then start the two units.
        subprocess.run(
            [
                os.path.join(os.path.dirname(unit_command("mirror-scheduler.service")[0]), "flask"),
                "--app",
                "wsgi",
                "db",
                "upgrade",
            ],
            cwd=REPO_ROOT,
            env=env,
            check=True,
            timeout=120,
            capture_output=True,
        )
        web, web_log = stack.enter_context(unit_process("mirror-web.service", env))
        _wait(
            "gunicorn to answer",
            lambda: requests.get(f"http://127.0.0.1:{app_port}/healthz", timeout=5).ok,
            [(web, web_log)],
        )
        assert len(worker_pids(web.pid)) == 2
        public_port = stack.enter_context(deploy_nginx(app_port))  # waits for /healthz through nginx
        public = f"http://127.0.0.1:{public_port}"
        assert requests.get(f"{public}/readyz", timeout=5).json()["reasons"] == ["never_synced"]

        # The scheduler (its own process; the web workers never sync) makes the mirror ready.
        scheduler, scheduler_log = stack.enter_context(unit_process("mirror-scheduler.service", env))
        processes = [(web, web_log), (scheduler, scheduler_log)]
        _wait("the scheduler's first sync", lambda: requests.get(f"{public}/readyz", timeout=5).ok, processes)
        pricing = requests.get(f"{public}/companies/{key}/pricing.json", timeout=10)
        assert pricing.status_code == 200 and pricing.json()["categories"]

        # One per-client budget across both workers (Redis), per real client address (nginx's X-Forwarded-For).
        # Concurrent requests, so that nginx opens several connections and both workers answer some.
        statuses = concurrent_gets("127.0.0.2", public_port, "/v1/businesses", CLIENT_BUDGET + 4)
        assert sorted(statuses) == [200] * CLIENT_BUDGET + [429] * 4, statuses
        served = businesses_served_per_worker(env["PROMETHEUS_MULTIPROC_DIR"])
        assert len(served) == 2 and sum(served.values()) == CLIENT_BUDGET + 4, served  # both workers counted
        assert redis_keys(redis, prefix), "the counters are not in Redis"
        spoofed = {"X-Forwarded-For": "203.0.113.9"}  # nginx appends the real address; the app takes that one
        assert get_from("127.0.0.2", public_port, "/v1/businesses", spoofed) == 429
        assert get_from("127.0.0.3", public_port, "/v1/businesses") == 200  # another client, its own budget

        # /metrics sums the workers: every scrape, whichever worker answers it, counts every request.
        rule = "/companies/<key>/pricing.json"
        # Straight at gunicorn: through nginx, the documents' cache answers the repeats itself.
        for _ in range(9):
            assert get_from("127.0.0.4", app_port, f"/companies/{key}/pricing.json") == 200
        assert {requests_total(public, rule) for _ in range(6)} == {10.0}

        # A graceful reload under a steady loop: new workers, no failed request.
        old_workers = worker_pids(web.pid)
        # With a query string, so that every request of the loop reaches gunicorn (nginx's cache stores plain ones).
        with SteadyLoop(f"{public}/companies/{key}/pricing.json?source=reload") as loop:
            _wait("the loop to run", lambda: len(loop.answers) >= 5, processes)
            os.kill(web.pid, signal.SIGHUP)
            before = len(loop.answers)
            _wait(
                "new workers after SIGHUP",
                lambda: len(worker_pids(web.pid)) == 2 and not worker_pids(web.pid) & old_workers,
                processes,
            )
            reloaded = len(loop.answers)
            _wait("the loop to run on the new workers", lambda: len(loop.answers) >= reloaded + 10, processes)
        assert loop.failures == [], (loop.failures[:5], f"slowest answer {loop.slowest:.1f} s")
        assert before >= 5 and len(loop.answers) >= reloaded + 10  # the loop ran across the whole reload
        # The old workers' counts stay in the totals after the reload.
        assert requests_total(public, rule) == 10 + len(loop.answers)
        assert web.poll() is None and scheduler.poll() is None
