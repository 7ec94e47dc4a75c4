"""What ranks first when the catalog does not say it outright (mirror/read/catalog.py's order, issue 34).

- what is only the kind asked comes before what is also another kind, whatever the contractor's category calls it:
  an air handler sold alone (an "accessory" category) before a heat pump and air handler system;
- a feature asked that no product states ("two-stage furnace" where the names say no stage): the Best tier first,
  as a contractor's tiers add features;
- equal ratings (rounded by the catalog, or stated by none) and equal tiers: the dearer first.
"""

from __future__ import annotations

import pytest

from mirror.read.catalog import search_catalog
from tests.surface_helpers import add_company

KEY = "asked-first-test"
SYSTEMS = {"name": "HP Systems", "slug": "hp-systems", "kind": "system"}
PARTS = {"name": "Air Handlers", "slug": "air-handlers", "kind": "accessory"}
FURNACE = {"name": "Furnaces", "slug": "furnaces", "kind": "system"}
AC = {"name": "A/C & Coil", "slug": "ac-coil", "kind": "system"}


def _p(sku, name, category, tier, price, specs=None) -> dict:
    return {"sku": sku, "name": name, "category": category, "tier": tier, "price": price, "specs": specs or {}}


CATALOG = [
    _p("HPAH-3", "Acme Heat Pump & Air Handler, 3 ton", SYSTEMS, "good", "9000", {"tonnage": 3}),
    _p("AH-3", "Acme Air Handler, 3 ton", PARTS, None, "2500", {"tonnage": 3}),
    _p("F-GOOD", "Acme Gas Furnace, 60K BTU", FURNACE, "good", "3000"),
    _p("F-BEST", "Acme Gas Furnace, 60K BTU", FURNACE, "best", "4400"),
    _p("F-BETTER", "Acme Gas Furnace, 60K BTU", FURNACE, "better", "3600"),
    _p("AC-2", "Acme Best A/C & Coil, 2 ton", AC, "best", "7000", {"tonnage": 2, "seer2": 18}),
    _p("AC-4", "Acme Best A/C & Coil, 4 ton", AC, "best", "9500", {"tonnage": 4, "seer2": 18}),
    _p("AC-3", "Acme Best A/C & Coil, 3 ton", AC, "best", "8000", {"tonnage": 3, "seer2": 18}),
]


@pytest.fixture
def search(mirror, upstream):
    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac"])
    result = mirror.sync()
    assert result.status == "success", result.error

    def run(query: str) -> list[str]:
        with mirror.Session() as session:
            return [hit.sku for hit in search_catalog(session, KEY, query, limit=20).hits]

    return run


def test_only_the_kind_asked_before_a_system_that_is_also_another(search):
    assert search("air handler") == ["AH-3", "HPAH-3"]


def test_a_feature_no_product_states_ranks_the_best_tier_first(search):
    assert search("two stage furnace") == ["F-BEST", "F-BETTER", "F-GOOD"]
    assert search("furnace") == ["F-GOOD", "F-BETTER", "F-BEST"]  # nothing asked: the cheapest first, as before


def test_equal_ratings_rank_the_dearer_first(search):
    assert search("most efficient air conditioner") == ["AC-4", "AC-3", "AC-2"]
