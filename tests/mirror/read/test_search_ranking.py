"""Search ranking on the database's full-text index, pinned on a fixed catalog.

A demo upstream holds the catalog below; the mirror syncs it and the same
answers must come back from the index (tsvector, GIN, ts_rank_cd). The index is written by the sync's own transaction, so the tests
also change and remove products and sync again.
"""

from __future__ import annotations

import pytest

from mirror.read.businesses import search_feed_businesses
from mirror.read.catalog import search_catalog
from mirror.store.fulltext import Term, stem_at_least, words
from tests.mcp_helpers import MCP_OFF, TUDI, seed_known_companies

KEY = "rank-test"
OTHER = "rank-other"

# sku: (name, brand, models, price, description, published)
CATALOG = {
    "AC-LX-036": ("Lennox 16 SEER2 Air Conditioner", "Lennox", ["ML17XP1-036"], "9000.00", "Quiet outdoor unit.", True),
    "AC-LX-0360": (
        "Lennox Air Conditioner, variant",
        "Lennox",
        ["ML17XP1-0360"],
        "8000.00",
        "Quiet outdoor unit.",
        True,
    ),
    "FURN-LX": ("Lennox Gas Furnace", "Lennox", ["EL296V-080"], "5000.00", "Efficient heat.", True),
    "FURN-GM": ("Goodman Gas Furnace", "Goodman", ["GR9S800603"], "100.00", "Works with Lennox thermostats.", True),
    "WH-RH": ("Rheem Water Heater", "Rheem", ["XE50T10"], "900.00", "Not a furnace. " + "furnace " * 30, True),
    "FLT-1": ("Pleated Air Filter 16x25x1", None, [], "20.00", "One filter.", True),
    "FLT-6": ("Air Filters, six pack", None, [], "90.00", "Six filters.", True),
    "TW-2": ("Twin Thermostat", "Honeywell", [], "150.00", "Same.", True),
    "TW-1": ("Twin Thermostat", "Honeywell", [], "150.00", "Same.", True),
    "TW-0": ("Twin Thermostat", "Honeywell", [], "140.00", "Same.", True),
    "HIDDEN": ("Lennox Secret Furnace", "Lennox", ["ML17XP1-036"], "100.00", "Unpublished.", False),
    "FREE": ("Lennox Free Furnace", "Lennox", ["ML17XP1-036"], "0.00", "Zero price.", True),
}


def _product(catalog, key, sku, name, brand, models, price, description, published):
    catalog.set_product(
        key,
        sku,
        name=name,
        category={"name": "HVAC Equipment", "slug": "hvac-equipment", "kind": "system"},
        tier=None,
        brand=brand,
        model_numbers=models,
        price=price,
        description=description,
        published=published,
        image_url=None,
        specs={},
        cost="1.00",
    )


@pytest.fixture
def ranked(mirror, upstream):
    """The fixed catalog synced into the mirror; yields a search function."""
    catalog = upstream.catalog
    for key, name in ((KEY, "Rank Test Heating"), (OTHER, "Other Cooling")):
        catalog.add_company(products=0, plugin_key=key, name=name, status="active", storefront_live=True)
    for sku, fields in CATALOG.items():
        _product(catalog, KEY, sku, *fields)
    _product(catalog, OTHER, "AC-OTHER", "Lennox Air Conditioner", "Lennox", ["ML17XP1-036"], "1.00", "", True)
    result = mirror.sync()
    assert result.status == "success", result.error

    def search(query, key=KEY, **kwargs):
        with mirror.Session() as session:
            found = search_catalog(session, key, query, limit=kwargs.pop("limit", 50), **kwargs)
        return [hit.sku for hit in found.hits], found.total

    search.mirror = mirror
    search.catalog = catalog
    return search


def test_a_name_or_brand_word_outweighs_one_only_in_the_description(ranked):
    skus, total = ranked("lennox")
    assert skus[-1] == "FURN-GM"  # the cheapest, but Lennox only in its description
    assert set(skus[:-1]) == {"AC-LX-036", "AC-LX-0360", "FURN-LX"} and total == 4


