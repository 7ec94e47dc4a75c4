"""Search benchmark (issues 24 and 34): what `search_catalog` returns for homeowners' questions, and how fast.

    make bench-search                    # = .venv/bin/python bench/search.py (both parts, both catalogs)
    .venv/bin/python bench/search.py --relevance-only                   # issue 34's part alone (seconds)
    .venv/bin/python bench/search.py --large-companies 300 --pairs 8   # a small run, to check it works
    .venv/bin/python bench/search.py --reuse                            # the databases of the last run

The questions and their graded judgments are bench/search_queries.json (its
`note` says how they were written). Two catalogs, each synced by the real
sync from the demo upstream into a fresh Postgres database:

- demo: what `make run` serves (40 companies x 60 products, seed 1, the
  default messiness, and the docs' example companies such as Tudi);
- large: bench/serve.py's (10,000 companies x 20 products, seed 1, clean).

Each question is asked of companies of the catalog (every public company
of the demo; `--pairs` per question, drawn once with a fixed seed, of the
large one) through two searches: today's (`mirror.read.catalog.search_catalog`,
through the query step) and the search before issue 24 (the same module
as commit BASELINE had it, read with `git show`). The judgments grade
every public product of the company; a (company, question) pair is
answerable when one grades 2 or more (what was meant, or a close
substitute), unanswerable when none grades above 0 (pairs with related
products only count in neither). Reported per catalog, database and search:

- nDCG@5 over the answerable pairs (gain 2^grade - 1, the ideal order of
  that company's own products);
- MRR: 1/rank of the first result graded as high as the company's best
  product for that question (0 when none is in the first 10);
- zero results: the share of answerable pairs with no result;
- false matches: the share of unanswerable pairs with any result;
- p50 / p99 latency of the search call in this process (one warm
  connection, each call its own snapshot, no HTTP, no render cache).

Targets: nDCG@5 >= 0.9, zero results 0%, false matches <= 2%. The figures
go to bench/results-search.md (and --json), with the machine's load.

First, the relevance benchmark that can fail (issue 34, bench/relevance/):
one ground truth written in five catalog styles, judged by the truth only,
with a held-out style and held-out wordings (bench/relevance/README.md).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from bench.relevance.run import measure as measure_relevance  # noqa: E402
from bench.relevance.run import report_lines as relevance_lines  # noqa: E402
from bench.relevance.run import sync as sync_catalog  # noqa: E402
from bench.scratch import fresh_database  # noqa: E402
from demo.catalog import DemoCatalog  # noqa: E402
from mirror.catalog.public_products import any_public_product  # noqa: E402
from mirror.read.catalog import search_catalog  # noqa: E402
from mirror.runtime.config import normalise_database_url  # noqa: E402
from mirror.store.db import make_engine, make_session_factory  # noqa: E402
from mirror.store.models import Product  # noqa: E402

BASELINE = "a1c88c8"  # main before issue 24: its mirror/read/catalog.py is "main's search"
QUERIES = ROOT / "bench" / "search_queries.json"
RESULTS = ROOT / "bench" / "results-search.md"
LIMIT = 10  # the search_catalog tool's default
ANSWERABLE = 2  # a pair is answerable when a product grades this (what was meant, or a close substitute)
CATALOGS = {
    "demo": {"companies": 40, "products": 60, "seed": 1, "examples": True},
    "large": {"companies": 10_000, "products": 20, "seed": 1, "messiness": 0.0},
}
TARGETS = {"ndcg5": 0.9, "zero_results": 0.0, "false_matches": 0.02}


# --- the catalogs ---------------------------------------------------------------------------


def database_url(server: str, catalog: str) -> str:
    """Where one catalog lives: a scratch database on the Postgres server at `server`."""
    url = make_url(normalise_database_url(server))
    return url.set(database=f"mirror_bench_search_{catalog}").render_as_string(hide_password=False)


def load(url: str, shape: dict) -> float:
    """Sync a demo catalog into the database at `url`; the sync's seconds."""
    return sync_catalog(url, DemoCatalog(**shape))


@dataclass(frozen=True)
class Item:
    """One public product, as the judgments see it."""

    sku: str
    category: str
    kind: str
    tier: str | None
    brand: str | None
    name: str
    price: float
    specs: dict


