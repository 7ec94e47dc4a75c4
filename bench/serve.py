"""Serving benchmark (issue 7): the app against the framework ceiling and the official MCP SDK.

    make bench-serve            # or: .venv/bin/python bench/serve.py [--reuse] [--only ROW] [--profile ROW]

1. Loads the demo catalog (10,000 companies x 20 products, all of them
   businesses in the feed; clean data) and one company with 100,000
   products (bench/bounds.py) into a scratch Postgres database,
   `mirror_bench_serve`, with a real full sync.
2. Starts, each on its own loopback port and with the same worker budget:
   - the app: `gunicorn -w 2 -k gthread --threads 4 'wsgi:create_app()'`;
   - the ceiling: bench/ceiling_app.py (a minimal Flask app returning a real
     pricing.json body as a fixed string) under the identical gunicorn command;
   - the peer: bench/peer_fastmcp.py (mcp 2.3.0 MCPServer, stateless JSON
     mode, the same search over the same database) under `uvicorn --workers 2`;
   - nginx (Debian's nginx-light, 2 worker processes) serving that
     pricing.json as a static file, for scale;
   - nginx running deploy/nginx-site.conf itself in front of the app (the
     documents' cache, docs/operations.md), for the "nginx cache" rows.
3. Measures each endpoint with `wrk` (Debian's; installed with apt-get when
   missing) from a separate process: 1 thread, 16 keep-alive connections.
   After a warm-up, the peak is `--slices` short runs, each right after a
   run of the ceiling (and, for MCP rows, the peer) of the same length:
   rps summed, p50/p99 of the median run, and ratios between runs
   interleaved in the same minutes, so a shared machine's load moves both
   sides of a ratio alike. Then the same endpoint again with each
   connection pausing between requests (wrk's `delay()`), so the offered
   load is about half the peak, for the p99 at half load.
   Warm rows cycle through 100 companies (every request a render-cache
   hit); the cold rows name a different company on every request, uniformly
   over all 10,000 (the cache holds 1,000 per worker, so it never helps).
   The cost-bound rows (bench/bounds.py) ask the worst directory question
   and the worst misspelled question, and measure the cold pricing.json
   again while another client floods those questions at one client's rate.
4. Prints one table and writes it, with the machine's description and the
   load average before and after the run, the CPU other processes used
   meanwhile and the time the cores waited for the disk (bench/machine.py),
   to bench/results.md; a run on a busy machine, or one the disk held up,
   says so at the top of the file.

The machine has 2 cores: wrk, the server processes and Postgres share them,
so absolute figures are lower than on a real deployment; the ratios are
measured in the same run, under the same contention, and are what the
targets are about.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from bench import bounds  # noqa: E402
from bench.machine import DISK_SHARE, DiskWaitMeter, QuietMeter  # noqa: E402
from bench.nginx_site import deploy_site  # noqa: E402
from bench.pyspy import print_profile, start_profile  # noqa: E402
from bench.sync import TOKEN as UPSTREAM_TOKEN  # noqa: E402
from bench.sync import _free_port, child_sync, fresh_database, start_upstream  # noqa: E402
from bench.wrk import LoadResult, combine, run_wrk  # noqa: E402

TOKEN = "bench-token"
WORKERS, THREADS = 2, int(os.environ.get("BENCH_THREADS", "4"))  # fixed; the variable is for experiments
GUNICORN = [
    str(ROOT / ".venv" / "bin" / "gunicorn"),
    "-w",
    str(WORKERS),
    "-k",
    "gthread",
    "--threads",
    str(THREADS),
    "--reuse-port",  # both servers: connections spread evenly over the workers (docs/operations.md)
    "--keep-alive",
    "5",
    "--log-level",
    "warning",
]
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
QUERIES = ("air filter", "heat pump", "water heater", "furnace", "merv 13", "tankless", "thermostat", "lennox")
ROTATION = 100  # companies the warm keyed endpoints cycle through (all cached: the cache holds 1,000)
# The app's port is fixed: its PUBLIC_BASE_URL is in the documents the loading sync renders (their format,
# mirror/render/documents.py), so a kept database (--reuse) serves them in the next run too.
APP_PORT = 18780
APP_BASE = f"http://127.0.0.1:{APP_PORT}"
COLD_SEED = 15  # the cold rows' order of companies: shuffled once, the same in every run


@dataclass
class Endpoint:
    """One measured row: a server and the requests wrk cycles through."""

    name: str
    server: str
    requests: list[dict]
    peer_ratio: bool = False
    peak: LoadResult | None = None
    half: LoadResult | None = None
    # The baselines measured interleaved with this row (same minutes, same
    # noise): "ceiling" for every row, "peer" for the MCP rows.
    paired: dict[str, LoadResult] = field(default_factory=dict)
    # The share of the cores' time spent waiting for the disk while the row ran (bench/machine.py).
    disk_share: float = 0.0

    def ratio_to(self, baseline: str) -> float | None:
        """This row's peak rps over the baseline's, measured interleaved."""
        other = self.paired.get(baseline)
        return self.peak.rps / other.rps if other and other.rps else None

    notes: list[str] = field(default_factory=list)
    # Requests one other client sends at bounds.FLOOD_RATE for as long as this row is measured.
    flood: list[dict] = field(default_factory=list)


# --- setup -------------------------------------------------------------------------


def ensure_tools() -> bool:
    """wrk is required (installed from Debian when missing); nginx is optional. True when nginx is there."""
    if shutil.which("wrk") is None:
        _apt_install("wrk")
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install -y wrk")
    if shutil.which("nginx") is None:
        _apt_install("nginx-light")
    return shutil.which("nginx") is not None


def _apt_install(package: str) -> None:
    if os.geteuid() != 0:
        return
    print(f"installing {package} from Debian ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "install", "-y", "-q", package], env=env, stdout=subprocess.DEVNULL, check=False)


def load_catalog(database: str, companies: int, products: int, businesses: int) -> str:
    """A scratch database holding the demo catalog after one full sync; its URL."""
    url = fresh_database(database, "mirror_bench_serve")
    port = _free_port()
    upstream = start_upstream(
        companies, products, port, "--empty-companies", str(businesses - companies), "--messiness", "0"
    )
    try:
        add_large_company(f"http://127.0.0.1:{port}")
        seconds = child_sync(f"http://127.0.0.1:{port}", url, full=True, public_base_url=APP_BASE)["wall"]
        print(
            f"full sync of {businesses + 1:,} companies / {companies * products + bounds.LARGE_PRODUCTS:,} products: "
            f"{seconds:.1f} s",
            flush=True,
        )
    finally:
        upstream.terminate()
        upstream.wait(30)
    return url


def add_large_company(upstream: str) -> None:
    """One more company with bounds.LARGE_PRODUCTS products (the worst misspelled question's catalog)."""
    body = json.dumps({"plugin_key": bounds.LARGE_KEY, "products": bounds.LARGE_PRODUCTS}).encode()
    headers = {"Authorization": f"Bearer {UPSTREAM_TOKEN}", "Content-Type": "application/json"}
    status, _, raw = http(f"{upstream}/_demo/companies", "POST", headers, body)
    if status != 201:
        raise SystemExit(f"could not add the large company: {status} {raw[:200]!r}")


def forget_usage(url: str) -> None:
    """Empty the usage tables a kept database holds from earlier runs.

    Every request of a run writes an invocation row (about 450,000 a run).
    Kept, they piled up run after run (1.5 million rows, 325 MB, after a
    day of runs) and crowded the catalog out of a small page cache, so the
    later runs' cold rows read from the disk. Each run starts from the
    catalog alone, as a fresh load does.
    """
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as connection:
        connection.execute(text("TRUNCATE invocations, source_hits"))
    engine.dispose()


def catalog_facts(url: str) -> dict:
    """Keys to cycle through and the counts the report states."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        in_feed = connection.execute(text("SELECT count(*) FROM companies WHERE in_feed")).scalar_one()
        products = connection.execute(text("SELECT count(*) FROM products")).scalar_one()
        with_catalog = (
            connection.execute(
                text(
                    "SELECT plugin_key FROM companies WHERE is_public AND content_version IS NOT NULL "
                    "AND EXISTS (SELECT 1 FROM offer_groups o WHERE o.plugin_key = companies.plugin_key) "
                    "ORDER BY plugin_key"
                )
            )
            .scalars()
            .all()
        )
        served = (
            connection.execute(
                text(
                    "SELECT code FROM companies, json_array_elements_text(service_postal_codes) AS code "
                    "WHERE in_feed GROUP BY code ORDER BY count(*) DESC, code LIMIT 3"
                )
            )
            .scalars()
            .all()
        )
    engine.dispose()
    large = bounds.LARGE_KEY in with_catalog
    cold = [key for key in with_catalog if key != bounds.LARGE_KEY]
    random.Random(COLD_SEED).shuffle(cold)
    keys = [key for key in with_catalog if key != bounds.LARGE_KEY][:ROTATION]
    return {"in_feed": in_feed, "products": products, "keys": keys, "cold_keys": cold, "zips": served, "large": large}


def wait_until_up(
    url: str, headers: dict | None = None, timeout: float = 60, method: str = "GET", body: bytes | None = None
) -> None:
    """Poll until the URL answers (any HTTP status counts as up)."""
    deadline = time.time() + timeout
    while True:
        try:
            urllib.request.urlopen(
                urllib.request.Request(url, headers=headers or {}, method=method, data=body), timeout=5
            )
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            if time.time() > deadline:
                raise SystemExit(f"{url} did not come up")
            time.sleep(0.3)


def start(stack: ExitStack, command: list[str], env: dict, log: Path) -> subprocess.Popen:
    """A server process, stopped (by its own pid) when the run ends."""
    handle = open(log, "ab")  # noqa: SIM115 - closed by the stack
    stack.callback(handle.close)
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=handle, stderr=handle)

    def stop() -> None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()

    stack.callback(stop)
    return process


def _port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def publish_documents(database_url: str) -> None:
    """Render the documents a kept database lacks in this checkout's format (what the next sync would do)."""
    from wsgi import create_app

    # The app's own documents (its surfaces register theirs), in the format the served app reads.
    mirror = create_app({key: value for key, value in app_env(database_url).items() if key != "PYTHONPATH"}).extensions[
        "mirror"
    ]
    try:
        started = time.perf_counter()
        with mirror.WriterSession() as session:
            rendered = mirror.publish(session)
            session.commit()
        print(f"documents rendered for {rendered:,} companies: {time.perf_counter() - started:.1f} s", flush=True)
    finally:
        mirror.dispose()


def app_env(database_url: str) -> dict:
    """The app's configuration for the run.

    The rate limiter stays in the path (every keyed request is counted) but
    with budgets wrk cannot reach; per second, because the moving window
    keeps one timestamp per request for the whole window.
    """
    return {
        "DATABASE_URL": database_url,
        "PUBLIC_BASE_URL": APP_BASE,
        "SCHEDULER_ENABLED": "false",
        "RATE_LIMIT_PER_COMPANY": "100000/second",
        "RATE_LIMIT_PER_CLIENT": "100000/second",
        "PYTHONPATH": str(ROOT),
    }


def _nginx_main(directory: Path, http_body: str) -> Path:
    """A throw-away nginx main configuration in `directory` (its pid, logs and temp files there) around `http_body`."""
    config = directory / "nginx.conf"
    config.write_text(f"""
worker_processes {WORKERS};
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log warn;
user root;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {directory}/tmp; proxy_temp_path {directory}/tmp; fastcgi_temp_path {directory}/tmp;
    uwsgi_temp_path {directory}/tmp; scgi_temp_path {directory}/tmp;
{http_body}
}}
""")
    (directory / "tmp").mkdir(exist_ok=True)
    return config


def nginx_config(directory: Path, port: int) -> Path:
    """nginx serving `directory`/www on a loopback port."""
    return _nginx_main(
        directory,
        f"""    types {{ application/json json; }}
    server {{
        listen 127.0.0.1:{port};
        root {directory}/www;
        etag on;
        location / {{ add_header Cache-Control "public, max-age=300"; }}
    }}""",
    )


def cached_nginx_config(directory: Path, port: int, app_port: int) -> Path:
    """nginx running deploy/nginx-site.conf (the documents' cache in front of the app), beside the static one."""
    folder = directory / "cached"
    folder.mkdir()
    (folder / "site.conf").write_text(deploy_site(app_port, port, folder / "cache"))
    return _nginx_main(folder, f"    include {folder}/site.conf;")


# --- what is measured ----------------------------------------------------------------


def http(url: str, method: str = "GET", headers: dict | None = None, body: bytes | None = None):
    """(status, headers, body) without following redirects."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(
            method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body, headers=headers or {}
        )
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def mcp_call(path: str, query: str, request_id: int = 1) -> dict:
    """A tools/call search_catalog request for wrk."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "search_catalog", "arguments": {"query": query}},
    }
    return {"method": "POST", "path": path, "headers": MCP_HEADERS, "body": json.dumps(body)}


