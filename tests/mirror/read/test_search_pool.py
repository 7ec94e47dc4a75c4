"""A search ranks a bounded pool of its matches (mirror/read/catalog.py, MAX_RANKED), and says so.

Ranking scores every candidate, so a word thousands of products share cost
the search hundreds of milliseconds on a large catalog. On Postgres the
search ranks the products matching every keyword and the first MAX_RANKED
matches; beyond that, the total says "more than" (`total_matches_exact`
false). These tests shrink MAX_RANKED to a few products and pin: the total's
label, the products matching every keyword ranked first even when they come
last in the table, a keyword the company does carry never reported as
unmatched, and an exact total below the bound.
"""

from __future__ import annotations

import pytest

from mirror.read import catalog as catalog_search
from tests.surface_helpers import add_company

KEY = "pool-test"
BOUND = 4


PLUMBING = {"name": "Plumbing", "slug": "plumbing", "kind": "accessory"}


def _pump(sku: str, name: str, brand: str, price: str = "100.00") -> dict:
    return {"sku": sku, "name": name, "brand": brand, "category": PLUMBING, "tier": None, "price": price}


@pytest.fixture
def small_pool(monkeypatch, mirror, upstream):
    """Twelve sump pumps, the Bosch one written last and the cheapest, and MAX_RANKED at BOUND."""
    pumps = [_pump(f"PUMP-{number:02d}", f"Zoeller Sump Pump {number}", "Zoeller") for number in range(11)]
    add_company(upstream, [*pumps, _pump("PUMP-BOSCH", "Bosch Sump Pump", "Bosch", "80.00")], plugin_key=KEY)
    result = mirror.sync()
    assert result.status == "success", result.error
    monkeypatch.setattr(catalog_search, "MAX_RANKED", BOUND)
    catalog_search._statement.cache_clear()  # statements are built once per shape, with the bound in them
    yield mirror
    catalog_search._statement.cache_clear()


def _search(mirror, query: str):
    with mirror.Session() as session:
        return catalog_search.search_catalog(session, KEY, query, limit=3)


def test_more_matches_than_the_bound_say_more_than(small_pool):
    found = _search(small_pool, "sump pump")
    assert (found.total, found.complete) == (BOUND, False)
    assert len(found.hits) == 3


def test_the_products_matching_every_keyword_are_ranked_first(small_pool):
    found = _search(small_pool, "bosch pump")
    assert found.hits[0].sku == "PUMP-BOSCH"
    assert not found.complete and found.unmatched == ()


def test_a_keyword_outside_the_pool_that_the_company_carries_is_not_unmatched(small_pool):
    found = _search(small_pool, "zoeller bosch")  # no product is both: the pool is Zoeller's first four
    assert not found.complete
    assert found.unmatched == ()


def test_under_the_bound_the_total_is_exact(small_pool):
    found = _search(small_pool, "bosch")
    assert (found.total, found.complete, [h.sku for h in found.hits]) == (1, True, ["PUMP-BOSCH"])


def test_a_browse_ranks_the_first_in_price_order(small_pool):
    found = _search(small_pool, "cheapest")  # no keyword: every product, in price order
    assert (found.total, found.complete) == (BOUND, False)
    assert [hit.sku for hit in found.hits] == ["PUMP-BOSCH", "PUMP-00", "PUMP-01"]
    dearest = _search(small_pool, "most expensive")
    assert dearest.hits[-1].sku != "PUMP-BOSCH" and not dearest.complete


def test_a_corrected_search_leaves_out_the_words_that_found_nothing_and_still_reports_them(small_pool, monkeypatch):
    """The second search (after a correction) tests only what may match: a word the whole catalog lacked
    in a complete first search is left out of it, and reported unmatched all the same."""
    searched = []
    statement_rows = catalog_search.statement_rows

    def spy(session, statement, params):
        searched.append({k: v for k, v in params.items() if k.startswith("term_")})
        return statement_rows(session, statement, params)

    monkeypatch.setattr(catalog_search, "statement_rows", spy)
    found = _search(small_pool, "bosch qqqqzz sumpp")  # "sumpp": "sump"; "qqqqzz": in no product
    assert found.hits[0].sku == "PUMP-BOSCH"
    assert [(c.typed, c.meant) for c in found.understood.corrections] == [("sumpp", "sump")]
    assert found.unmatched == ("qqqqzz",)
    first, again = searched[0], searched[-1]
    assert any("qqqqzz" in text for text in first.values())
    assert not any("qqqqzz" in text for text in again.values()) and any("bosch" in t for t in again.values())


def test_a_browse_of_the_dearest_of_a_kind_lists_them_dearest_first(mirror, upstream):
    """The order reads the pool's prices: the dearest parts of a company whose systems cost more come first."""
    system = {"name": "Furnaces", "slug": "furnaces", "kind": "system"}
    parts = [_pump(f"PART-{n}", f"Sump Pump {n}", "Zoeller", f"{100 + n}.00") for n in range(5)]
    systems = [
        {**_pump(f"SYS-{n}", f"Gas Furnace {n}", "Goodman", f"{5000 + n}.00"), "category": system} for n in range(5)
    ]
    add_company(upstream, [*parts, *systems], plugin_key=KEY)
    assert mirror.sync().status == "success"
    found = _search(mirror, "most expensive part")
    assert [hit.sku for hit in found.hits] == ["PART-4", "PART-3", "PART-2"]
