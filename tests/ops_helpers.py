"""Helpers for the reliability, security and operations tests (issue 6).

- `KEYED_SURFACES`: every keyed public route, how to call it, the switches
  that close it and the 404 it must answer, so one test can walk them all;
- `closed_companies()`: one company per way of not being public;
- a real Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379/0) that is
  never optional: unreachable means the test fails;
- `running_gunicorn()`: the app under gunicorn with several workers, over HTTP.
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

import pytest
import requests

from tests.conftest import REPO_ROOT
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


@contextmanager
def running_gunicorn(env: dict, workers: int = 2, *extra_args: str):
    """Serve the app with gunicorn; yields its base URL once it answers /healthz."""
    port = free_port()
    env = {**env, "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}"}
    log = tempfile.TemporaryFile()  # a pipe could fill up with invocation lines and stall the workers
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            str(workers),
            "--bind",
            f"127.0.0.1:{port}",
            *extra_args,
            "wsgi:create_app()",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass  # not listening yet, or a worker still importing
            if time.time() > deadline or server.poll() is not None:
                log.seek(0)
                raise AssertionError(f"gunicorn did not start: {log.read().decode()[-2000:]}")
            time.sleep(0.2)
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(20)
        log.close()