def check_mcp(base: str, request: dict) -> None:
    """The MCP request succeeds with results, on our server and on the peer alike."""
    status, _, raw = http(base + request["path"], "POST", request["headers"], request["body"].encode())
    result = json.loads(raw).get("result", {}) if status == 200 else {}
    if status != 200 or result.get("isError") or not result.get("structuredContent", {}).get("results"):
        raise SystemExit(f"MCP search_catalog failed on {base}: {status} {raw[:300]!r}")


def keyed_endpoints(app: str, keys: list[str]) -> list[Endpoint]:
    """pricing.json (200 and 304), JSON-LD, the hosted page and the quote redirect."""
    etags = {}
    for key in keys:
        status, headers, _ = http(f"{app}/companies/{key}/pricing.json")
        assert status == 200, (key, status)
        etags[key] = headers["ETag"]
    redirecting = [k for k in keys if http(f"{app}/companies/{k}/quote")[0] == 302]
    if not redirecting:
        raise SystemExit("no company in the rotation has a quote funnel to redirect to")
    return [
        Endpoint("pricing.json (200)", "app", [{"path": f"/companies/{k}/pricing.json"} for k in keys]),
        Endpoint(
            "pricing.json (304)",
            "app",
            [{"path": f"/companies/{k}/pricing.json", "headers": {"If-None-Match": etags[k]}} for k in keys],
        ),
        Endpoint("JSON-LD", "app", [{"path": f"/companies/{k}.jsonld"} for k in keys]),
        Endpoint("hosted pricing page", "app", [{"path": f"/companies/{k}/pricing"} for k in keys]),
        Endpoint(
            "quote redirect (302)",
            "app",
            [{"path": f"/companies/{k}/quote"} for k in redirecting],
            notes=[f"{len(redirecting)} companies with a funnel"],
        ),
    ]


