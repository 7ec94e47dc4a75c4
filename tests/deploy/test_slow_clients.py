"""Slow clients (issue 12, finding 8): behind deploy/'s nginx, trickling clients cannot stall gunicorn.

gunicorn is started from deploy/gunicorn.conf.py (bound to loopback) with few
threads, nginx from deploy/nginx-site.conf (a non-daemon with a temporary
prefix, on a loopback port). Ten clients trickle their headers one byte at
a time. Straight at gunicorn they hold its threads and `/healthz` stalls
(the finding, measured here as the control); through nginx, which buffers
each request before handing it over, `/healthz` answers at once.
"""

from __future__ import annotations

import os
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from bench.nginx_site import deploy_site
from tests import REPO_ROOT
from tests.ops_helpers import free_port, process_env

pytestmark = pytest.mark.slow
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SLOW_CLIENTS = 10
THREADS = 4  # fewer threads than slow clients, as in any real deployment
HEALTHY_SECONDS = 1.0


@contextmanager
def deploy_gunicorn(database_url: str, upstream):
    """gunicorn -c deploy/gunicorn.conf.py with one worker of THREADS threads, on a loopback port."""
    port = free_port()
    env = process_env(
        database_url,
        upstream,
        PUBLIC_BASE_URL="http://127.0.0.1:8000",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS=1,
        GUNICORN_THREADS=THREADS,
        TRUSTED_PROXY_HOPS=1,
    )
    log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "wsgi:create_app()"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/healthz", server, log)
        yield port
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(20)
        log.close()


@contextmanager
def deploy_nginx(app_port: int, cache_seconds: int | None = None):
    """nginx with deploy/nginx-site.conf pointed at `app_port`, listening on a loopback port.

    `cache_seconds`: the documents' cache time in place of the file's (a test that waits for it to pass).
    """
    assert Path(NGINX).exists(), "nginx is not installed: run scripts/install_nginx.sh (make test does)"
    port = free_port()
    prefix = Path(tempfile.mkdtemp(prefix="mirror-nginx-"))
    (prefix / "site.conf").write_text(deploy_site(app_port, port, prefix / "cache", cache_seconds))
    user = "user root;" if os.geteuid() == 0 else ""
    (prefix / "nginx.conf").write_text(f"""
{user}
worker_processes 1;
error_log {prefix}/error.log warn;
pid {prefix}/nginx.pid;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/site.conf;
}}
""")
    server = subprocess.Popen(
        [NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/healthz", server, None, prefix / "error.log")
        yield port
    finally:
        server.send_signal(signal.SIGQUIT)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)
        shutil.rmtree(prefix, ignore_errors=True)


def _wait_for(url: str, server: subprocess.Popen, log, error_log: Path | None = None) -> None:
    deadline = time.time() + 30
    while True:
        try:
            if requests.get(url, timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        if time.time() > deadline or server.poll() is not None:
            detail = ""
            if log is not None:
                log.seek(0)
                detail = log.read().decode()[-2000:]
            elif error_log is not None and error_log.exists():
                detail = error_log.read_text()[-2000:]
            raise AssertionError(f"{url} did not come up: {detail}")
        time.sleep(0.2)


@contextmanager
def trickling_clients(port: int, count: int = SLOW_CLIENTS, interval: float = 0.5):
    """`count` connections sending their request headers one byte every `interval` seconds, never finishing."""
    stop = threading.Event()
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"z" * 10_000

    def trickle() -> None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
                for byte in request:
                    if stop.is_set():
                        return
                    connection.sendall(bytes([byte]))
                    stop.wait(interval)
        except OSError:
            pass  # the server hung up on us: exactly what a timeout should do

    threads = [threading.Thread(target=trickle, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    time.sleep(1.5)  # every client connected and a few bytes in
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join(5)


def healthz_seconds(port: int, samples: int = 5) -> float:
    """The slowest of `samples` /healthz answers (a timeout counts as its full length)."""
    slowest = 0.0
    for _ in range(samples):
        started = time.perf_counter()
        try:
            assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=4).status_code == 200
        except requests.Timeout:
            return 4.0
        slowest = max(slowest, time.perf_counter() - started)
    return slowest


def test_slow_clients_through_the_proxy_do_not_stall_healthz(database_url, upstream):
    with deploy_gunicorn(database_url, upstream) as app_port:
        # The control: straight at gunicorn, ten trickling clients take every thread.
        with trickling_clients(app_port):
            direct = healthz_seconds(app_port, samples=1)
        assert direct > 2 * HEALTHY_SECONDS, f"the control did not stall ({direct:.2f}s): the test proves nothing"
        with deploy_nginx(app_port) as proxy_port:
            assert healthz_seconds(proxy_port) < HEALTHY_SECONDS  # unloaded
            with trickling_clients(proxy_port):
                proxied = healthz_seconds(proxy_port, samples=10)
                page = requests.get(f"http://127.0.0.1:{proxy_port}/v1/businesses", timeout=4)
            assert proxied < HEALTHY_SECONDS, f"/healthz took {proxied:.2f}s behind nginx with slow clients"
            assert page.status_code == 200


def test_the_deploy_config_binds_gunicorn_to_loopback_with_timeouts(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))  # the shared file would set it for this process
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    settings = runpy.run_path(str(REPO_ROOT / "deploy" / "gunicorn.conf.py"))  # as gunicorn reads it
    assert settings["bind"] == ["127.0.0.1:8000"]
    assert settings["timeout"] > 0 and settings["graceful_timeout"] > 0 and settings["keepalive"] > 0
    assert callable(settings["child_exit"]) and "%(h)s" not in settings["access_log_format"]  # the shared file's
    site = (REPO_ROOT / "deploy" / "nginx-site.conf").read_text()
    for directive in (
        "proxy_set_header Host $host;",
        "X-Forwarded-For $proxy_add_x_forwarded_for;",
        "X-Forwarded-Proto $scheme;",
        "proxy_request_buffering on;",
        "client_header_timeout",
        "client_body_timeout",
        "send_timeout",
    ):
        assert directive in site, directive