def public_items(session) -> dict[str, list[Item]]:
    """Every public product, by company."""
    columns = (
        Product.plugin_key,
        Product.sku,
        Product.category_slug,
        Product.category_kind,
        Product.tier,
        Product.brand,
        Product.name,
        Product.price_cents,
        Product.specs,
    )
    items: dict[str, list[Item]] = {}
    for key, sku, category, kind, tier, brand, name, cents, specs in session.execute(
        select(*columns).where(any_public_product())
    ):
        spec = specs if isinstance(specs, dict) else {}
        items.setdefault(key, []).append(Item(sku, category, kind, tier, brand, name, cents / 100, spec))
    return items


# --- the judgments --------------------------------------------------------------------------


def _rule_holds(rule: dict, item: Item) -> bool:
    if "category" in rule and item.category not in rule["category"]:
        return False
    if "kind" in rule and item.kind != rule["kind"]:
        return False
    if "tier" in rule and item.tier != rule["tier"]:
        return False
    if "brand" in rule and (item.brand or "").lower() != rule["brand"]:
        return False
    if any(word not in item.name.lower() for word in rule.get("name", [])):
        return False
    for key, wanted in rule.get("specs", {}).items():
        allowed = wanted if isinstance(wanted, list) else [wanted]
        if item.specs.get(key) not in allowed:
            return False
    return "max_price" not in rule or item.price <= rule["max_price"]


def grades(question: dict, items: list[Item]) -> dict[str, int]:
    """Each product's grade for a question: the highest rule it meets (0 for none)."""
    graded = dict.fromkeys((item.sku for item in items), 0)
    for rule in question["judgments"]:
        held = [item for item in items if _rule_holds(rule, item)]
        if rule.get("pick") == "cheapest" and held:
            low = min(item.price for item in held)
            held = [item for item in held if item.price == low]
        elif rule.get("pick") == "priciest" and held:
            high = max(item.price for item in held)
            held = [item for item in held if item.price == high]
        for item in held:
            graded[item.sku] = max(graded[item.sku], rule["grade"])
    return graded


def ndcg_at(ranked: list[str], graded: dict[str, int], k: int = 5) -> float:
    """nDCG@k with gains 2^grade - 1 against the ideal order of the company's own products."""

    def dcg(values: list[int]) -> float:
        return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(values[:k]))

    ideal = dcg(sorted(graded.values(), reverse=True))
    return dcg([graded.get(sku, 0) for sku in ranked]) / ideal if ideal else 0.0


def reciprocal_rank(ranked: list[str], graded: dict[str, int]) -> float:
    """1/rank of the first result graded as high as the company's best product (0 when none is listed)."""
    best = max(graded.values(), default=0)
    return next((1 / (i + 1) for i, sku in enumerate(ranked) if graded.get(sku, 0) == best), 0.0)


# --- the searches ---------------------------------------------------------------------------


def baseline_search():
    """main's search_catalog (commit BASELINE), read from git; None when git cannot show it."""
    shown = subprocess.run(
        ["git", "show", f"{BASELINE}:mirror/read/catalog.py"], cwd=ROOT, capture_output=True, text=True
    )
    if shown.returncode != 0:
        print(f"main's search is left out: git show {BASELINE} failed ({shown.stderr.strip()[:120]})")
        return None
    module = types.ModuleType("bench_main_catalog_search")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    try:
        exec(compile(shown.stdout, f"{BASELINE}:mirror/read/catalog.py", "exec"), module.__dict__)
    except ImportError as error:  # a baseline from before a module moved cannot run in today's tree
        print(f"main's search is left out: {BASELINE}'s mirror/read/catalog.py imports what moved since ({error})")
        return None
    return module.search_catalog


