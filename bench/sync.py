"""Sync benchmark (issues 15 and 33): the full sync of 2,000 companies x 100 products
from the demo upstream into PostgreSQL, against the bare upstream walk, then an
incremental sync after 1% of the products changed. A benchmark, not a test:
it prints figures and checks them against the targets (full sync <= 2x the
bare walk measured in the same run, peak RSS of the sync <= 250 MB,
incremental <= 2% of full, rendering included).

    make bench-sync            # or: .venv/bin/python bench/sync.py [--companies N --products M --rounds R]
    .venv/bin/python bench/sync.py --profile /tmp/sync.txt   # py-spy (raw) on the last full sync
    .venv/bin/python bench/sync.py --profile-incremental /tmp/incremental.txt   # ... on the incremental run
    .venv/bin/python bench/sync.py --without-documents --output /tmp/x.md   # runs that render no document

The bare walk reads `/v1/products` whole with the sync's own HTTP client and
JSON parsing (mirror.sync.upstream.UpstreamClient) and stores nothing: it is what
any sync must at least spend. Rows are interleaved (walk, full, walk, full,
...), each full sync into a freshly created database, so both sides of the
ratio see the same load on the machine. Every run is its own child process:
the wall-clock and CPU seconds are the run's own (measured inside the child,
around the walk or `Mirror.sync`, so interpreter start-up and imports do not
count, nor opening the sync's two database connections, which a scheduler's
process keeps pooled between runs), the peak RSS is the child's (os.wait4), and the demo upstream's CPU
seconds during the run are read from /proc. The load average is recorded
before and after; a busy machine is flagged in the results file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import QuietMeter  # noqa: E402
from bench.scratch import scratch_database  # noqa: E402

TOKEN = "bench-token"
DATABASE = "mirror_bench_sync"
TARGET_RATIO, TARGET_RSS_MB, TARGET_INCREMENTAL = 2.0, 250, 0.02
WITHOUT_DOCUMENTS = "without-documents"  # a child's last argument: its run renders no document


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_database(server_url: str, name: str) -> str:
    """Drop and create a scratch database on the server; return its URL."""
    return scratch_database(server_url, name)


def start_upstream(companies: int, products: int, port: int, *options: str) -> subprocess.Popen:
    """The demo upstream in its own process (`options`: more `demo.server` flags); returns once it answers."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "demo.server",
            "--port",
            str(port),
            "--companies",
            str(companies),
            "--products",
            str(products),
            "--seed",
            "1",
            "--token",
            TOKEN,
            "--quiet",
            *options,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
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
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"{}")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the two kinds of child run ---------------------------------------------------


def child_walk(upstream_url: str) -> dict:
    """The bare walk: every page of /v1/products, parsed as the sync parses it, stored nowhere."""
    from mirror.sync.upstream import UpstreamClient

    client = UpstreamClient(upstream_url, TOKEN)
    wall, cpu = time.perf_counter(), time.process_time()
    records = pages = 0
    for page in client.walk("/v1/products"):
        records += len(page.data)
        pages += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    client.close()
    return {"wall": wall, "cpu": cpu, "records": records, "pages": pages}


