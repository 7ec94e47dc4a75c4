"""Ranking by what was asked (mirror/query/ranking.py), in the read layer's statement, pinned on a fixed catalog.

Efficiency by the rating each kind is judged by (the stored measures; a product stating none after, by the kind's
next rating, then by tier), features stated in a name or specs (never a description), each kind of a question
naming several in turn. The same order on every surface is tests/test_search_abbreviated.py.
"""

from __future__ import annotations

import pytest

from mirror.read.catalog import search_catalog
from tests.surface_helpers import add_company

KEY = "asked-test"
HP = {"name": "Heat Pumps", "slug": "heat-pumps", "kind": "system"}
FURNACE = {"name": "Furnaces", "slug": "furnaces", "kind": "system"}
WATER = {"name": "Water Heaters", "slug": "water-heaters", "kind": "system"}
TSTAT = {"name": "Thermostats", "slug": "thermostats", "kind": "accessory"}


def _p(sku, name, category, tier, price, specs=None, description=None) -> dict:
    return {
        "sku": sku,
        "name": name,
        "category": category,
        "tier": tier,
        "price": price,
        "specs": specs or {},
        "description": description,
    }


CATALOG = [
    _p("HP-A", "Acme Heat Pump A", HP, "good", "9000", {"hspf2": 9.5, "seer2": 17}),
    _p("HP-B", "Acme Heat Pump B", HP, "best", "8000", {"hspf2": 8.0, "seer2": 21}),
    _p("HP-C", "Acme Heat Pump C", HP, "better", "7000", {"seer2": 20}),  # no HSPF2: its SEER2 ranks it
    _p("HP-D", "Acme Heat Pump D", HP, "best", "6000"),  # no rating: by its tier
    _p("HP-E", "Acme Heat Pump E", HP, "good", "5000", description="Variable speed comfort, they say."),
    _p("HP-V", "Acme Heat Pump V", HP, "good", "9900", {"compressor": "Variable speed"}),
    _p("F-80", "Acme Gas Furnace 80", FURNACE, "good", "3000", {"afue": 80}),
    _p("F-96", "Acme Gas Furnace 96", FURNACE, "best", "4500", {"afue": 96}),
    _p("WH-1", "Acme Water Heater", WATER, "good", "1500", {"uef": 0.93, "gallons": 50}),
    _p("TS-W", "Acme Wi-Fi Thermostat", TSTAT, None, "250"),
    _p("TS-P", "Acme Programmable Thermostat", TSTAT, None, "120"),
]


@pytest.fixture
def search(mirror, upstream):
    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac", "plumbing"])
    result = mirror.sync()
    assert result.status == "success", result.error

    def run(query: str, limit: int = 50) -> list[str]:
        with mirror.Session() as session:
            return [hit.sku for hit in search_catalog(session, KEY, query, limit=limit).hits]

    return run


def test_efficiency_ranks_by_the_kinds_rating_then_the_next_then_the_tier(search):
    # HP-E and HP-V state no rating and share a tier: the dearer first (a line's price rises with its rating)
    assert search("most efficient heat pump") == ["HP-A", "HP-B", "HP-C", "HP-D", "HP-V", "HP-E"]
    assert search("most efficient furnace") == ["F-96", "F-80"]
    assert search("highest SEER2 heat pump")[:3] == ["HP-B", "HP-C", "HP-A"]  # a rating named: that rating
    assert search("heat pump")[0] == "HP-E"  # nothing asked: the cheapest first, as before


def test_a_feature_stated_in_a_name_or_specs_ranks_first_never_a_description(search):
    assert search("variable speed heat pump")[0] == "HP-V"
    assert search("wifi thermostat")[0] == "TS-W" and search("programmable thermostat")[0] == "TS-P"
    assert search("wi-fi") == ["TS-W"]  # a feature alone: the products stating it


def test_each_kind_named_is_answered_in_turn(search):
    assert search("furnace, heat pump and water heater", limit=3) == ["F-80", "HP-E", "WH-1"]
    assert search("most efficient furnace and heat pump", limit=4) == ["F-96", "HP-A", "F-80", "HP-B"]
