"""Helpers for the reliability, security and operations tests (issue 6).

- `KEYED_SURFACES`: every keyed public route, how to call it, the switches
  that close it and the 404 it must answer, so one test can walk them all;
- `closed_companies()`: one company per way of not being public;
- a real Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379/0) that is
  never optional: unreachable means the test fails;
- `running_gunicorn()`: the app under gunicorn with several workers, over HTTP (`Gunicorn` to stop and
  start it on the same port).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests import REPO_ROOT
from tests.surface_helpers import ALL_CHANNELS, add_company, set_settings

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "").strip() or "redis://127.0.0.1:6379/0"
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
UNKNOWN_KEY = "unknownKey0000000000000000000000000000000"


@dataclass(frozen=True)
class Surface:
    """One keyed route: how to call it and which switches close it."""

    name: str
    method: str
    path: str  # with {key}
    channels: tuple[str, ...]
    html: bool = False
    body: dict | None = None
    rule: str | None = None  # the Flask rule, when `path` fills in more than {key}

    def call(self, client, key: str, **kwargs):
        """Request this surface for `key` with the Flask test client."""
        url = self.path.format(key=key)
        if self.method == "POST":
            return client.post(url, json=self.body, headers=MCP_HEADERS, **kwargs)
        return client.get(url, **kwargs)


TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
A2A_SEND = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "SendMessage",
    "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "furnace"}]}},
}
KEYED_SURFACES = (
    Surface("pricing.json", "GET", "/companies/{key}/pricing.json", ("pricing",)),
    Surface("jsonld", "GET", "/companies/{key}.jsonld", ("jsonld",)),
    Surface("pricing page", "GET", "/companies/{key}/pricing", ("pricing",), html=True),
    Surface("quote page", "GET", "/companies/{key}/quote", ("quote",), html=True),
    Surface("company mcp", "POST", "/companies/{key}/mcp", ("mcp",), body=TOOLS_LIST),
    Surface("webmcp calls", "POST", "/companies/{key}/webmcp/mcp", ("webmcp",), body=TOOLS_LIST),
    Surface("webmcp demo", "GET", "/companies/{key}/webmcp-demo", ("webmcp",), html=True),
    Surface("ucp mcp", "POST", "/companies/{key}/ucp/mcp", ("mcp",), body=TOOLS_LIST),
    Surface("ucp profile", "GET", "/companies/{key}/.well-known/ucp", ("mcp",)),
    Surface("mcp server card", "GET", "/companies/{key}/mcp/server-card", ("mcp",)),
    Surface("a2a agent card", "GET", "/companies/{key}/.well-known/agent-card.json", ("a2a",)),
    Surface("a2a agent", "POST", "/companies/{key}/a2a", ("a2a",), body=A2A_SEND),
    Surface("nlweb ask", "POST", "/companies/{key}/ask", ("a2a",), body={"query": {"text": "furnace"}}),
    Surface(
        "ucp release profile",
        "GET",
        "/companies/{key}/.well-known/ucp/2026-04-08",
        ("mcp",),
        rule="/companies/<key>/.well-known/ucp/<version>",
    ),
)


def closed_companies(upstream, channels: tuple[str, ...]) -> dict[str, str]:
    """Companies that must all look unknown on a surface closed by `channels`: name -> key."""
    keys = {
        "churned": add_company(upstream, status="churned"),
        "not live": add_company(upstream, storefront_live=False),
    }
    for channel in channels:
        key = add_company(upstream)
        set_settings(upstream, key, channels={**ALL_CHANNELS, channel: False})
        keys[f"{channel} off"] = key
    return keys


# --- Redis ----------------------------------------------------------------------------


def redis_client():
    """A client on the test Redis; the test fails (never skips) when it is unreachable."""
    import redis

    client = redis.Redis.from_url(TEST_REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        pytest.fail(f"Redis at {TEST_REDIS_URL} is unreachable (set TEST_REDIS_URL): {error}")
    return client


def unique_prefix() -> str:
    """A rate-limit key prefix no other test (or test process) uses."""
    return f"test-{os.getpid()}-{uuid.uuid4().hex[:10]}"


def redis_keys(client, prefix: str) -> list[bytes]:
    """Every Redis key the limiter wrote under `prefix`."""
    return [key for key in client.scan_iter(match="*", count=1000) if prefix.encode() in key]


# --- real servers ------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_env(database_url: str, upstream, **extra) -> dict:
    """The environment of a child process running this app."""
    return {
        "PATH": os.environ["PATH"],
        "DATABASE_URL": database_url,
        "UPSTREAM_URL": upstream.url,
        "UPSTREAM_TOKEN": "demo-token",
        "PYTHONPATH": str(REPO_ROOT),
        "SCHEDULER_ENABLED": "false",
        **{k: str(v) for k, v in extra.items()},
    }


def flask_command(*args: str) -> list[str]:
    """`python -m flask --app wsgi ARGS`."""
    return [sys.executable, "-m", "flask", "--app", "wsgi", *args]


class Gunicorn:
    """The app under gunicorn on one port, started and stopped as often as a test needs (the port stays).

    stderr (the invocation log) goes to `log`, a binary file the caller owns.
    """

    def __init__(self, env: dict, log, workers: int = 2, *extra_args: str, port: int | None = None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**env, "PUBLIC_BASE_URL": self.base}
        self.log, self.workers, self.extra_args = log, workers, extra_args
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        """Serve, and return once /healthz answers 200."""
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "--workers",
                str(self.workers),
                "--bind",
                f"127.0.0.1:{self.port}",
                *self.extra_args,
                "wsgi:create_app()",
            ],
            cwd=REPO_ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            start_new_session=True,
        )
        deadline = time.time() + 30
        while True:
            try:
                if requests.get(f"{self.base}/healthz", timeout=5).status_code == 200:
                    return
            except requests.RequestException:
                pass  # not listening yet, or a worker still importing
            if time.time() > deadline or self.process.poll() is not None:
                self.stop()
                self.log.seek(0)
                raise AssertionError(f"gunicorn did not start: {self.log.read().decode()[-2000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM to the whole process group; wait for it."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(20)
        self.process = None


@contextmanager
def running_gunicorn(env: dict, workers: int = 2, *extra_args: str):
    """Serve the app with gunicorn; yields its base URL once it answers /healthz."""
    log = tempfile.TemporaryFile()  # a pipe could fill up with invocation lines and stall the workers
    server = Gunicorn(env, log, workers, *extra_args)
    try:
        server.start()
        yield server.base
    finally:
        server.stop()
        log.close()


# --- a Postgres primary and its streaming replica ----------------------------------------


def postgres_bin(name: str) -> str:
    """A PostgreSQL server binary (initdb, pg_ctl, pg_basebackup): on PATH, or the newest /usr/lib/postgresql/*/bin."""
    import glob
    import shutil

    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    assert found, f"PostgreSQL's {name} is not installed (apt-get install postgresql)"
    return found


@dataclass
class PostgresCluster:
    """A throwaway cluster in `data` on a loopback port, run by `user` (the server refuses to run as root)."""

    data: str
    port: int
    user: str | None

    def run(self, *command: str) -> subprocess.CompletedProcess:
        """Run a PostgreSQL binary as the cluster's owner; fail with its output when it fails."""
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{' '.join(command)} failed: {done.stdout[-1000:]}{done.stderr[-2000:]}"
        return done

    def start(self) -> None:
        """pg_ctl start on this cluster's port, listening on loopback and a socket in its own folder."""
        self.run(
            postgres_bin("pg_ctl"),
            "-D",
            self.data,
            "-w",
            "-t",
            "60",
            "-l",
            f"{self.data}/server.log",
            "-o",
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.data} "
            "-c fsync=off -c shared_buffers=16MB -c max_connections=60",
            "start",
        )

    def stop(self) -> None:
        """pg_ctl stop -m fast (no error when it is not running)."""
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run(
            [*prefix, postgres_bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy URL of `database` on this cluster, as its superuser `postgres`."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def scalar(self, sql: str, database: str = "postgres"):
        """One value from this cluster (None for a statement without rows), on a short-lived connection of its own."""
        from sqlalchemy import create_engine, text

        engine = create_engine(self.url(database), isolation_level="AUTOCOMMIT", poolclass=_null_pool())
        try:
            with engine.connect() as connection:
                result = connection.execute(text(sql))
                return result.scalar() if result.returns_rows else None
        finally:
            engine.dispose()


def _null_pool():
    from sqlalchemy.pool import NullPool

    return NullPool


@dataclass
class StreamingReplica:
    """A primary cluster and a hot standby made from it with pg_basebackup, streaming its WAL."""

    primary: PostgresCluster
    replica: PostgresCluster

    def wait_for_replay(self, timeout: float = 30.0) -> None:
        """Return once the replica has replayed everything the primary has written so far."""
        target = self.primary.scalar("SELECT pg_current_wal_lsn()::text")
        deadline = time.monotonic() + timeout
        while True:
            caught_up = self.replica.scalar(
                f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn AND NOT pg_is_wal_replay_paused()"
            )
            if caught_up:
                return
            assert time.monotonic() < deadline, f"the replica did not replay up to {target} within {timeout} s"
            time.sleep(0.05)

    def pause_replay(self) -> None:
        """Stop applying WAL on the replica (it keeps receiving it): a replica lagging on purpose."""
        self.replica.scalar("SELECT pg_wal_replay_pause()::text")

    def resume_replay(self) -> None:
        """Apply WAL on the replica again."""
        self.replica.scalar("SELECT pg_wal_replay_resume()::text")


@contextmanager
def streaming_replica(database: str = "mirror"):
    """A fresh primary (initdb) with `database` in it, and a streaming replica of it (pg_basebackup -R).

    The test owns both clusters: the shared server's pg_hba.conf allows no
    replication connections, and a test must not edit a system file and
    reload a server other tests are using (docs/operations.md, read replicas).
    """
    import pwd
    import shutil

    user = None
    if os.geteuid() == 0:  # the server refuses root; run it as the packaged `postgres` user
        user = "postgres"
        pwd.getpwnam(user)
    root = tempfile.mkdtemp(prefix="mirror-replica-")
    os.chmod(root, 0o755)
    primary = PostgresCluster(os.path.join(root, "primary"), free_port(), user)
    replica = PostgresCluster(os.path.join(root, "replica"), free_port(), user)
    if user:
        shutil.chown(root, user)
    try:
        # initdb's pg_hba.conf trusts loopback for ordinary and replication connections alike (--auth=trust).
        primary.run(
            postgres_bin("initdb"),
            "-D",
            primary.data,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )
        primary.start()
        primary.scalar(f'CREATE DATABASE "{database}"')
        replica.run(
            postgres_bin("pg_basebackup"),
            "-h",
            "127.0.0.1",
            "-p",
            str(primary.port),
            "-U",
            "postgres",
            "-D",
            replica.data,
            "-R",
            "-X",
            "stream",
            "--checkpoint=fast",
            "--no-sync",
        )
        replica.start()
        assert replica.scalar("SELECT pg_is_in_recovery()"), "the copy did not start as a standby"
        yield StreamingReplica(primary, replica)
    finally:
        replica.stop()
        primary.stop()
        shutil.rmtree(root, ignore_errors=True)


# --- the documented production files (deploy/) -------------------------------------------

DEPLOY = REPO_ROOT / "deploy"
INSTALL_ROOT = "/srv/mirror"  # where deploy/*.service expect the checkout and its .venv


def read_env_file(path) -> dict[str, str]:
    """NAME=value lines of a systemd EnvironmentFile (comments and blank lines skipped), in order."""
    values: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        assert sep and name.strip() == name and name not in values, f"{path}:{number}: {line!r}"
        values[name] = value
    return values


def unit_directives(unit: str) -> dict[str, list[str]]:
    """Every `Key=value` of a deploy/ systemd unit, by key (a key may repeat: EnvironmentFile)."""
    directives: dict[str, list[str]] = {}
    for line in (DEPLOY / unit).read_text().splitlines():
        if line.strip() and not line.lstrip().startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            directives.setdefault(key.strip(), []).append(value.strip())
    return directives


def unit_command(unit: str, key: str = "ExecStart") -> list[str]:
    """A unit's command as argv, run from this checkout: /srv/mirror/.venv/bin/X becomes this venv's X."""
    import shlex

    (line,) = unit_directives(unit)[key]
    argv = shlex.split(line.replace("$$", "$"))  # systemd's $$ is a literal $ for the shell
    venv_bin = os.path.dirname(sys.executable)
    prefix = f"{INSTALL_ROOT}/.venv/bin/"
    return [os.path.join(venv_bin, arg[len(prefix) :]) if arg.startswith(prefix) else arg for arg in argv]