def test_a_kind_of_product_is_found_by_names_never_by_a_description_repeating_it(ranked):
    # "furnace" names a concept (mirror/query): a water heater whose description says
    # "furnace" thirty times is not a furnace.
    skus, total = ranked("furnace")
    assert set(skus) == {"FURN-GM", "FURN-LX"} and total == 2


def test_matching_every_term_ranks_above_matching_some(ranked):
    skus, total = ranked("lennox quiet")  # keywords: each product matching any, both first
    assert set(skus[:2]) == {"AC-LX-036", "AC-LX-0360"}
    assert set(skus[2:]) == {"FURN-LX", "FURN-GM"} and total == 4
    # A concept and a keyword: only furnaces, the Lennox one first (FURN-GM names Lennox in its description).
    assert ranked("lennox furnace") == (["FURN-LX", "FURN-GM"], 2)


def test_plural_and_singular_forms_match(ranked):
    singular, _ = ranked("filter")
    plural, _ = ranked("filters")
    assert set(singular) == set(plural) == {"FLT-1", "FLT-6"}
    assert ranked("air filter 16x25x1")[0][0] == "FLT-1"
    assert ranked("furnaces")[0] == ranked("furnace")[0]


def test_model_numbers_match_exactly_and_by_prefix(ranked):
    exact, _ = ranked("ML17XP1-036")
    assert exact == ["AC-LX-036", "AC-LX-0360"]  # the exact model first, though dearer
    assert ranked("ml17xp1036")[0] == ["AC-LX-036", "AC-LX-0360"]
    assert ranked("ML17XP1-0360")[0][0] == "AC-LX-0360"
    for prefix in ("ML17", "ml17xp1", "ML17XP1-03"):
        assert set(ranked(prefix)[0]) == {"AC-LX-036", "AC-LX-0360"}, prefix
    assert ranked("EL296V-080") == (["FURN-LX"], 1)
    assert ranked("Lennox's furnace")[0][0] == "FURN-LX"  # a possessive's lone "s" is not required


def test_a_word_whose_stem_is_one_or_two_letters_matches_whole_never_as_a_prefix(ranked):
    """The stemmer reads "oing" as "o": as a prefix it would match every product with a word in o (Other,
    Outdoor, One); whole, it matches none. A longer stem stays a prefix: "thermo" finds the thermostats."""
    assert ranked("oing") == ([], 0)
    assert ranked("aled") == ([], 0)
    assert set(ranked("thermo")[0]) == {"TW-0", "TW-1", "TW-2", "FURN-GM"}
    assert [stem_at_least(word) for word in ("oing", "aled", "ates", "pumps", "heating", "bring")] == [1, 2, 2, 4, 4, 5]


def test_ties_fall_back_to_price_then_name_then_sku(ranked):
    # Three thermostats alike but for price, name or SKU (FURN-GM's description names thermostats:
    # it is no thermostat).
    assert ranked("twin thermostat") == (["TW-0", "TW-1", "TW-2"], 3)


def test_only_public_products_of_the_company_are_searched(ranked):
    everything = ranked("lennox furnace secret free", limit=50)[0]
    assert not {"HIDDEN", "FREE", "AC-OTHER"} & set(everything)
    assert ranked("lennox", key=OTHER) == (["AC-OTHER"], 1)
    assert ranked("zeppelin") == ([], 0) and ranked("   ") == ([], 0)


def test_filters_and_limit(ranked):
    skus, total = ranked("lennox", max_price_cents=800000)
    assert set(skus[:2]) == {"AC-LX-0360", "FURN-LX"} and skus[2:] == ["FURN-GM"] and total == 3
    skus, total = ranked("lennox", limit=1)
    assert len(skus) == 1 and total == 4


def test_the_index_follows_each_sync(ranked):
    _product(ranked.catalog, KEY, "FURN-LX", "Lennox Boiler", "Lennox", ["EL296V-080"], "5000.00", "Hot water.", True)
    ranked.catalog.delete_product(KEY, "FURN-GM")
    _product(ranked.catalog, KEY, "NEW-1", "Zeppelin Furnace", None, [], "10.00", "", True)
    assert ranked.mirror.sync().status == "success"
    assert ranked("furnace") == (["NEW-1"], 1)
    assert ranked("boiler") == (["FURN-LX"], 1)
    assert ranked.mirror.sync(full=True).status == "success"
    assert ranked("furnace") == (["NEW-1"], 1)