def child_sync(
    upstream_url: str, database_url: str, full: bool, public_base_url: str | None = None, documents: bool = True
) -> dict:
    """One sync, exactly as `flask sync [--full]` runs it: in the app, whose surfaces declare the documents each
    run renders (the hosted pages; mirror/render/documents.py).

    `public_base_url`: the PUBLIC_BASE_URL of the app that will serve what it renders (the documents a run
    stores are in the format of its settings). `documents` False: the run renders none (`--without-documents`).
    """
    import importlib
    import logging

    from wsgi import create_app

    logging.disable(logging.WARNING)  # the demo's messy records warn; the counts say how many
    importlib.import_module("mirror.sync")  # Mirror.sync imports it on first use; a running scheduler has it loaded
    settings = {"DATABASE_URL": database_url, "UPSTREAM_URL": upstream_url, "UPSTREAM_TOKEN": TOKEN}
    settings |= {"SCHEDULER_ENABLED": "false"} | ({"PUBLIC_BASE_URL": public_base_url} if public_base_url else {})
    mirror = create_app(settings).extensions["mirror"]
    # A scheduled run finds its two connections (the lock's and the run's) in
    # the pool the previous run left; a fresh child would open them on the clock.
    with mirror.writer_engine.connect(), mirror.writer_engine.connect():
        pass
    wall, cpu = time.perf_counter(), time.process_time()
    result = mirror.sync(full=full) if documents else mirror.sync(full=full, publish=None)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    mirror.dispose()
    if result.status != "success":
        raise SystemExit(f"sync failed: {result.error}")
    return {"wall": wall, "cpu": cpu, "counts": result.counts.as_dict()}


@dataclass
class Run:
    """One measured child run."""

    row: str
    wall: float
    cpu: float
    upstream_cpu: float
    rss_mb: float
    detail: dict


