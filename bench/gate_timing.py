"""Gate timing (issue 12, finding 9): closed keys must cost what unknown keys cost.

    .venv/bin/python bench/gate_timing.py [--database-url URL] [--samples 400] [--rounds 2]

Builds the app on a scratch database (a database of its own, `mirror_bench_gate`,
dropped and created afresh on the Postgres server of --database-url, default
bench.scratch.DEFAULT_SERVER), puts four companies in the demo upstream
(churned, not live, pricing switched off, and one public for reference),
syncs, then requests `/companies/<key>/pricing.json` for an unknown key and
each closed key, interleaved (one sample of every key per turn, in a shuffled
order), through the app's WSGI interface so the figures are the app's own
work, not the network's.

Per round it prints each key's median and p90 in microseconds and how often
a closed key's sample was slower than the unknown sample of the same turn
(50% means no difference). It exits 1 when a closed key's median exceeds
the unknown one's by more than --tolerance (a fraction, default 0.05) in
every round: one noisy round on a shared machine is not a finding, a
systematic difference is.

The suite holds the deterministic half of the promise
(tests/web/test_hardening_http.py: every case runs the same statements and
builds no object); this script is the timing half, kept out of the default
run because timing on a shared 2-core machine is noisy.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scratch import DEFAULT_SERVER, scratch_database

UNKNOWN_KEY = "unknownKey0000000000000000000000000000000"
SCRATCH_DATABASE = "mirror_bench_gate"


def build(database_url: str):
    """(app, upstream, keys by case)."""
    from demo.server import start_in_thread
    from wsgi import create_app

    database_url = scratch_database(database_url, SCRATCH_DATABASE)
    upstream = start_in_thread(companies=20, products=20, seed=7)
    app = create_app(
        {
            "DATABASE_URL": database_url,
            "UPSTREAM_URL": upstream.url,
            "UPSTREAM_TOKEN": "demo-token",
            "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
            "SCHEDULER_ENABLED": "false",
            "RATE_LIMIT_STORAGE_URI": "memory://",
            "RATE_LIMIT_PER_COMPANY": "1000000/hour",
        }
    )
    catalog = upstream.catalog
    base = {
        "name": "Timing Co",
        "trades": ["hvac"],
        "status": "active",
        "storefront_live": True,
        "settings": {"channels": {"pricing": True}},
    }
    keys = {
        "unknown": UNKNOWN_KEY,
        "churned": catalog.add_company(products=3, **{**base, "status": "churned"})["plugin_key"],
        "not live": catalog.add_company(products=3, **{**base, "storefront_live": False})["plugin_key"],
        "pricing off": catalog.add_company(products=3, **{**base, "settings": {"channels": {"pricing": False}}})[
            "plugin_key"
        ],
    }
    result = app.extensions["mirror"].sync()
    assert result.status == "success", result.error
    return app, upstream, keys


def sample(client, key: str) -> float:
    """One request's time in microseconds (it must be the 404)."""
    started = time.perf_counter_ns()
    response = client.get(f"/companies/{key}/pricing.json")
    elapsed = (time.perf_counter_ns() - started) / 1000
    assert response.status_code == 404, (key, response.status_code)
    return elapsed


def one_round(client, keys: dict[str, str], samples: int) -> dict[str, list[float]]:
    """`samples` interleaved turns; each turn times every key once, in a fresh random order."""
    times: dict[str, list[float]] = {name: [] for name in keys}
    order = list(keys.items())
    for _ in range(samples):
        random.shuffle(order)
        for name, key in order:
            times[name].append(sample(client, key))
    return times


def report(times: dict[str, list[float]], tolerance: float) -> bool:
    """Print the round; True when some closed key is systematically slower than the unknown key."""
    unknown = times["unknown"]
    base = statistics.median(unknown)
    slower_found = False
    print(f"{'key':<12} {'median µs':>10} {'p90 µs':>8} {'vs unknown':>11} {'slower in':>10}")
    for name, found in times.items():
        median = statistics.median(found)
        p90 = statistics.quantiles(found, n=10)[-1]
        slower = sum(1 for mine, theirs in zip(found, unknown) if mine > theirs) / len(found)
        ratio = median / base - 1
        marker = ""
        if name != "unknown" and ratio > tolerance:
            slower_found, marker = True, "  <-- slower"
        print(f"{name:<12} {median:>10.1f} {p90:>8.1f} {ratio:>+10.1%} {slower:>10.0%}{marker}")
    return slower_found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DEFAULT_SERVER)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tolerance", type=float, default=0.05)
    args = parser.parse_args()
    app, upstream, keys = build(args.database_url)
    try:
        client = app.test_client()
        one_round(client, keys, 50)  # warm-up: pool connections, statement caches
        verdicts = []
        for number in range(1, args.rounds + 1):
            print(f"\nround {number}: {args.samples} interleaved samples per key")
            verdicts.append(report(one_round(client, keys, args.samples), args.tolerance))
    finally:
        app.extensions["mirror"].dispose()
        upstream.stop()
    if all(verdicts):
        print(f"\nA closed key was slower than the unknown key by more than {args.tolerance:.0%} in every round.")
        return 1
    print("\nNo closed key is systematically slower than the unknown key.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
