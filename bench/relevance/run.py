"""The relevance benchmark's run: the ground truth in five styles, synced into Postgres, searched, judged.

One demo upstream (demo.catalog.DemoCatalog, served over HTTP by
demo.server) holds one company per style, each with the whole ground truth
written in that style; the real sync (mirror.sync.run_sync) copies it into a
fresh Postgres database; every wording of every intent is asked of every
style's company through `mirror.read.catalog.search_catalog` in this
process (the function behind the MCP tool `search_catalog`, without HTTP),
limit 10; judge.py grades the ranking by the truth.

    .venv/bin/python bench/relevance/run.py    # the relevance part alone (bench/search.py runs it too)
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sqlalchemy.engine import make_url  # noqa: E402

from bench.relevance.ground_truth import products  # noqa: E402
from bench.relevance.judge import Figures, judge  # noqa: E402
from bench.relevance.queries import held_out as held_out_wordings  # noqa: E402
from bench.relevance.queries import intents  # noqa: E402
from bench.relevance.styles import HELD_OUT_STYLE, RENDER, STYLES  # noqa: E402
from bench.scratch import DEFAULT_SERVER, fresh_database  # noqa: E402
from demo.catalog import DemoCatalog  # noqa: E402
from demo.server import start_in_thread  # noqa: E402
from mirror.read.catalog import search_catalog  # noqa: E402
from mirror.runtime.config import normalise_database_url  # noqa: E402
from mirror.store.db import make_engine, make_session_factory  # noqa: E402
from mirror.sync import run_sync  # noqa: E402
from mirror.sync.upstream import UpstreamClient  # noqa: E402

TOKEN = "bench-relevance-token"
LIMIT = 10  # the search_catalog tool's default
CHANNELS = dict.fromkeys(("jsonld", "mcp", "webmcp", "feed", "pricing", "quote", "a2a"), True)
TARGETS = {"held_out_ndcg5": 0.95, "zero_results": 0.0, "false_matches": 0.01, "tuned_style_ndcg5": 0.97}


def company_key(style: str) -> str:
    """The plugin key of the company whose catalog is written in `style`."""
    return f"relbench-{style}"


def upstream_catalog(truths: list) -> DemoCatalog:
    """A demo upstream holding one active, live company per style, each selling the whole truth in its style."""
    catalog = DemoCatalog(companies=0, products=0, seed=34)
    for style in STYLES:
        key = company_key(style)
        catalog.add_company(
            products=0,
            plugin_key=key,
            name=f"Relevance {style.title()} Heating & Plumbing",
            status="active",
            storefront_live=True,
            trades=["hvac", "plumbing"],
            settings={"currency": "USD", "channels": CHANNELS},
        )
        for truth in truths:
            record = RENDER[style](truth)
            price = f"{truth.price:.2f}"
            catalog.set_product(key, truth.sku, price=price, cost=price, published=True, image_url=None, **record)
    return catalog


def sync(url: str, catalog: DemoCatalog) -> float:
    """The real sync of the upstream into the database at `url`; its seconds."""
    upstream = start_in_thread(catalog, token=TOKEN)
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


def ask_all(url: str, truths: list) -> list:
    """Every wording of every intent at every style's company, judged."""
    asked, hidden = intents(truths), held_out_wordings(intents(truths))
    engine = make_engine(url)
    outcomes = []
    try:
        with make_session_factory(engine)() as session:
            for style in STYLES:
                for intent in asked:
                    for wording in intent.wordings:
                        found = search_catalog(session, company_key(style), wording, limit=LIMIT)
                        session.rollback()  # each search its own snapshot, as a request's would be
                        ranked = [hit.sku for hit in found.hits]
                        first = found.hits[0].name if found.hits else None
                        outcomes.append(judge(wording, style, wording in hidden, intent.want, ranked, first, truths))
    finally:
        engine.dispose()
    return outcomes


def measure(server: str = DEFAULT_SERVER) -> dict:
    """Build, sync, ask and judge; the figures per style and wording set, the targets, the worst queries."""
    logging.getLogger("mirror").setLevel(logging.ERROR)
    truths = products()
    url = make_url(normalise_database_url(server)).set(database="mirror_bench_relevance")
    url = url.render_as_string(hide_password=False)
    fresh_database(url)
    sync_s = sync(url, upstream_catalog(truths))
    outcomes = ask_all(url, truths)
    return summarise(outcomes, len(truths), sync_s)


def summarise(outcomes: list, product_count: int, sync_s: float) -> dict:
    """The report's figures from the judged outcomes."""
    rows = []
    for style in STYLES:
        mine = [o for o in outcomes if o.style == style]
        row = {"style": style, "held_out_style": style == HELD_OUT_STYLE}
        row["tuned"] = Figures([o for o in mine if not o.held_out]).summary()
        row["held_out"] = Figures([o for o in mine if o.held_out]).summary()
        row["all"] = Figures(mine).summary()
        rows.append(row)
    # The worst ten, tuned parts apart from held-out ones, so a session tuning the search can read the first lists
    # without seeing the held-out wordings or style.
    worst = {
        f"{style}, tuned wordings": [o for o in outcomes if o.style == style and not o.held_out]
        for style in STYLES
        if style != HELD_OUT_STYLE
    }
    held = {
        f"{HELD_OUT_STYLE} (held-out style), all wordings": [o for o in outcomes if o.style == HELD_OUT_STYLE],
        "held-out wordings, tuned styles": [o for o in outcomes if o.style != HELD_OUT_STYLE and o.held_out],
    }
    issue_rows = [w for intent in intents(products()) if intent.issue for w in intent.wordings]
    tuned_styles = [style for style in STYLES if style != HELD_OUT_STYLE]
    by_pair = {(o.query, o.style): o for o in outcomes}
    issue_table = [(w, [vars(by_pair[w, style]) for style in tuned_styles]) for w in issue_rows]
    return {
        "products": product_count,
        "issue_table": issue_table,
        "sync_seconds": round(sync_s, 1),
        "rows": rows,
        "targets": verdicts(outcomes),
        "worst_tuned": {name: [vars(o) for o in Figures(group).worst()] for name, group in worst.items()},
        "worst_held_out": {name: [vars(o) for o in Figures(group).worst()] for name, group in held.items()},
    }