def test_a_term_keeps_a_model_chunk_together():
    def term(chunk: str) -> tuple[tuple[str, ...], str]:
        found = Term.of(words(chunk))
        return found.parts, found.compact

    assert term("ML17XP1-036") == (("ml17xp1", "036"), "ml17xp1036")
    assert term("filters") == (("filters",), "filters")
    assert term("Lennox's") == (("lennox",), "lennoxs")  # a lone letter beside others is left to the compact form
    assert term("XC25-A") == (("xc25",), "xc25a")
    assert term("a") == (("a",), "a")  # alone, it is the term


@pytest.fixture
def businesses(mirror, upstream):
    """The MCP tests' known companies, and only those, synced; yields a search returning keys."""
    for key in upstream.catalog.company_keys():
        upstream.catalog.remove_company(key)
    seed_known_companies(upstream.catalog)
    assert mirror.sync().status == "success"

    def search(query, **kwargs):
        with mirror.Session() as session:
            found = search_feed_businesses(session, query=query, limit=20, **kwargs)
        return [m.company.plugin_key for m in found.matches], found.total

    return search


def test_business_search_ranks_name_then_trades_then_categories(businesses):
    assert businesses("tudi") == ([TUDI], 1)
    assert businesses("mechanical tudi")[0][0] == TUDI  # both terms in the name
    assert businesses("variant") == ([MCP_OFF], 1)  # the other variants are outside the feed
    hvac, _ = businesses("hvac")
    assert hvac == [TUDI, MCP_OFF]  # both have it in their trades: name order
    assert businesses("plumbing")[0][0] == TUDI  # a trade outweighs a category another sells
    assert businesses("thermostats")[0][0] == TUDI  # a category it sells, plural or not
    assert businesses("thermostat")[0][0] == TUDI
    assert businesses("zeppelin") == ([], 0)
    assert businesses("tudi", postal_code="10001") == ([], 0)
    assert businesses("tudi", category="central-ac") == ([TUDI], 1)
    assert businesses("tudi", category="spaceships") == ([], 0)


def test_the_migration_goes_down_and_up_and_rebuilds_the_index(ranked, database_url):
    from alembic import command
    from sqlalchemy import create_engine, inspect, text

    from mirror.store.migrate import alembic_config

    config = alembic_config(database_url)
    command.check(config)  # models and migrations agree; the index is outside the ORM on purpose
    command.downgrade(config, "0002")
    engine = create_engine(database_url)
    try:
        schema = inspect(engine)
        assert "search_vector" not in {c["name"] for c in schema.get_columns("products")}
        with engine.connect() as connection:
            configs = text("SELECT count(*) FROM pg_ts_config WHERE cfgname = 'mirror_search'")
            assert connection.execute(configs).scalar() == 0
    finally:
        engine.dispose()
    command.upgrade(config, "head")  # indexes the rows already there
    command.check(config)
    assert ranked("ML17XP1-036") == (["AC-LX-036", "AC-LX-0360"], 2)
    assert ranked("lennox")[1] == 4


def test_the_cheaper_product_vector_of_0004_is_the_vector_of_0003(ranked, database_url):
    """0004 only computes products.search_vector for less: every row's vector stays the same."""
    from alembic import command
    from sqlalchemy import create_engine, text

    from mirror.store.migrate import alembic_config

    engine = create_engine(database_url)
    vectors = text("SELECT plugin_key, sku, search_vector::text FROM products ORDER BY plugin_key, sku")
    try:
        config = alembic_config(database_url)
        with engine.connect() as connection:
            new = connection.execute(vectors).all()
        command.downgrade(config, "0003")
        with engine.connect() as connection:
            old = connection.execute(vectors).all()
        command.upgrade(config, "head")
        with engine.connect() as connection:
            again = connection.execute(vectors).all()
    finally:
        engine.dispose()
    assert len(new) > len(CATALOG)  # the fixed catalog and the demo companies around it
    assert new == old == again


