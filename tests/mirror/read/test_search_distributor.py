"""Search over a catalog in a distributor's spec-sheet style: model numbers first, "HP cond", "AC cond", "stat".

A distributor writes a heat pump's outdoor unit as "HP cond w/ AH" (the
heat pump's condenser, with its air handler), an A/C's as "AC cond", and a
thermostat as a "stat", under broad categories ("Residential Split
Systems", "Controls") and spec-sheet keys ("Nominal Tons", "SEER2",
"HSPF2"). The catalog goes into the demo upstream, the real sync reads it
(mirror/query/product_reading.py) and `search_catalog` answers from what it
stored: a heat pump's condenser is no air conditioner, and a stat is a
thermostat.
"""

from __future__ import annotations

import pytest

from mirror.read.catalog import search_catalog

KEY = "distributor-style"
SPLIT = {"name": "Residential Split Systems", "slug": "res-split", "kind": "system"}
CONTROLS = {"name": "Controls", "slug": "controls", "kind": "accessory"}

# sku: (name, category, price, specs)
CATALOG = {
    "AC-3": ("GSXB14361 3T 14.6 SEER2 AC cond", SPLIT, "7800.00", {"Nominal Tons": 3, "SEER2": 14.6}),
    "AC-4": ("GSXB14481 4T 14.8 SEER2 AC cond", SPLIT, "9000.00", {"Nominal Tons": 4, "SEER2": 14.8}),
    "HP-4": (
        "GSZB14481 4T 14.6 SEER2 HP cond w/ AH",
        SPLIT,
        "10000.00",
        {"Nominal Tons": 4, "SEER2": 14.6, "HSPF2": 7.8},
    ),
    "HP-5": (
        "GSZB14601 5T 14.7 SEER2 HP cond w/ AH",
        SPLIT,
        "10850.00",
        {"Nominal Tons": 5, "SEER2": 14.7, "HSPF2": 7.9},
    ),
    "STAT-P": ("TH00010 7-day prog stat", CONTROLS, "95.00", {}),
    "STAT-W": ("TH00020 WiFi prog stat", CONTROLS, "249.00", {}),
}


@pytest.fixture
def search(mirror, upstream):
    """The distributor's catalog synced into the mirror; yields a search giving the SKUs in order."""
    catalog = upstream.catalog
    catalog.add_company(products=0, plugin_key=KEY, name="Split Supply HVAC", status="active", storefront_live=True)
    catalog.touch_company(KEY, trades=["hvac"])
    for sku, (name, category, price, specs) in CATALOG.items():
        catalog.set_product(
            KEY,
            sku,
            name=name,
            category=category,
            tier=None,
            brand="Goodman",
            model_numbers=[name.split()[0]],
            price=price,
            cost=price,
            description=None,
            published=True,
            image_url=None,
            specs=specs,
        )
    result = mirror.sync()
    assert result.status == "success", result.error

    def ask(query):
        with mirror.Session() as session:
            return [hit.sku for hit in search_catalog(session, KEY, query, limit=10).hits]

    return ask


def test_a_heat_pump_condenser_is_no_air_conditioner(search):
    # The catalog's largest A/C is 4 ton: a 5-ton question is answered by it, never by the 5-ton heat pump.
    assert search("5 ton AC")[:1] == ["AC-4"]
    assert set(search("air conditioner")) == {"AC-3", "AC-4"}
    assert set(search("heat pump")) == {"HP-4", "HP-5"}


def test_a_stat_is_a_thermostat(search):
    assert set(search("thermostat")) == {"STAT-P", "STAT-W"}
    assert search("wifi thermostat")[:1] == ["STAT-W"]
