"""Search benchmark (issue 15, item 4): `search_catalog` over a large catalog
with every query new, on the database's full-text index. A benchmark, not a
test: it prints figures (and --json writes them) for the lead to report.

    .venv/bin/python bench/search.py [--companies 2000 --products 100] [--database URL] [--queries 2000]
    .venv/bin/python bench/search.py --database sqlite:////tmp/bench-search.sqlite3

The catalog comes from the demo upstream through the real sync (so the index
is built the way production builds it). The queries are drawn from the words
and model numbers the catalog holds, each (company, query) pair used once, in
these shapes: one word, two words, a plural, a model number, a model prefix,
a word no product has. The timing is `search_catalog` itself, in this
process, on one warm connection: no HTTP, no render cache.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, func, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from demo.server import start_in_thread  # noqa: E402
from mirror.config import normalise_database_url  # noqa: E402
from mirror.db import make_engine, make_session_factory  # noqa: E402
from mirror.fulltext import words  # noqa: E402
from mirror.migrate import upgrade  # noqa: E402
from mirror.models import Company, Product  # noqa: E402
from mirror.read.catalog import search_catalog  # noqa: E402
from mirror.sync import run_sync  # noqa: E402
from mirror.upstream import UpstreamClient  # noqa: E402

TOKEN = "bench-token"


def fresh_database(url: str) -> str:
    """A new, migrated database: a scratch Postgres database, or a new SQLite file."""
    url = normalise_database_url(url)
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[-1])
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        server = make_url(url)
        name = "mirror_bench_search"
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        url = server.set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    return url


def load_catalog(url: str, companies: int, products: int) -> float:
    """Sync a generated catalog into the database; returns the sync's seconds."""
    upstream = start_in_thread(companies=companies, products=products, seed=1, token=TOKEN)
    engine = make_engine(url, writer=True)
    try:
        started = time.perf_counter()
        result = run_sync(engine, make_session_factory(engine), UpstreamClient(upstream.url, TOKEN), full=True)
        if result.status != "success":
            raise SystemExit(f"sync failed: {result.error}")
        return time.perf_counter() - started
    finally:
        engine.dispose()
        upstream.stop()


def make_queries(session, count: int, seed: int) -> list[tuple[str, str]]:
    """`count` distinct (company, query) pairs drawn from the catalog's own words."""
    rng = random.Random(seed)
    keys = list(session.scalars(select(Company.plugin_key).where(Company.is_public.is_(True))))
    sample = session.execute(
        select(Product.plugin_key, Product.name, Product.model_numbers).where(Product.plugin_key.in_(keys[:500]))
    ).all()
    vocabulary = sorted({w for row in sample for w in words(row.name) if len(w) > 2 and not w.isdigit()})
    models = sorted({m for row in sample for m in (row.model_numbers or []) if isinstance(m, str)})
    shapes = (
        lambda: rng.choice(vocabulary),
        lambda: f"{rng.choice(vocabulary)} {rng.choice(vocabulary)}",
        lambda: f"{rng.choice(vocabulary)}s",
        lambda: rng.choice(models) if models else rng.choice(vocabulary),
        lambda: rng.choice(models)[:5] if models else rng.choice(vocabulary)[:3],
        lambda: f"zq{rng.randrange(10**6)}",
    )
    pairs: set[tuple[str, str]] = set()
    while len(pairs) < count:
        pairs.add((rng.choice(keys), rng.choice(shapes)()))
    ordered = sorted(pairs)
    rng.shuffle(ordered)
    return ordered


def time_searches(url: str, pairs: list[tuple[str, str]]) -> tuple[list[float], int]:
    """Seconds per search_catalog call, and the total hits returned."""
    engine = make_engine(url)
    factory = make_session_factory(engine)
    seconds, hits = [], 0
    try:
        with factory() as session:
            search_catalog(session, pairs[0][0], "warm up the connection")
            session.rollback()
            for key, query in pairs:
                started = time.perf_counter()
                found = search_catalog(session, key, query)
                seconds.append(time.perf_counter() - started)
                session.rollback()  # each search its own snapshot, as a request would be
                hits += len(found.hits)
    finally:
        engine.dispose()
    return seconds, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--companies", type=int, default=2000)
    parser.add_argument("--products", type=int, default=100)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument(
        "--database", default=os.environ.get("BENCH_DATABASE_URL", "postgresql://root@127.0.0.1:5432/postgres")
    )
    parser.add_argument("--reuse", action="store_true", help="search the database as it is (no fresh sync)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    logging.getLogger("mirror").setLevel(logging.ERROR)  # the demo's invalid records are expected
    load_before = os.getloadavg()
    if args.reuse:
        url, sync_s = normalise_database_url(args.database), None
    else:
        url = fresh_database(args.database)
        sync_s = load_catalog(url, args.companies, args.products)
    engine = make_engine(url)
    with make_session_factory(engine)() as session:
        pairs = make_queries(session, args.queries, args.seed)
        product_count = session.scalar(select(func.count()).select_from(Product))
    engine.dispose()
    seconds, hits = time_searches(url, pairs)
    report(args, url, product_count, sync_s, seconds, hits, load_before, os.getloadavg())


def _ms(value: float) -> str:
    return f"{value * 1000:.2f} ms"


def report(args, url, product_count, sync_s, seconds, hits, load_before, load_after) -> None:
    """Print the figures (and write them as JSON when asked)."""
    ordered = sorted(seconds)
    figures = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "database": make_url(url).get_backend_name(),
        "products": product_count,
        "sync_seconds": round(sync_s, 1) if sync_s is not None else None,
        "queries": len(seconds),
        "hits_returned": hits,
        "searches_per_second": round(len(seconds) / sum(seconds), 1),
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1] * 1000, 3),
        "p99_ms": round(ordered[int(len(ordered) * 0.99) - 1] * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }
    for name, value in figures.items():
        print(f"{name:<22} {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
