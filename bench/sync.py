"""Sync benchmark (issue 2): a full sync of 2,000 companies x 100 products from
the demo upstream into PostgreSQL, then an incremental sync after 1% of the
products changed. A benchmark, not a test: it prints figures and checks them
against the targets (full <= 60 s, incremental <= 5% of full, peak RSS of the
sync process <= 300 MB).

    make bench-sync            # or: .venv/bin/python bench/sync.py [--companies N --products M]

The demo upstream and each sync run in their own processes, so the RSS
figure is the sync's alone (os.wait4 reports the child's peak).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from mirror.config import normalise_database_url  # noqa: E402
from mirror.migrate import upgrade  # noqa: E402

TOKEN = "bench-token"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_database(server_url: str, name: str) -> str:
    """Drop and create a scratch database on the server; return its URL."""
    server = make_url(normalise_database_url(server_url))
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = server.set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    return url


def start_upstream(companies: int, products: int, port: int) -> subprocess.Popen:
    """The demo upstream in its own process; returns once it answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "demo.server", "--port", str(port), "--companies", str(companies),
         "--products", str(products), "--seed", "1", "--token", TOKEN, "--quiet"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            _admin(port, "GET", "/_demo/stats")
            return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the demo upstream did not start")


def _admin(port: int, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method, data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"{}")


def timed_sync(database_url: str, port: int, *args: str) -> tuple[float, float, str]:
    """Run `flask sync ARGS` in a child process: (run seconds, peak RSS MB, output).

    The seconds are the run's own (from its summary line), so interpreter
    start-up and imports do not blur the incremental/full ratio.
    """
    env = {**os.environ, "DATABASE_URL": database_url, "UPSTREAM_URL": f"http://127.0.0.1:{port}",
           "UPSTREAM_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "flask", "--app", "wsgi", "sync", *args], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"sync failed:\n{output}")
    match = re.search(r": success in ([0-9.]+)s", output)
    return (float(match.group(1)) if match else wall), usage.ru_maxrss / 1024, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=2000)
    parser.add_argument("--products", type=int, default=100)
    parser.add_argument("--database", default=os.environ.get("BENCH_DATABASE_URL", "postgresql://root@127.0.0.1:5432/postgres"))
    args = parser.parse_args()
    url = fresh_database(args.database, "mirror_bench_sync")
    port = _free_port()
    upstream = start_upstream(args.companies, args.products, port)
    try:
        total = args.companies * args.products
        full_s, full_rss, _ = timed_sync(url, port, "--full")
        changed = len(_admin(port, "POST", "/_demo/mutate", {"fraction": 0.01, "seed": 2}).get("changed", []))
        incr_s, incr_rss, output = timed_sync(url, port)
    finally:
        upstream.terminate()
        upstream.wait(30)
    report(args, total, full_s, full_rss, incr_s, incr_rss, changed, output)


def report(args, total, full_s, full_rss, incr_s, incr_rss, changed, output) -> None:
    """Print the figures and the verdict on each target."""
    ratio = incr_s / full_s
    peak = max(full_rss, incr_rss)
    rows = [
        ("machine", f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, PostgreSQL"),
        ("catalog", f"{args.companies} companies x {args.products} products = {total:,}"),
        ("full sync", f"{full_s:.1f} s, {total / full_s:,.0f} products/s (target <= 60 s: {'met' if full_s <= 60 else 'MISSED'})"),
        ("incremental (1% changed)", f"{incr_s:.2f} s = {ratio:.1%} of full (target <= 5%: {'met' if ratio <= 0.05 else 'MISSED'})"),
        ("peak RSS of the sync", f"{peak:.0f} MB (full {full_rss:.0f}, incremental {incr_rss:.0f}; target <= 300 MB: "
                                 f"{'met' if peak <= 300 else 'MISSED'})"),
    ]
    for name, value in rows:
        print(f"{name:<26} {value}")
    print("\nincremental run summary:\n" + output.strip())
    lines = ["| measure | figure |", "| --- | --- |", *(f"| {n} | {v} |" for n, v in rows)]
    (ROOT / "bench" / "results-sync.md").write_text("# bench/sync.py — latest run\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