@dataclass
class Run:
    """One search over one catalog: its pairs' outcomes and timings."""

    ndcg: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)
    zero: list[bool] = field(default_factory=list)
    false_match: list[bool] = field(default_factory=list)
    related_only: int = 0
    seconds: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)

    def figures(self) -> dict:
        ordered = sorted(self.seconds)

        def at(share: float) -> float:
            return round(ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000, 2) if ordered else 0.0

        return {
            "answerable_pairs": len(self.ndcg),
            "unanswerable_pairs": len(self.false_match),
            "related_only_pairs": self.related_only,
            "ndcg5": round(statistics.fmean(self.ndcg), 3) if self.ndcg else None,
            "mrr": round(statistics.fmean(self.rr), 3) if self.rr else None,
            "zero_results": round(sum(self.zero) / len(self.zero), 4) if self.zero else None,
            "false_matches": round(sum(self.false_match) / len(self.false_match), 4) if self.false_match else None,
            "p50_ms": at(0.5),
            "p99_ms": at(0.99),
            "ndcg5_by_kind": {k: round(statistics.fmean(v), 3) for k, v in sorted(self.by_kind.items())},
        }


def run_searches(url: str, search, pairs: list[tuple[dict, str, dict[str, int]]]) -> Run:
    """Every (question, company, grades) pair through one search function."""
    engine = make_engine(url)
    factory = make_session_factory(engine)
    outcome = Run()
    try:
        with factory() as session:
            search(session, pairs[0][1], "warm up the connection")
            session.rollback()
            for question, key, graded in pairs:
                started = time.perf_counter()
                found = search(session, key, question["query"], limit=LIMIT)
                outcome.seconds.append(time.perf_counter() - started)
                session.rollback()  # each search its own snapshot, as a request's would be
                ranked = [hit.sku for hit in found.hits]
                best = max(graded.values(), default=0)
                if best >= ANSWERABLE:
                    outcome.ndcg.append(ndcg_at(ranked, graded))
                    outcome.rr.append(reciprocal_rank(ranked, graded))
                    outcome.zero.append(not ranked)
                    outcome.by_kind.setdefault(question["kind"], []).append(outcome.ndcg[-1])
                elif best == 0:
                    outcome.false_match.append(bool(ranked))
                else:
                    outcome.related_only += 1
    finally:
        engine.dispose()
    return outcome


def make_pairs(items: dict[str, list[Item]], questions: list[dict], per_question: int | None, seed: int) -> list:
    """(question, company, grades) for each question: every company, or `per_question` drawn at random."""
    keys = sorted(items)
    pairs = []
    for index, question in enumerate(questions):
        chosen = (
            keys
            if per_question is None
            else random.Random(f"{seed}:{index}").sample(keys, min(per_question, len(keys)))
        )
        pairs.extend((question, key, grades(question, items[key])) for key in chosen)
    return pairs


