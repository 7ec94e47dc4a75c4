"""A cold request (a company not in the render cache) costs a fixed number of statements.

The gate state and the render cache make a warm request no statement at all,
but a crawler walking thousands of contractors mostly finds companies the
cache does not hold. On a miss the view is built from ONE statement (the
row, the sync time and the offer groups together;
mirror/read/company.py `load_company_snapshot`), so a cold request costs
the same statements for a company with six products as for one with a
hundred, in a mirror of one company as in one of thirty. And what a cold
request answers is byte for byte what the warm one answers.

Statements are counted as tests/mirror/render/test_render_cache.py counts them: every
statement and transaction command psycopg sends.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests import REPO_ROOT
from tests.mirror.render.test_render_cache import MCP_HEADERS, cache, round_trips
from tests.surface_helpers import FILTERS, HEAT_PUMP, add_company, set_product, sync

SURFACES = (
    "/companies/{key}/pricing.json",
    "/companies/{key}.jsonld",
    "/companies/{key}/pricing",
    "/companies/{key}/quote",
)
# Every one served as the sync rendered it (mirror/render/documents.py): a cold request reads one stored row.
STORED = SURFACES
CATALOG_TABLES = {"companies", "products", "offer_groups", "company_words", "company_concepts", "sync_state"}
EXTRA_CATEGORIES = [{"name": f"Category {n}", "slug": f"category-{n}", "kind": "accessory"} for n in range(12)]


def search_body(query: str) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search_catalog", "arguments": {"query": query}},
        }
    )


def send(client, key: str, surface: str):
    if surface == "search_catalog":
        return client.post(f"/companies/{key}/mcp", data=search_body("heat pump"), headers=MCP_HEADERS)
    return client.get(surface.format(key=key))


def cold_and_warm(app, client, mirror, key: str) -> dict[str, tuple[list[str], bytes, bytes, str | None]]:
    """Per surface: the statements of a cold request, its body, the warm body and the ETag."""
    seen = {}
    send(client, key, "search_catalog")  # the pool's first connection says hello once; not a request's cost
    for surface in (*SURFACES, "search_catalog"):
        cache(app).clear()
        with round_trips(mirror) as statements:
            cold = send(client, key, surface)
        warm = send(client, key, surface)
        assert cold.status_code == warm.status_code and cold.status_code in (200, 302), (surface, cold.status_code)
        assert cold.headers.get("ETag") == warm.headers.get("ETag"), surface
        assert cold.headers.get("Location") == warm.headers.get("Location"), surface
        seen[surface] = (list(statements), cold.get_data(), warm.get_data(), cold.headers.get("ETag"))
    return seen


def grow_catalog(upstream, key: str) -> None:
    """A hundred more products for `key` across a dozen more categories, and thirty more companies."""
    for n in range(100):
        category = EXTRA_CATEGORIES[n % len(EXTRA_CATEGORIES)] if n % 3 else (HEAT_PUMP if n % 2 else FILTERS)
        tier = ("good", "better", "best")[n % 3] if category["kind"] == "system" else None
        set_product(
            upstream,
            key,
            f"EXTRA-{n:03d}",
            name=f"Extra product {n}",
            category=category,
            tier=tier,
            price=f"{100 + n * 7}.50",
        )
    for n in range(30):
        add_company(upstream, name=f"Other Company {n}")


def test_a_cold_request_costs_the_same_few_statements_whatever_the_catalog_size(upstream, mirror, app, client):
    key = add_company(upstream)
    sync(mirror)
    small = cold_and_warm(app, client, mirror, key)
    grow_catalog(upstream, key)
    sync(mirror)
    large = cold_and_warm(app, client, mirror, key)
    assert b"Category 11" in large["/companies/{key}/pricing.json"][1]  # the catalog really grew
    for surface in (*SURFACES, "search_catalog"):
        assert len(large[surface][0]) == len(small[surface][0]), (surface, small[surface][0], large[surface][0])
    for surface in SURFACES:
        statements = large[surface][0]
        # The gate asks the database nothing (mirror/read/gate.py); the view is
        # built from ONE statement (on Postgres with no BEGIN/ROLLBACK). Never a
        # per-product or per-category query.
        assert len(statements) == 1, (surface, statements)
        if surface in STORED:  # the document the sync rendered: its one row, no catalog table
            assert "rendered_documents" in statements[-1], (surface, statements)
            assert not CATALOG_TABLES.intersection(re.findall(r"\b\w+\b", statements[-1])), (surface, statements)
        else:
            assert "offer_groups" in statements[-1] and "companies" in statements[-1]


def test_a_quote_redirect_reads_nothing_cold_or_warm(upstream, mirror, app, client):
    """The funnel is in the gate's entry (mirror/read/gate.py): the 302 asks the database nothing, however large
    the catalog, and sends where the company's view says (its own funnel, stamped)."""
    funnel = {"systems_estimate_url": "https://funnel.example/estimate?ref=site", "systems_estimate_url_verified": True}
    key = add_company(upstream, settings={"currency": "USD", "channels": {}, **funnel})
    grow_catalog(upstream, key)
    sync(mirror)
    client.get(f"/companies/{key}/pricing.json")  # the pool's first connection and the gate's state: no request's cost
    cache(app).clear()
    with round_trips(mirror) as statements:
        cold = client.get(f"/companies/{key}/quote")
    assert cold.status_code == 302 and list(statements) == [], statements
    with mirror.Session() as session:
        from mirror.read.company import load_company_snapshot

        view = load_company_snapshot(session, key, options=False).view(mirror.settings)
    assert cold.headers["Location"] == view.funnel_url and view.funnel_url.startswith("https://funnel.example/")
    assert cold.headers["Cache-Control"] == "no-store"


def test_cold_and_warm_answers_are_byte_identical(upstream, mirror, app, client):
    key = add_company(upstream)
    grow_catalog(upstream, key)
    sync(mirror)
    for surface, (_, cold, warm, _etag) in cold_and_warm(app, client, mirror, key).items():
        assert cold == warm, surface
    # And the same as a process that never cached anything built it, view from the ORM.
    from mirror.read.company import load_company_snapshot

    with mirror.Session() as session:
        fresh = load_company_snapshot(session, key, options=True).view(mirror.settings)
    cached = cache(app).peek(key).current.view
    assert fresh.model_dump() == cached.model_dump()


def test_a_fresh_process_answers_its_first_request(upstream, mirror, database_url):
    # The gate builds its Company without the ORM constructor (mirror.catalog.public_view.transient),
    # so a worker whose very first object is that one must still configure the mappers.
    key = add_company(upstream)
    sync(mirror)
    program = (
        "import sys; from wsgi import create_app\n"
        "app = create_app({'DATABASE_URL': sys.argv[1], 'PUBLIC_BASE_URL': 'http://127.0.0.1:8000',"
        " 'SCHEDULER_ENABLED': 'false', 'RATE_LIMIT_STORAGE_URI': 'memory://'})\n"
        "client = app.test_client()\n"
        "print(client.get(f'/companies/{sys.argv[2]}/pricing.json').status_code,"
        " client.get(f'/companies/{sys.argv[2]}/pricing.json').status_code)\n"
        "app.extensions['mirror'].dispose()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, database_url, key], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["200", "200"], done.stderr[-2000:]