def measure(row: str, upstream: subprocess.Popen, args: list[str], profile: str | None = None) -> Run:
    """Run `bench/sync.py --child ARGS` and collect its figures."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", *args]
    if profile:
        command = [
            str(Path(sys.executable).parent / "py-spy"),
            "record",
            "-r",
            "100",
            "-f",
            "raw",
            "-o",
            profile,
            "--",
            *command,
        ]
    before = _cpu_seconds(upstream.pid)
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    upstream_cpu = _cpu_seconds(upstream.pid) - before
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{row} failed:\n{output}")
    # py-spy, when in front, prints its own lines after the child's JSON one.
    detail = json.loads(next(line for line in reversed(output.splitlines()) if line.startswith("{")))
    # With py-spy in front, wait4 reports py-spy's own peak: leave RSS out.
    rss = 0.0 if profile else usage.ru_maxrss / 1024
    run = Run(row, detail.pop("wall"), detail.pop("cpu"), upstream_cpu, rss, detail)
    print(
        f"  {row:<24} {run.wall:7.2f} s wall  {run.cpu:6.2f} s CPU  upstream {run.upstream_cpu:6.2f} s CPU  "
        f"{run.rss_mb:5.0f} MB",
        flush=True,
    )
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=2000)
    parser.add_argument("--products", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2, help="walk/full pairs, interleaved")
    parser.add_argument(
        "--database", default=os.environ.get("BENCH_DATABASE_URL", "postgresql://root@127.0.0.1:5432/postgres")
    )
    parser.add_argument("--profile", metavar="FILE", help="py-spy raw profile of the last full sync")
    parser.add_argument("--profile-incremental", metavar="FILE", help="py-spy raw profile of the incremental run")
    parser.add_argument("--output", default=str(ROOT / "bench" / "results-sync.md"))
    parser.add_argument(
        "--without-documents",
        action="store_true",
        help="runs render no public document (what rendering costs, or a comparison with a tree before issue 33)",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "walk":
            result = child_walk(*rest)
        else:
            result = child_sync(rest[0], rest[1], kind == "full", documents=WITHOUT_DOCUMENTS not in rest)
        print(json.dumps(result))
        return
    load_before = os.getloadavg()
    meter = QuietMeter()
    port = _free_port()
    upstream_url = f"http://127.0.0.1:{port}"
    upstream = start_upstream(args.companies, args.products, port)
    runs: list[Run] = []
    no_documents = [WITHOUT_DOCUMENTS] if args.without_documents else []
    try:
        for round_ in range(1, args.rounds + 1):
            runs.append(measure(f"bare walk #{round_}", upstream, ["walk", upstream_url]))
            url = fresh_database(args.database, DATABASE)
            profile = args.profile if round_ == args.rounds else None
            runs.append(measure(f"full sync #{round_}", upstream, ["full", upstream_url, url, *no_documents], profile))
        changed = len(_admin(port, "POST", "/_demo/mutate", {"fraction": 0.01, "seed": 2}).get("changed", []))
        runs.append(
            measure(
                "incremental (1% changed)",
                upstream,
                ["incremental", upstream_url, url, *no_documents],
                args.profile_incremental,
            )
        )
    finally:
        upstream.terminate()
        upstream.wait(30)
    load_after = os.getloadavg()
    report(args, runs, changed, load_before, load_after, meter.stop())


def _load(values: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def report(args, runs: list[Run], changed: int, load_before, load_after, quiet) -> None:
    """Print the table and the verdict on each target; write bench/results-sync.md."""
    walks = [r for r in runs if r.row.startswith("bare walk")]
    fulls = [r for r in runs if r.row.startswith("full sync")]
    incremental = runs[-1]
    total = args.companies * args.products
    wall_ratio = sum(r.wall for r in fulls) / sum(r.wall for r in walks)
    cpu_ratio = sum(r.cpu for r in fulls) / sum(r.cpu for r in walks)
    pair_ratios = ", ".join(f"{f.wall / w.wall:.2f}x" for w, f in zip(walks, fulls, strict=True))
    full_wall = sum(r.wall for r in fulls) / len(fulls)
    incremental_share = incremental.wall / full_wall
    peak = max(r.rss_mb for r in fulls + [incremental])
    cores = os.cpu_count() or 1
    busy = quiet.busy

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    lines = [
        "# bench/sync.py — latest run",
        "",
        f"Machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, PostgreSQL. "
        f"Catalog: {args.companies:,} companies x {args.products} products = {total:,} products "
        f"(demo upstream, seed 1, default messiness)"
        f"{'; **no document rendered** (`--without-documents`)' if args.without_documents else ''}. "
        f"Load average (1/5/15 min): {_load(load_before)} before, "
        f"{_load(load_after)} after. {quiet.describe()}",
        "",
    ]
    if quiet.disk_bound:
        lines += [quiet.disk_warning(), ""]
    if busy:
        lines += [
            f"> **Warning: the machine was busy** (other processes used {quiet.share:.0%} of its {cores} cores). "
            "Wall-clock "
            "seconds are inflated and noisy; the interleaved ratios and the CPU seconds are the "
            "figures to read.",
            "",
        ]
    lines += [
        "| run | wall s | sync CPU s | upstream CPU s | peak RSS MB |",
        "| --- | ---: | ---: | ---: | ---: |",
        *(
            f"| {r.row} | {r.wall:.2f} | {r.cpu:.2f} | {r.upstream_cpu:.2f} | "
            f"{f'{r.rss_mb:.0f}' if r.rss_mb else '(profiled)'} |"
            for r in runs
        ),
        "",
        "| target | result |",
        "| --- | --- |",
        f"| full sync <= {TARGET_RATIO:g}x the bare walk (wall, interleaved) | {wall_ratio:.2f}x "
        f"(pairs: {pair_ratios}): {verdict(wall_ratio <= TARGET_RATIO)} |",
        f"| the same ratio in CPU seconds of the sync process | {cpu_ratio:.2f}x |",
        f"| peak RSS of the sync <= {TARGET_RSS_MB} MB | {peak:.0f} MB: {verdict(peak <= TARGET_RSS_MB)} |",
        f"| incremental ({changed:,} products changed) <= {TARGET_INCREMENTAL:.0%} of full | "
        f"{incremental.wall:.2f} s = {incremental_share:.1%}: {verdict(incremental_share <= TARGET_INCREMENTAL)} |",
        "",
        f"Full sync counts: `{json.dumps(fulls[-1].detail['counts'])}`.",
        f"Bare walk: {walks[-1].detail['pages']} pages, {walks[-1].detail['records']:,} records.",
    ]
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