# --- the run ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database", default=os.environ.get("BENCH_DATABASE_URL", "postgresql://root@127.0.0.1:5432/postgres")
    )
    parser.add_argument("--catalog", choices=tuple(CATALOGS), help="one catalog only")
    parser.add_argument("--large-companies", type=int, default=CATALOGS["large"]["companies"])
    parser.add_argument("--pairs", type=int, default=25, help="companies asked each question in the large catalog")
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--reuse", action="store_true", help="search the databases of the last run (no sync)")
    parser.add_argument("--relevance-only", action="store_true", help="issue 34's relevance part only (no speed)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where the Markdown report goes")
    args = parser.parse_args()
    logging.getLogger("mirror").setLevel(logging.ERROR)  # the demo's invalid records are expected
    questions = json.loads(QUERIES.read_text())["queries"]
    searches = {"today": search_catalog}
    main_search = None if args.relevance_only else baseline_search()  # the relevance part searches today's only
    if main_search is not None:
        searches["main"] = main_search
    catalogs = [] if args.relevance_only else [c for c in CATALOGS if args.catalog in (None, c)]
    load_before, started = os.getloadavg(), time.monotonic()
    report = {"questions": len(questions), "rows": [], "relevance": measure_relevance(args.database)}
    print("\n".join(relevance_lines(report["relevance"])), flush=True)
    for catalog in catalogs:
        shape = dict(CATALOGS[catalog])
        if catalog == "large":
            shape["companies"] = args.large_companies
        url = database_url(args.database, catalog)
        sync_s = None
        if not args.reuse:
            fresh_database(url)
            sync_s = load(url, shape)
        engine = make_engine(url)
        with make_session_factory(engine)() as session:
            items = public_items(session)
        engine.dispose()
        pairs = make_pairs(items, questions, None if catalog == "demo" else args.pairs, args.seed)
        for name, search in searches.items():
            figures = run_searches(url, search, pairs).figures()
            row = {"catalog": catalog, "database": "postgresql", "search": name, **figures}
            row["products"] = sum(len(v) for v in items.values())
            row["sync_seconds"] = round(sync_s, 1) if sync_s is not None else None
            report["rows"].append(row)
            print(_line(row), flush=True)
    report["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    report["load_average_before"] = [round(x, 2) for x in load_before]
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    report["seconds"] = round(time.monotonic() - started)
    write_report(report, args)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


def _line(row: dict) -> str:
    return (
        f"{row['catalog']:<6} {row['database']:<10} {row['search']:<6} nDCG@5 {row['ndcg5']} MRR {row['mrr']} "
        f"zero {row['zero_results']} false {row['false_matches']} p50 {row['p50_ms']} ms p99 {row['p99_ms']} ms "
        f"({row['answerable_pairs']} answerable, {row['unanswerable_pairs']} unanswerable pairs)"
    )


def _percent(value) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


ISSUE_24_HEADING = "## Issue 24's questions on the demo and large catalogs"


def _previous_full_run(results: Path) -> list[str]:
    """Issue 24's part of the results file as the last full run wrote it (none when there is no such part)."""
    old = results.read_text().splitlines() if results.exists() else []
    start = next((i for i, line in enumerate(old) if line.startswith(ISSUE_24_HEADING)), None)
    if start is None:
        return []
    body = old[start + 1 :]
    if body[:3] and body[1].startswith("(`--relevance-only` ran above"):  # already kept once: its note is ours
        body = body[3:]
    return [
        f"{ISSUE_24_HEADING} — the previous full run, not rerun with this one",
        "",
        "(`--relevance-only` ran above; `make bench-search` reruns this part in full, on a quiet machine. "
        "The previous run's figures, as it wrote them:)",
        "",
        *body,
    ]


def write_report(report: dict, args) -> None:
    """bench/results-search.md: the relevance part (issue 34), the table of issue 24's part, and the machine's load."""
    lines = [
        "# bench/search.py — latest run",
        "",
        f"Machine: {report['machine']}. Load average (1/5/15 min): "
        f"{' / '.join(map(str, report['load_average_before']))} before, "
        f"{' / '.join(map(str, report['load_average_after']))} after; {report['seconds']} s in all.",
        "",
        *relevance_lines(report["relevance"]),
        "",
    ]
    if not report["rows"]:  # --relevance-only: issue 24's part is the last full run's, kept as it was written
        args.results.write_text("\n".join(lines + _previous_full_run(args.results)) + "\n")
        return
    lines += [
        f"{ISSUE_24_HEADING}",
        "",
        f"{report['questions']} questions (bench/search_queries.json), written from the search's own vocabulary "
        "on catalogs of one generator (so its figures cannot see issue 34's failures); "
        f"{args.pairs} companies a question in the large catalog ({args.large_companies:,} companies).",
        "",
        "| catalog | database | search | nDCG@5 | MRR | zero results (answerable) | false matches (unanswerable) "
        "| p50 ms | p99 ms | pairs (answerable / not) |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in report["rows"]:
        lines.append(
            f"| {row['catalog']} | {row['database']} | {row['search']} | {row['ndcg5']} | {row['mrr']} | "
            f"{_percent(row['zero_results'])} | {_percent(row['false_matches'])} | {row['p50_ms']} | "
            f"{row['p99_ms']} | {row['answerable_pairs']} / {row['unanswerable_pairs']} |"
        )
    lines += ["", "nDCG@5 by kind of question (today's search):", ""]
    kinds = sorted({k for row in report["rows"] for k in row["ndcg5_by_kind"]})
    lines += ["| catalog | database | " + " | ".join(kinds) + " |", "| --- | --- |" + " ---: |" * len(kinds)]
    for row in report["rows"]:
        if row["search"] == "today":
            cells = " | ".join(str(row["ndcg5_by_kind"].get(k, "")) for k in kinds)
            lines.append(f"| {row['catalog']} | {row['database']} | {cells} |")
    lines += [
        "",
        f"Targets: nDCG@5 >= {TARGETS['ndcg5']}, zero results {TARGETS['zero_results']:.0%}, "
        f"false matches <= {TARGETS['false_matches']:.0%}.",
    ]
    args.results.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