def verdicts(outcomes: list) -> list[tuple[str, str, bool]]:
    """(target, measured, met) for each of issue 34's targets."""
    held = Figures([o for o in outcomes if o.style == HELD_OUT_STYLE]).summary()
    held_words = Figures([o for o in outcomes if o.style != HELD_OUT_STYLE and o.held_out]).summary()
    every = Figures(outcomes).summary()
    tuned = {
        s: Figures([o for o in outcomes if o.style == s and not o.held_out]).summary()["ndcg5"]
        for s in STYLES
        if s != HELD_OUT_STYLE
    }
    # A figure with nothing to measure (None) misses its target: an empty part proves nothing.
    lowest = min((v if v is not None else 0.0) for v in tuned.values())
    held_ndcg, words_ndcg = held["ndcg5"] or 0.0, held_words["ndcg5"] or 0.0
    return [
        (
            f"held-out style ({HELD_OUT_STYLE}) nDCG@5 >= {TARGETS['held_out_ndcg5']}",
            str(held["ndcg5"]),
            held_ndcg >= TARGETS["held_out_ndcg5"],
        ),
        (
            f"held-out wordings (tuned styles) nDCG@5 >= {TARGETS['held_out_ndcg5']}",
            str(held_words["ndcg5"]),
            words_ndcg >= TARGETS["held_out_ndcg5"],
        ),
        (
            "zero results for answerable questions: 0",
            _percent(every["zero_results"]),
            every["zero_results"] is not None and every["zero_results"] <= TARGETS["zero_results"],
        ),
        (
            f"false matches <= {TARGETS['false_matches']:.0%} (of the questions with any result)",
            _percent(every["false_matches"]),
            (every["false_matches"] or 0.0) <= TARGETS["false_matches"],
        ),
        (
            f"no tuned style (tuned wordings) below {TARGETS['tuned_style_ndcg5']}",
            ", ".join(f"{s} {v}" for s, v in tuned.items()),
            lowest >= TARGETS["tuned_style_ndcg5"],
        ),
    ]


def _percent(value) -> str:
    return "n/a" if value is None else f"{value * 100:.2f}%"


def report_lines(report: dict) -> list[str]:
    """The relevance part of bench/results-search.md."""
    lines = [
        "## Relevance on catalogs in five styles (bench/relevance/, issue 34)",
        "",
        f"{report['products']} true products in each style's catalog, synced by the real sync in "
        f"{report['sync_seconds']} s; searched through mirror.read.catalog.search_catalog in process (limit "
        f"{LIMIT}); judged by the ground truth only. Held out: the {HELD_OUT_STYLE} style and 30% of the wordings "
        "(bench/relevance/README.md). Relevance figures do not depend on the machine's load.",
        "",
        "| style | wordings | questions (answerable) | nDCG@5 | MRR | zero results | false matches |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in report["rows"]:
        label = row["style"] + (" (held out)" if row["held_out_style"] else "")
        for part in ("tuned", "held_out"):
            f = row[part]
            lines.append(
                f"| {label} | {part.replace('_', '-')} | {f['queries']} ({f['answerable']}) | {f['ndcg5']} | "
                f"{f['mrr']} | {_percent(f['zero_results'])} | {_percent(f['false_matches'])} |"
            )
    lines += ["", "| target | measured | verdict |", "| --- | --- | --- |"]
    lines += [f"| {name} | {value} | {'MET' if met else 'MISSED'} |" for name, value, met in report["targets"]]
    tuned_styles = [style for style in STYLES if style != HELD_OUT_STYLE]
    lines += [
        "",
        "Issue 34's table, nDCG@5 (first result) per tuned style:",
        "",
        "| question | " + " | ".join(tuned_styles) + " |",
        "| --- |" + " --- |" * len(tuned_styles),
    ]
    for wording, cells in report["issue_table"]:
        shown = [f"{o['ndcg']:.3f} ({o['first'] or 'nothing'})" for o in cells]
        lines.append(f"| {wording} | " + " | ".join(shown) + " |")
    for name, worst in report["worst_tuned"].items():
        lines += _worst_table(f"Worst ten, {name}:", worst)
    lines += [
        "",
        "### Held out: a session tuning the search does not read below this line (bench/relevance/README.md)",
    ]
    for name, worst in report["worst_held_out"].items():
        lines += _worst_table(f"Worst ten, {name}:", worst)
    return lines


def _worst_table(title: str, worst: list[dict]) -> list[str]:
    lines = [
        "",
        title,
        "",
        "| query | style | nDCG@5 | false match | first result |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for o in worst:
        score = "unanswerable" if o["ndcg"] is None else f"{o['ndcg']:.3f}"
        first = o["first"] if o["first"] is not None else "(nothing)"
        lines.append(f"| {o['query']} | {o['style']} | {score} | {'yes' if o['false_match'] else ''} | {first} |")
    return lines


if __name__ == "__main__":
    measured = measure()
    print("\n".join(report_lines(measured)))