def cold_endpoints(cold_keys: list[str]) -> list[Endpoint]:
    """Every request a different company, over every company with a catalog: the render cache never helps."""
    note = [f"{len(cold_keys):,} companies, each request a new one"]
    return [
        Endpoint("cold pricing.json", "app", [{"path": f"/companies/{k}/pricing.json"} for k in cold_keys], notes=note),
        Endpoint("cold JSON-LD", "app", [{"path": f"/companies/{k}.jsonld"} for k in cold_keys], notes=note),
        Endpoint(
            "cold hosted pricing page", "app", [{"path": f"/companies/{k}/pricing"} for k in cold_keys], notes=note
        ),
        Endpoint(
            "cold MCP search_catalog",
            "app",
            [mcp_call(f"/companies/{k}/mcp", QUERIES[n % len(QUERIES)], n) for n, k in enumerate(cold_keys)],
            peer_ratio=True,
            notes=note,
        ),
    ]


def bound_endpoints(facts: dict) -> list[Endpoint]:
    """The worst questions (bench/bounds.py), and the cold pricing.json again while one client floods them."""
    asked = bounds.directory_questions(facts["zips"])
    rows = [
        Endpoint(
            "directory /ask, worst question",
            "app",
            [bounds.ask_request(q) for q in asked],
            notes=[f"{len(asked)} orders of {len(bounds.TRADES)} trades near {len(facts['zips'])} ZIPs"],
        ),
        Endpoint(
            "directory search_businesses, worst question",
            "app",
            [
                bounds.tool_request("/mcp", "search_businesses", {"query": q}, n, MCP_HEADERS)
                for n, q in enumerate(asked)
            ],
        ),
    ]
    flood = list(rows[0].requests)
    if facts["large"]:
        misspelled = bounds.misspelled_questions(2000)
        path = f"/companies/{bounds.LARGE_KEY}/mcp"
        rows.append(
            Endpoint(
                "search_catalog misspelled, 100,000 products",
                "app",
                [
                    bounds.tool_request(path, "search_catalog", {"query": q}, n, MCP_HEADERS)
                    for n, q in enumerate(misspelled)
                ],
                notes=[f"{len(misspelled):,} distinct questions of {bounds.MISSPELLED_LENGTH} characters"],
            )
        )
        flood = [item for pair in zip(flood, rows[-1].requests) for item in pair]
    cold = cold_endpoints(facts["cold_keys"])[0]
    rows.append(
        Endpoint(
            "cold pricing.json, one client flooding",
            "app",
            cold.requests,
            notes=[f"another client sends the worst questions at {bounds.FLOOD_RATE:g}/s"],
            flood=flood,
        )
    )
    return rows


