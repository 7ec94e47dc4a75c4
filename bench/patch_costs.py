"""What each speed patch of a library's internals still buys (issue 23): measured, not assumed.

    .venv/bin/python bench/patch_costs.py [--database-url postgresql://root@127.0.0.1:5432/test] [--requests 3000]

Builds the app on a scratch database (a database of its own on the given
Postgres server, default bench.scratch.DEFAULT_SERVER: `mirror_bench_patches`),
syncs the demo upstream's example companies, and times requests through the
app's WSGI interface (the app's own work, not the network's), each patch on
and off, interleaved round by round so both see the same machine:

- `swept memory`: web/limits.py's `SweptMemoryStorage` (the `limits`
  library's memory storage with its expiry sweep every 5 s, by overriding a
  name-mangled private method) against the library's own `memory://`;
- `autocommit reader`: mirror/store/db.py's raw libpq reader for the
  one-statement reads (a cold render: the render cache emptied before each
  request) against the same statement through a SQLAlchemy connection in
  AUTOCOMMIT, and through one whose psycopg connections prepare every
  statement server-side on first use (`prepare_threshold=0`: the driver's
  own prepared statements, SQLAlchemy's compiled cache).

It prints the median microseconds per request of each side and the ratio.
A benchmark, not a test: the figures go to docs/performance.md with the
machine's load beside them.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scratch import DEFAULT_SERVER, scratch_database

TUDI = "000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq"
SCRATCH_DATABASE = "mirror_bench_patches"


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def make_app(url: str, upstream, storage: str = "memory://"):
    from wsgi import create_app

    app = create_app(
        {
            "DATABASE_URL": url,
            "UPSTREAM_URL": upstream.url,
            "UPSTREAM_TOKEN": "demo-token",
            "SCHEDULER_ENABLED": "false",
            "RATE_LIMIT_STORAGE_URI": storage,
            "RATE_LIMIT_PER_COMPANY": "100000000/hour",
        }
    )
    return app


def environ_for(path: str) -> dict:
    return {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }


def per_request_us(app, path: str, count: int, before=None) -> float:
    """Median of 5 batches' mean wall microseconds per request through app.wsgi_app."""
    statuses = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    batches = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(count // 5):
            if before is not None:
                before()
            body = app.wsgi_app(environ_for(path), start_response)
            for _chunk in body:
                pass
            if hasattr(body, "close"):
                body.close()
        batches.append((time.perf_counter() - started) / (count // 5) * 1e6)
    assert all(s.startswith("200") for s in statuses), statuses[:3]
    return statistics.median(batches)


def compare(name: str, patched, plain, rounds: int) -> None:
    """Each side `rounds` times, alternating; the medians and their ratio."""
    a, b = [], []
    for _ in range(rounds):
        a.append(patched())
        b.append(plain())
    pa, pb = statistics.median(a), statistics.median(b)
    print(f"{name:<22} patched {pa:8.1f} us   library {pb:8.1f} us   library/patched {pb / pa:5.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_SERVER)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from demo.server import start_in_thread

    print(f"load average before: {load_average()}, cores {os.cpu_count()}")
    upstream = start_in_thread(companies=0, products=0, seed=1, examples=True)
    url = scratch_database(args.database_url, SCRATCH_DATABASE)
    app = make_app(url, upstream)
    mirror = app.extensions["mirror"]
    assert mirror.sync().status == "success"
    path = f"/companies/{TUDI}/pricing.json"

    # The limits library's memory storage, against the swept one.
    plain_app = make_app(url, upstream, storage="memory://")
    from limits.storage import MemoryStorage
    from limits.strategies import MovingWindowRateLimiter

    limits = plain_app.extensions["rate_limits"]
    limits.storage = MemoryStorage()
    limits.strategy = MovingWindowRateLimiter(limits.storage)
    for budget in (limits.per_company_client, limits.per_company, limits.per_client, limits.profile_fetches):
        budget.strategy = limits.strategy
    compare(
        "swept memory (warm)",
        lambda: per_request_us(app, path, args.requests),
        lambda: per_request_us(plain_app, path, args.requests),
        args.rounds,
    )

    import mirror.store.db as mirror_db

    raw = mirror_db.statement_rows
    autocommit = mirror.engine.execution_options(isolation_level="AUTOCOMMIT")

    def through_sqlalchemy(session, statement, params):
        if session.in_transaction():
            return raw(session, statement, params)
        with autocommit.connect() as connection:
            return [tuple(row) for row in connection.execute(statement, params)]

    cache = app.extensions["render_cache"]

    def cold(reader):
        def run():
            mirror_db.statement_rows = reader
            import mirror.read.company as company_reads

            company_reads.statement_rows = reader
            try:
                return per_request_us(app, path, args.requests // 3, before=cache.clear)
            finally:
                mirror_db.statement_rows = raw
                company_reads.statement_rows = raw

        return run

    compare("autocommit reader (cold)", cold(raw), cold(through_sqlalchemy), args.rounds)

    # The library way issue 31 names: SQLAlchemy's compiled cache and psycopg's own server-side prepared
    # statements (prepare_threshold=0: prepared on first use, per connection), in AUTOCOMMIT.
    prepared = mirror_db.make_engine(
        mirror.engine.url.render_as_string(hide_password=False),
        isolation_level="AUTOCOMMIT",
        connect_args={"prepare_threshold": 0},
    )

    def through_prepared(session, statement, params):
        if session.in_transaction():
            return raw(session, statement, params)
        with prepared.connect() as connection:
            return [tuple(row) for row in connection.execute(statement, params)]

    compare("autocommit reader vs prepare_threshold=0 (cold)", cold(raw), cold(through_prepared), args.rounds)
    prepared.dispose()
    print(f"load average after: {load_average()}")
    upstream.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