def test_one_autocommit_statement_and_the_same_answer_inside_a_transaction(ranked):
    # A request's search is its own snapshot (one statement, no BEGIN or
    # ROLLBACK); inside a transaction the same statement runs in the
    # session: both answer alike.
    import threading

    from sqlalchemy import text

    from tests.mirror_helpers import postgres_statements

    mirror = ranked.mirror
    queries = ("lennox furnace", "ML17XP1-036", "filters", "twin thermostat")
    seen: list[str] = []
    me = threading.get_ident()
    ranked("warm")  # the reader's first connection (the engine's first connect speaks first)
    with mirror.Session() as session, postgres_statements(lambda sql: threading.get_ident() == me and seen.append(sql)):
        alone = [search_catalog(session, KEY, q, limit=50) for q in queries]
    with mirror.Session() as session:
        session.execute(text("SELECT 1"))  # the session's snapshot has begun
        inside = [search_catalog(session, KEY, q, limit=50) for q in queries]
    assert [(f.hits, f.total) for f in alone] == [(f.hits, f.total) for f in inside]
    assert all(found.hits for found in alone)
    assert len(seen) == len(queries) and all("search_vector" in sql for sql in seen)


def test_an_incremental_update_leaves_every_vector_as_writing_the_row_afresh_would(ranked, database_url):
    """mirror.sync.bulk.update_rows: a repriced product keeps its vector without Postgres computing it again
    (the statement leaves the vector's source columns out); a product whose text changed gets its new one."""
    from sqlalchemy import create_engine, text

    from mirror.sync.apply import PRODUCT_VECTOR_SOURCES

    catalog = ranked.catalog
    furnaces = ranked("furnace")
    _product(
        catalog, KEY, "FURN-LX", "Lennox Gas Furnace", "Lennox", ["EL296V-080"], "5100.00", "Efficient heat.", True
    )
    _product(catalog, KEY, "TW-1", "Steam Boiler", "Honeywell", [], "150.00", "Same.", True)  # renamed
    _product(catalog, KEY, "FLT-1", "Pleated Air Filter 16x25x1", None, ["PF-1625"], "20.00", "One filter.", True)
    _product(catalog, KEY, "FLT-6", "Air Filters, six pack", "Nordic", [], "90.00", "Six filters.", True)
    _product(catalog, KEY, "TW-2", "Twin Thermostat", "Honeywell", [], "150.00", "Same, with a zeppelin.", True)
    result = ranked.mirror.sync()
    assert result.status == "success" and result.counts.products_written == 5
    assert ranked("furnace") == furnaces and "FURN-LX" in furnaces[0]  # repriced: found as before
    assert ranked("boiler") == (["TW-1"], 1) and ranked("twin")[0] == ["TW-0", "TW-2"]
    assert ranked("PF-1625") == (["FLT-1"], 1) and ranked("nordic") == (["FLT-6"], 1)
    assert ranked("zeppelin") == (["TW-2"], 1)

    engine = create_engine(database_url)
    vectors = text("SELECT plugin_key, sku, search_vector::text FROM products ORDER BY plugin_key, sku")
    # The columns Postgres computes the vector from, by its own record: a
    # source left out of PRODUCT_VECTOR_SOURCES would keep stale vectors.
    sources = text(
        "SELECT source.attname FROM pg_attrdef AS expression"
        " JOIN pg_attribute AS generated"
        " ON generated.attrelid = expression.adrelid AND generated.attnum = expression.adnum"
        " JOIN pg_depend AS d ON d.classid = 'pg_attrdef'::regclass AND d.objid = expression.oid"
        " JOIN pg_attribute AS source ON source.attrelid = d.refobjid AND source.attnum = d.refobjsubid"
        " WHERE expression.adrelid = 'products'::regclass AND generated.attname = 'search_vector'"
        " AND d.deptype = 'n'"
    )
    try:
        with engine.connect() as connection:
            stored = connection.execute(vectors).all()
            assert set(connection.scalars(sources)) == set(PRODUCT_VECTOR_SOURCES)
            connection.execute(text("UPDATE products SET name = name"))  # every row's index entry written afresh
            afresh = connection.execute(vectors).all()
            connection.rollback()
    finally:
        engine.dispose()
    assert len(stored) > len(CATALOG) and stored == afresh