def all_endpoints(
    app: str, peer: str, keys: list[str], in_feed: int, with_nginx: bool, cold_keys: list[str]
) -> list[Endpoint]:
    """Every row of the table, baselines first."""
    last_page = max(1, -(-in_feed // 50))
    mcp_path = f"/companies/{keys[0]}/mcp"
    repeated = [mcp_call(mcp_path, q, n) for n, q in enumerate(QUERIES)]
    distinct = [mcp_call(mcp_path, f"{QUERIES[n % len(QUERIES)]} {n}", n) for n in range(5000)]
    peer_calls = [mcp_call("/mcp", q, n) for n, q in enumerate(QUERIES)]
    for base, request in ((app, repeated[0]), (peer, peer_calls[0])):
        check_mcp(base, request)
    rows = [
        Endpoint(
            "ceiling: minimal Flask, fixed JSON", "ceiling", [{"path": f"/companies/{k}/pricing.json"} for k in keys]
        )
    ]
    if with_nginx:
        rows.append(Endpoint("nginx: static pricing.json", "nginx", [{"path": "/pricing.json"}]))
    rows.append(Endpoint("peer: MCPServer search_catalog", "peer", peer_calls))
    rows += keyed_endpoints(app, keys)
    rows += [
        Endpoint("feed, first page", "app", [{"path": "/v1/businesses?page=1&page_size=50"}]),
        Endpoint(f"feed, last page ({last_page})", "app", [{"path": f"/v1/businesses?page={last_page}&page_size=50"}]),
        Endpoint(
            "MCP tools/call search_catalog",
            "app",
            repeated,
            peer_ratio=True,
            notes=[f"{len(QUERIES)} queries repeated: cached results"],
        ),
        Endpoint(
            "MCP search_catalog, uncached",
            "app",
            distinct,
            peer_ratio=True,
            notes=["5,000 distinct queries: every call searches"],
        ),
    ]
    rows += cold_endpoints(cold_keys)
    if with_nginx:
        rows += cached_endpoints(keys, cold_keys)
    return rows


def cached_endpoints(keys: list[str], cold_keys: list[str]) -> list[Endpoint]:
    """pricing.json through deploy/nginx-site.conf's documents' cache (docs/operations.md, "The cache in front")."""
    return [
        Endpoint(
            "nginx cache: pricing.json",
            "cached",
            [{"path": f"/companies/{k}/pricing.json"} for k in keys],
            notes=[f"{len(keys)} companies in turn: each a stored copy after the first"],
        ),
        Endpoint(
            "nginx cache: cold pricing.json",
            "cached",
            [{"path": f"/companies/{k}/pricing.json"} for k in cold_keys],
            notes=[f"{len(cold_keys):,} companies, each request a new one: a miss, passed to the app"],
        ),
    ]


def measure(
    endpoint: Endpoint, bases: dict[str, str], args, script: str, app_pid: int, baselines: dict[str, list[dict]]
) -> None:
    """Warm up; the peak, interleaved with the baselines; then the p99 at about half the peak rate.

    The peak is measured in `--slices` short runs, each preceded by a run of
    the ceiling (and, for MCP rows, the peer) of the same length, so both
    sides of every ratio sample the same minutes of a shared machine.
    """
    wanted = (
        ["ceiling"] + (["peer"] if endpoint.peer_ratio else []) if endpoint.server not in ("ceiling", "peer") else []
    )
    with ExitStack() as stack:
        flooded = (
            stack.enter_context(bounds.flood(bases[endpoint.server], endpoint.flood, http)) if endpoint.flood else None
        )
        _measure(endpoint, bases, args, script, app_pid, baselines, wanted)
    if flooded is not None:
        endpoint.notes.append("its answers: " + ", ".join(f"{n} x {status}" for status, n in sorted(flooded.items())))


def _measure(endpoint: Endpoint, bases: dict[str, str], args, script: str, app_pid: int, baselines, wanted) -> None:
    base = bases[endpoint.server]
    common = {"connections": args.connections, "script_path": script}
    disk = DiskWaitMeter()
    run_wrk(base, endpoint.requests, seconds=args.warmup, **common)
    profiler = (
        start_profile(app_pid, args.slices * args.slice * (1 + len(wanted)), script + ".prof")
        if args.profile and args.profile in endpoint.name
        else None
    )
    runs: dict[str, list[LoadResult]] = {name: [] for name in ["row", *wanted]}
    for _ in range(args.slices):
        for name in wanted:
            runs[name].append(run_wrk(bases[name], baselines[name], seconds=args.slice, **common))
        runs["row"].append(run_wrk(base, endpoint.requests, seconds=args.slice, **common))
    endpoint.peak = combine(runs.pop("row"))
    endpoint.paired = {name: combine(results) for name, results in runs.items()}
    if profiler is not None:
        print_profile(profiler, script + ".prof")
    target = endpoint.peak.rps / 2
    delay = args.connections * 1000 / target - endpoint.peak.mean_ms / 2
    endpoint.half = run_wrk(base, endpoint.requests, seconds=args.duration, delay_ms=delay, **common)
    if endpoint.half.rps < 0.85 * target:  # one correction for the time the requests themselves took
        delay -= endpoint.half.mean_ms
        endpoint.half = run_wrk(base, endpoint.requests, seconds=args.duration, delay_ms=delay, **common)
    endpoint.disk_share = disk.share()
    print(
        f"  {endpoint.name:<40} {endpoint.peak.rps:>8,.0f} rps  p50 {endpoint.peak.p50_ms:6.2f} ms  "
        f"p99 {endpoint.peak.p99_ms:6.2f} ms | half load {endpoint.half.rps:,.0f} rps: p99 "
        f"{endpoint.half.p99_ms:.2f} ms | disk wait {endpoint.disk_share:.0%}",
        flush=True,
    )


# --- report ------------------------------------------------------------------------------


def machine() -> str:
    """CPU, cores, memory and the versions that shape the figures."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown CPU",
    )
    memory_kb = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )

    def version(command: list[str]) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=10)
            return (done.stdout or done.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "n/a"

    return (
        f"{cpu}, {os.cpu_count()} cores, {memory_kb / 1024 / 1024:.0f} GB RAM; Linux {platform.release()}; "
        f"Python {platform.python_version()}; {version(['psql', '--version'])}; "
        f"{version([GUNICORN[0], '--version'])}; {version(['wrk', '-v'])}; {version(['nginx', '-v'])}"
    )


def table(rows: list[Endpoint]) -> list[str]:
    """The markdown table: one line per endpoint."""
    lines = [
        "| endpoint | rps | p50 ms | p99 ms | vs ceiling (its rps alongside) | vs peer (its rps alongside) "
        "| p99 ms at ~half rps (achieved rps) | disk wait | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        peak, half = row.peak, row.half
        errors = peak.socket_errors + peak.bad_statuses + half.socket_errors + half.bad_statuses
        name = row.name + (f" ({'; '.join(row.notes)})" if row.notes else "")
        lines.append(
            f"| {name} | {peak.rps:,.0f} | {peak.p50_ms:.2f} | {peak.p99_ms:.2f} | "
            f"{_paired(row, 'ceiling')} | {_paired(row, 'peer')} | "
            f"{half.p99_ms:.2f} ({half.rps:,.0f}) | {row.disk_share:.0%} | {errors} |"
        )
    return lines


def _paired(row: Endpoint, baseline: str) -> str:
    share = row.ratio_to(baseline)
    return "–" if share is None else f"{share:.2f}x ({row.paired[baseline].rps:,.0f})"


# Issue 33's share of the ceiling for each warm row (issue 23 asked 0.5x of all five).
WARM_ROWS = {
    "pricing.json (200)": 0.7,
    "pricing.json (304)": 0.7,
    "JSON-LD": 0.7,
    "hosted pricing page": 0.6,
    "quote redirect (302)": 0.6,
}
# Each cold row and its warm row: a cold row at least COLD_SHARE of its warm row (issue 33; issue 23 asked 0.5x).
COLD_PAIRS = (
    ("cold pricing.json", "pricing.json (200)"),
    ("cold JSON-LD", "JSON-LD"),
    ("cold hosted pricing page", "hosted pricing page"),
    ("cold MCP search_catalog", "MCP tools/call search_catalog"),
)
COLD_SHARE = 0.8
FEED_SHARE = 0.4  # the feed's first and last page, of the ceiling (issue 33; issue 15 asked 0.3x)
# Issue 33: the documents' and the feed's rows, warm and cold, within this p99 at half load.
DOCUMENT_P99_MS = 20
_DOCUMENT_ROWS = (*WARM_ROWS, *(cold for cold, _ in COLD_PAIRS[:3]), "feed, first page", "feed, last page")


def _is_row(name: str, row: str) -> bool:
    """Whether the measured row `name` is `row`, told apart by what follows it: its details in parentheses
    ("cold pricing.json (10,004 companies ...)"), never another row of that start ("..., one client flooding")."""
    return name == row or name.startswith(f"{row} (")


def verdicts(rows: list[Endpoint]) -> list[str]:
    """Each target (issue 33's for the warm, cold and feed rows, issue 24's for new searches, issue 15's for the
    rest): met or missed, and by how much (rows not measured are left out).

    A cold row is compared with its warm row through their ceiling shares
    (each measured interleaved with the ceiling), so the minutes between the
    two rows, and the load that moved in them, do not enter the ratio.
    """

    def row(prefix: str) -> Endpoint | None:
        return next((r for r in rows if r.name.startswith(prefix)), None)

    lines = []
    for name, target in WARM_ROWS.items():
        if row(name) and row(name).ratio_to("ceiling"):
            share = row(name).ratio_to("ceiling")
            lines.append(_verdict(f"warm {name} >= {target:g}x ceiling rps", share >= target, f"{share:.2f}x"))
    for cold_name, warm_name in COLD_PAIRS:
        cold, warm = row(cold_name), row(warm_name)
        if cold and warm and cold.ratio_to("ceiling") and warm.ratio_to("ceiling"):
            share = cold.ratio_to("ceiling") / warm.ratio_to("ceiling")
            lines.append(
                _verdict(
                    f"{cold_name} >= {COLD_SHARE:g}x the same row warm",
                    share >= COLD_SHARE,
                    f"{share:.2f}x ({cold.ratio_to('ceiling'):.2f}x vs {warm.ratio_to('ceiling'):.2f}x of the ceiling)",
                )
            )
    for name in ("feed, first", "feed, last"):
        if row(name) and row(name).ratio_to("ceiling"):
            share = row(name).ratio_to("ceiling")
            lines.append(
                _verdict(f"{row(name).name} >= {FEED_SHARE:g}x ceiling rps", share >= FEED_SHARE, f"{share:.2f}x")
            )
    if row("feed, first") and row("feed, last"):
        first, last = row("feed, first").peak.p99_ms, row("feed, last").peak.p99_ms
        lines.append(
            _verdict(
                "feed last page p99 <= 1.5x first page p99",
                last <= 1.5 * first,
                f"{last:.2f} ms vs {first:.2f} ms = {last / first:.2f}x",
            )
        )
    if row("MCP tools/call") and row("MCP tools/call").ratio_to("peer"):
        mcp = row("MCP tools/call").ratio_to("peer")
        lines.append(_verdict("MCP search_catalog (repeated queries) >= 2x peer rps", mcp >= 2, f"{mcp:.2f}x"))
    if row("MCP search_catalog, uncached") and row("MCP search_catalog, uncached").ratio_to("peer"):
        fresh = row("MCP search_catalog, uncached").ratio_to("peer")
        lines.append(_verdict("MCP search_catalog, every query new, >= 3x peer rps", fresh >= 3, f"{fresh:.2f}x"))
        lines.append(_verdict("(issue 15's older aim: the same >= 4x peer rps)", fresh >= 4, f"{fresh:.2f}x"))
    lines += _bound_verdicts(row)
    cached, static = row("nginx cache: pricing.json"), row("nginx: static")
    if cached and static:
        share = cached.peak.rps / static.peak.rps
        lines.append(
            _verdict(
                "nginx cache: pricing.json >= 0.5x nginx serving the file (rows measured minutes apart)",
                share >= 0.5,
                f"{share:.2f}x ({cached.peak.rps:,.0f} vs {static.peak.rps:,.0f} rps)",
            )
        )
    documents = [r for r in rows if any(_is_row(r.name, name) for name in _DOCUMENT_ROWS)]
    if documents:
        worst = max(documents, key=lambda r: r.half.p99_ms)
        lines.append(
            _verdict(
                f"p99 < {DOCUMENT_P99_MS:g} ms at half peak rps, every document and feed row, warm and cold",
                worst.half.p99_ms < DOCUMENT_P99_MS,
                f"worst {worst.name}: {worst.half.p99_ms:.2f} ms",
            )
        )
    ours = [r for r in rows if r.server == "app"]
    if ours:
        worst = max(ours, key=lambda r: r.half.p99_ms)
        lines.append(
            _verdict(
                "p99 < 50 ms at half peak rps, every endpoint",
                worst.half.p99_ms < 50,
                f"worst {worst.name}: {worst.half.p99_ms:.2f} ms",
            )
        )
    return lines


def _bound_verdicts(row) -> list[str]:
    """Issue 30's targets: the worst questions within 100 ms p99 at half load; pricing.json beside a flood
    within 2x its quiet p99 at half load."""
    lines = []
    for name in ("directory /ask, worst", "directory search_businesses, worst", "search_catalog misspelled"):
        if row(name):
            p99 = row(name).half.p99_ms
            lines.append(_verdict(f"{row(name).name}: p99 <= 100 ms at half load", p99 <= 100, f"{p99:.2f} ms"))
    flooded, quiet = row("cold pricing.json, one client"), row("cold pricing.json")
    if flooded and quiet and flooded is not quiet:
        ratio = flooded.half.p99_ms / quiet.half.p99_ms
        lines.append(
            _verdict(
                "cold pricing.json p99 at half load, one client flooding, <= 2x the quiet row's",
                ratio <= 2,
                f"{flooded.half.p99_ms:.2f} ms vs {quiet.half.p99_ms:.2f} ms = {ratio:.2f}x",
            )
        )
    return lines


def _verdict(target: str, met: bool, figure: str) -> str:
    return f"- {target}: **{'met' if met else 'MISSED'}** ({figure})"


def load_lines(load: dict) -> list[str]:
    """The load average before and after the run, what other processes used, and a warning when that was much."""
    cores = os.cpu_count() or 1
    before, after, quiet = load["before"], load["after"], load["quiet"]
    text = (
        f"{quiet.describe()} Load average (1/5/15 min) before the run: {before[0]:.2f} / {before[1]:.2f} / "
        f"{before[2]:.2f}; after: {after[0]:.2f} / {after[1]:.2f} / {after[2]:.2f} ({cores} cores; the benchmark's "
        "own wrk, servers and Postgres raise it)."
    )
    warnings = [quiet.disk_warning(), ""] if quiet.disk_bound else []
    if quiet.busy:
        warnings += [
            f"> **Warning: the machine was busy.** Other processes used {quiet.share:.0%} of the cores beside the "
            "benchmark. Absolute figures are not comparable with a quiet run; the ratios, measured interleaved, are "
            "less affected but not immune. Re-run on a quiet machine before quoting these numbers.",
            "",
        ]
    return [*warnings, text]


def write_report(rows: list[Endpoint], args, facts: dict) -> None:
    """Print the table and write it to `args.output` (bench/results.md unless told)."""
    lines = table(rows)
    targets = verdicts(rows)
    loads = load_lines(facts["load"])
    held_up = [row.name for row in rows if row.disk_share > DISK_SHARE]
    if held_up:
        loads += [
            "",
            f"> **Warning: the disk held these rows up** (the cores waited for it more than {DISK_SHARE:.0%} of "
            f"the row's time; the table's disk-wait column): {', '.join(held_up)}. Postgres read pages the page "
            "cache could not keep; their rates and tails say more about the disk than about the code.",
        ]
    print("\n" + "\n".join(loads) + "\n\n" + "\n".join(lines) + "\n\n" + "\n".join(targets))
    body = [
        "# bench/serve.py — latest run",
        "",
        *loads,
        "",
        f"Machine: {machine()}.",
        "",
        f"Data: {facts['in_feed']:,} businesses in the feed, {facts['products']:,} products "
        f"({args.companies:,} companies x {args.products}). Warm keyed rows cycle through {len(facts['keys'])} "
        f"companies (render-cache hits); cold rows name a different company on every request, uniformly over "
        f"{len(facts['cold_keys']):,} companies (the cache holds 1,000 per worker, so it never helps).",
        "",
        f"Servers (same worker budget): app and ceiling `gunicorn -w {WORKERS} -k gthread --threads {THREADS}`; "
        f"peer `uvicorn --workers {WORKERS}`; nginx `worker_processes {WORKERS}`. Load: `wrk -t1 -c{args.connections}`, "
        f"{args.warmup:g} s warm-up, then {args.slices} runs of {args.slice:g} s per row, each right after a run of "
        "the ceiling (and, for MCP rows, the peer) of the same length: rps is summed over the runs, p50/p99 are the "
        "median run's, and each ratio compares runs interleaved in the same minutes of a shared machine. The "
        f"half-load column re-runs each row for {args.duration:g} s with per-connection pauses (wrk `delay()`) aiming "
        "at half its peak rate. wrk, the servers and Postgres share the machine's cores.",
        "",
        *lines,
        "",
        "## Targets (issue 33 for the documents, the feed and their tails; issues 23, 24 and 30; peer and tail from 15)",
        "",
        *targets,
        "",
    ]
    Path(args.output).write_text("\n".join(body))


# --- the run ---------------------------------------------------------------------------


def start_servers(stack: ExitStack, url: str, key: str, work: Path, nginx: bool) -> tuple[dict[str, str], int]:
    """Start the app, then the ceiling, the peer and nginx with the app's real pricing.json.

    Returns the base URLs by name and the app's gunicorn master pid.
    """
    ports = {name: _free_port() for name in ("ceiling", "peer", "nginx", "cached")} | {"app": APP_PORT}
    if not _port_is_free(APP_PORT):
        raise SystemExit(f"bench/serve.py: port {APP_PORT} (the app's, fixed: APP_BASE) is in use; free it first")
    bases = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    app = start(
        stack,
        [*GUNICORN, "-b", f"127.0.0.1:{ports['app']}", "wsgi:create_app()"],
        app_env(url),
        work / "app.log",
    )
    wait_until_up(bases["app"] + "/")
    status, _, body = http(f"{bases['app']}/companies/{key}/pricing.json")
    assert status == 200, status
    (work / "body.json").write_bytes(body)
    start(
        stack,
        [*GUNICORN, "-b", f"127.0.0.1:{ports['ceiling']}", "bench.ceiling_app:app"],
        {"CEILING_BODY_FILE": str(work / "body.json"), "PYTHONPATH": str(ROOT)},
        work / "ceiling.log",
    )
    start(
        stack,
        [
            str(ROOT / ".venv" / "bin" / "uvicorn"),
            "--workers",
            str(WORKERS),
            "--host",
            "127.0.0.1",
            "--port",
            str(ports["peer"]),
            "--log-level",
            "warning",
            "--no-access-log",
            "bench.peer_fastmcp:app",
        ],
        {**app_env(url), "PUBLIC_BASE_URL": bases["peer"], "PEER_COMPANY_KEY": key},
        work / "peer.log",
    )
    if nginx:
        (work / "www").mkdir()
        (work / "www" / "pricing.json").write_bytes(body)
        start(stack, ["nginx", "-p", str(work), "-c", str(nginx_config(work, ports["nginx"]))], {}, work / "nginx.log")
        cached = cached_nginx_config(work, ports["cached"], ports["app"])
        start(stack, ["nginx", "-p", str(cached.parent), "-c", str(cached)], {}, work / "cached.log")
    for name in ("ceiling",) + (("nginx", "cached") if nginx else ()):
        wait_until_up(bases[name] + "/")
    wait_until_up(bases["peer"] + "/mcp", method="GET")
    return bases, app.pid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=10_000)
    parser.add_argument("--products", type=int, default=20)
    parser.add_argument("--businesses", type=int, default=10_000)
    parser.add_argument("--slices", type=int, default=4, help="short runs per row, each after the baselines' own")
    parser.add_argument("--slice", type=float, default=2.0, help="seconds per short run")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds of each half-load run")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--reuse", action="store_true", help="keep the database of the last run (skip the load)")
    parser.add_argument(
        "--only",
        default="",
        help="measure only the rows whose name contains one of these, comma-separated (plus the baselines)",
    )
    parser.add_argument(
        "--output", default=str(ROOT / "bench" / "results.md"), help="where the report goes (a partial run: elsewhere)"
    )
    parser.add_argument("--profile", default="", help="py-spy an app worker during the rows whose name contains this")
    parser.add_argument(
        "--database", default=os.environ.get("BENCH_DATABASE_URL", "postgresql://root@127.0.0.1:5432/postgres")
    )
    args = parser.parse_args()
    started = time.monotonic()
    facts_load = {"before": os.getloadavg()}
    meter = QuietMeter()
    with_nginx = ensure_tools()
    if args.reuse:
        from sqlalchemy.engine import make_url

        from mirror.store.migrate import upgrade

        url = make_url(args.database).set(database="mirror_bench_serve").render_as_string(hide_password=False)
        upgrade(url)  # a database kept from an older checkout lacks the newer revisions
        publish_documents(url)  # and its documents, in this checkout's format
        forget_usage(url)
    else:
        url = load_catalog(args.database, args.companies, args.products, args.businesses)
    facts = catalog_facts(url)
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-serve-") as temp:
        work = Path(temp)
        os.chmod(work, 0o755)
        bases, app_pid = start_servers(stack, url, facts["keys"][0], work, with_nginx)
        rows = all_endpoints(
            bases["app"], bases["peer"], facts["keys"], facts["in_feed"], with_nginx, facts["cold_keys"]
        )
        rows += bound_endpoints(facts)
        if args.only:
            wanted = [part.strip() for part in args.only.split(",") if part.strip()]
            rows = [r for r in rows if r.server in ("ceiling", "peer") or any(part in r.name for part in wanted)]
        baselines = {r.server: r.requests for r in rows if r.server in ("ceiling", "peer")}
        print(f"measuring {len(rows)} rows ...", flush=True)
        for row in rows:
            measure(row, bases, args, str(work / "load.lua"), app_pid, baselines)
    facts_load["after"], facts_load["quiet"] = os.getloadavg(), meter.stop()
    facts["load"] = facts_load
    write_report(rows, args, facts)
    print(f"\nwhole run: {time.monotonic() - started:.0f} s; written to {args.output}")


if __name__ == "__main__":
    main()
