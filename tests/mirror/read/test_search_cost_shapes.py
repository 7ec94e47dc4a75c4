"""What a search costs follows its own company's catalog, not the mirror (mirror/read/catalog.py, issue 30).

Each test pins one rule the search's statement keeps, by its result and by
the plan Postgres runs:

- a small catalog (the gate's `offer_count` at most SMALL_CATALOG) is read
  by the company's key, never through the full-text index, whose prefix
  lookups collect the whole mirror's matches; the answers are the same;
- the sync keeps each company's `offer_count` (migration 0014) with its
  offer groups;
- the products matching every keyword are looked for only when the
  candidates overflow the pool;
- a word the spelling step corrected a typo to matches whole, never as the
  prefix of longer words;
- a model number equal to the keywords ranks first whatever separators it
  is written with.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import text

from mirror.read import catalog as catalog_search
from mirror.read.gate import read_state
from mirror.store import db
from tests.surface_helpers import add_company, set_product, sync

KEY = "cost-shapes"
EQUIPMENT = {"name": "HVAC Equipment", "slug": "hvac-equipment", "kind": "system"}
WATER = {"name": "Water Heaters", "slug": "water-heaters", "kind": "system"}
GIN = "ix_products_plugin_key_search_vector"


def _product(sku: str, name: str, brand: str | None, price: str, models=(), category=EQUIPMENT, **fields) -> dict:
    return {
        "sku": sku,
        "name": name,
        "brand": brand,
        "category": category,
        "tier": None,
        "price": price,
        "model_numbers": list(models),
        **fields,
    }


PRODUCTS = [
    _product("HP-1", "Lennox Heat Pump 3 ton", "Lennox", "9000.00", ["ML17XP1-036"]),
    _product("HP-2", "Goodman Heat Pump 2 ton", "Goodman", "7000.00", ["GSZ140241"]),
    _product("PUMP-1", "Zoeller Sump Pump", "Zoeller", "400.00", ["M53"], category=WATER),
    _product("WH-1", "Navien Tankless Water Heater", "Navien", "2500.00", ["NPE-240A2"], category=WATER),
    _product("WH-2", "Navienpro Condensing Tank", "Navienpro", "3100.00", ["NP-50"], category=WATER),
    _product("WH-3", "Rheem Water Heater, odd model", "Rheem", "1900.00", ["XE#50/T10"], category=WATER),
    _product("WH-5", "Rheem Water Heater, longer model", "Rheem", "1500.00", ["XE50T10-B"], category=WATER),
    _product("WH-4", "Bradford Water Heater, dashed model", "Bradford", "1800.00", ["RG2\u201350T"], category=WATER),
    _product("WH-6", "Bradford Water Heater, longer model", "Bradford", "1400.00", ["RG250T-X"], category=WATER),
    _product("HIDDEN", "Lennox Heat Pump, unpublished", "Lennox", "100.00", published=False),
]


@pytest.fixture
def catalog(mirror, upstream):
    """The catalog above, synced; yields its gate entry."""
    add_company(upstream, PRODUCTS, plugin_key=KEY)
    sync(mirror)
    return read_state(mirror.engine).entries[KEY]


def _search(mirror, company, query: str, limit: int = 10):
    with mirror.Session() as session:
        return catalog_search.search_catalog(session, company, query, limit=limit)


def _plans(mirror, company, query: str, monkeypatch) -> list[str]:
    """EXPLAIN ANALYZE of each search statement one search runs, as text."""
    captured = []
    real = catalog_search.statement_rows

    def capture(session, statement, params):
        captured.append((statement, params))
        return real(session, statement, params)

    monkeypatch.setattr(catalog_search, "statement_rows", capture)
    _search(mirror, company, query)
    monkeypatch.undo()
    plans = []
    with mirror.engine.connect() as connection:
        for statement, params in captured:
            sql, defaults = db._compiled_for_postgres(statement)
            cursor = connection.connection.driver_connection.cursor()
            cursor.execute("EXPLAIN (ANALYZE, COSTS OFF) " + sql, {**defaults, **params}, prepare=False)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
    return plans


def test_the_sync_keeps_each_companys_number_of_public_products(catalog, mirror, upstream):
    assert catalog.offer_count == len(PRODUCTS) - 1  # the unpublished one is no offer
    upstream.catalog.delete_product(KEY, "HP-2")
    set_product(upstream, KEY, **_product("HP-3", "Lennox Heat Pump 5 ton", "Lennox", "11000.00"))
    set_product(upstream, KEY, **_product("HP-4", "Lennox Heat Pump 4 ton", "Lennox", "10000.00"))
    sync(mirror)
    assert read_state(mirror.engine).entries[KEY].offer_count == len(PRODUCTS)


def test_a_small_catalog_is_read_by_its_key_and_answers_as_the_index_would(catalog, mirror, monkeypatch):
    assert catalog.offer_count <= catalog_search.SMALL_CATALOG
    large = replace(catalog, offer_count=catalog_search.SMALL_CATALOG + 1)  # the same rows, searched as a large one
    for query in ("pump", "lennox heat pump", "navien", "water heater odd", "GSZ140241", "nothing here"):
        small_found, large_found = _search(mirror, catalog, query), _search(mirror, large, query)
        assert [h.sku for h in small_found.hits] == [h.sku for h in large_found.hits], query
        assert (small_found.total, small_found.unmatched) == (large_found.total, large_found.unmatched), query
    for plan in _plans(mirror, catalog, "pump", monkeypatch):
        assert GIN not in plan, plan  # its 7 rows tested one by one, not the mirror's "pump" words collected


def test_the_products_matching_every_keyword_are_looked_for_only_when_the_pool_overflows(catalog, mirror, monkeypatch):
    large = replace(catalog, offer_count=catalog_search.SMALL_CATALOG + 1)
    (plan,) = _plans(mirror, large, "lennox pump", monkeypatch)
    filtered = plan.split("One-Time Filter")
    assert len(filtered) == 2, plan
    # The node under the filter did not run (the first node after it: PostgreSQL 18 lists the filter's buffers
    # between them, 15 does not).
    under = next(line for line in filtered[1].split("\n") if "->" in line)
    assert "never executed" in under, plan
    assert [h.sku for h in _search(mirror, large, "lennox pump").hits][:1] == ["HP-1"]


def test_a_large_catalogs_search_never_scans_the_products_table(catalog, mirror, monkeypatch):
    # 20,000 more sump pumps, after every other row of the table: for a word in all of them the planner's
    # choice was "the first matches will come soon" from a scan of the whole table, which starts where the
    # last scan stopped, and so may read every other company's rows first (mirror.store.db._reader_options).
    many = 20_000
    with mirror.writer_engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO products (plugin_key, sku, name, category_name, category_slug, category_kind, "
                "model_numbers, price_cents, published, specs, upstream_updated_at, record_hash) "
                "SELECT :key, 'MANY-' || n, 'Sump Pump ' || n, 'Water Heaters', 'water-heaters', 'system', "
                "'[]', 10000 + n, true, '{}', now(), md5(n::text) FROM generate_series(1, :many) AS n"
            ),
            {"key": KEY, "many": many},
        )
        connection.execute(text("ANALYZE products"))
    large = replace(catalog, offer_count=len(PRODUCTS) + many)
    for query in ("pump", "sump pump", "pumps"):
        for plan in _plans(mirror, large, query, monkeypatch):
            assert "Seq Scan on products" not in plan, plan
    found = _search(mirror, large, "sump pump")  # found on the index all the same
    assert (found.total, found.complete) == (catalog_search.MAX_RANKED, False)
    assert len(found.hits) == 10 and all("Sump Pump" in hit.name for hit in found.hits)


def test_a_corrected_word_matches_whole_never_as_the_prefix_of_a_longer_one(catalog, mirror):
    found = _search(mirror, catalog, "naiven")
    assert [c.meant for c in found.understood.corrections] == ["navien"]
    assert [h.sku for h in found.hits] == ["WH-1"]  # not the Navienpro tank: "navien" is a whole word
    assert {h.sku for h in _search(mirror, catalog, "navien").hits} == {"WH-1", "WH-2"}  # typed: still a prefix


def test_a_model_number_equal_to_the_keywords_ranks_first_whatever_its_separators(catalog, mirror):
    # Each before the cheaper product whose model only begins with the keywords.
    assert [h.sku for h in _search(mirror, catalog, "xe50t10").hits] == ["WH-3", "WH-5"]  # '#' and '/'
    assert [h.sku for h in _search(mirror, catalog, "RG250T").hits] == ["WH-4", "WH-6"]  # an en dash


def test_the_gate_reads_the_count_with_the_rest_of_the_entry(catalog, mirror):
    with mirror.engine.connect() as connection:
        stored = connection.execute(text("SELECT offer_count FROM companies WHERE plugin_key = :k"), {"k": KEY})
        assert stored.scalar_one() == catalog.offer_count


def test_a_small_catalogs_search_is_prepared_and_a_large_ones_planned_per_call(catalog, mirror, monkeypatch):
    """A small catalog's plan reads its rows by key whatever the words: one generic plan serves them all and the
    search saves its planning. A large one's plan depends on the words (a rare one on the index, a common one
    by the company's rows), so it is planned for them on every call."""
    shapes = []
    real = catalog_search._statement.__wrapped__

    def record(shape):
        shapes.append(shape)
        return real(shape)

    monkeypatch.setattr(catalog_search, "_statement", record)
    large = replace(catalog, offer_count=catalog_search.SMALL_CATALOG + 1)
    _search(mirror, catalog, "lennox heat pump")
    _search(mirror, large, "lennox heat pump")
    planned = [bool(real(shape).get_execution_options().get(db.PLAN_PER_CALL)) for shape in shapes]
    assert [shape.small for shape in shapes] == [True, False] and planned == [False, True]
