"""The questions: each an intent in true facts (`want`, judged by judge.py) and the wordings a person might type.

Wordings are written from how homeowners ask, not from the search's
vocabulary; an intent's first wordings come from the issue's table when it
has a row (`issue=True`), and those are always tuned (the issue names them).
Of the other wordings, HELD_OUT_SHARE (30%) are held out, chosen by the
fixed seed HELD_OUT_SEED from the sorted list (`held_out()`): a session
tuning the search must not look at which, nor tune against them
(bench/relevance/README.md).

Brand questions are written from the ground truth (the brand a kind is
really sold under, and one it is not), so they follow the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench.relevance.ground_truth import Truth

HELD_OUT_SHARE = 0.3
HELD_OUT_SEED = 8300  # drawn anew when the held-out style became `manufacturer` (3404's set had been read)

AC = {"central_ac": 3, "ac_furnace": 2, "heat_pump": 1, "mini_split": 1}
HP = {"heat_pump": 3, "mini_split": 1}
FURNACE = {"furnace": 3, "ac_furnace": 2}
WATER_HEATER = {"tank_wh": 3, "tankless_wh": 2, "hp_wh": 2}


@dataclass(frozen=True)
class Intent:
    """What a person wants (true facts) and the ways they ask it."""

    name: str
    want: dict
    wordings: tuple[str, ...]
    issue: bool = False  # a row of issue 34's table: its wordings are tuned, never held out


def intents(truths: list[Truth]) -> list[Intent]:
    """Every question of the benchmark, for the ground truth `truths`."""
    brand = {t.kind: t.brand for t in truths}
    other_hp_brand = next(t.brand for t in truths if t.kind == "central_ac" and t.brand != brand["heat_pump"])
    return [
        # --- issue 34's table ---
        Intent("heat pump", {"kinds": HP}, ("heat pump", "how much is a heat pump?"), issue=True),
        Intent("3 ton heat pump", {"kinds": HP, "size": {"tons": 3}}, ("3 ton heat pump",), issue=True),
        Intent("premium heat pump", {"kinds": HP, "tier": "best"}, ("premium heat pump",), issue=True),
        Intent("cheapest heat pump", {"kinds": HP, "order": ("price", "asc")}, ("lowest price heat pump",), issue=True),
        Intent("HP", {"kinds": HP}, ("HP",), issue=True),
        Intent(
            "most efficient furnace",
            {"kinds": FURNACE, "order": ("afue", "desc")},
            ("most efficient furnace",),
            issue=True,
        ),
        Intent(
            "furnace and heat pump",
            {"kinds": {"furnace": 3, "heat_pump": 3, "ac_furnace": 2}, "each": ("furnace", "heat_pump")},
            ("furnace and heat pump",),
            issue=True,
        ),
        Intent(
            "water tank heater",
            {"kinds": {"tank_wh": 3, "hp_wh": 2, "tankless_wh": 1}},
            ("water tank heater",),
            issue=True,
        ),
        Intent(
            "5 ton AC (largest is 4)",
            {"kinds": AC, "size": {"tons": 5}},
            ("what does a 5 ton AC cost?", "5 ton AC"),
            issue=True,
        ),
        # --- cooling ---
        Intent(
            "air conditioner",
            {"kinds": AC},
            ("air conditioner", "central air", "AC unit", "a/c", "new cooling system", "air conditioning"),
        ),
        Intent(
            "2.5 ton AC",
            {"kinds": AC, "size": {"tons": 2.5}},
            ("2.5 ton air conditioner", "2.5T AC", "30000 btu central air", "two and a half ton ac"),
        ),
        Intent(
            "cheapest AC",
            {"kinds": AC, "order": ("price", "asc")},
            ("cheapest air conditioner", "least expensive AC", "budget central air"),
        ),
        Intent(
            "most efficient AC",
            {"kinds": AC, "order": ("seer2", "desc")},
            ("most efficient air conditioner", "highest SEER2 AC", "energy saving central air"),
        ),
        Intent("best tier AC", {"kinds": AC, "tier": "best"}, ("best central air", "top of the line AC")),
        # --- heat pumps ---
        Intent(
            "4 ton heat pump",
            {"kinds": HP, "size": {"tons": 4}},
            ("4 ton heat pump", "48000 BTU heat pump", "heat pump 4T"),
        ),
        Intent(
            "most efficient heat pump",
            {"kinds": HP, "order": ("hspf2", "desc")},
            ("most efficient heat pump", "highest HSPF2 heat pump", "energy efficient heat pump"),
        ),
        Intent(
            "heat pump system",
            {"kinds": {**HP, "air_handler": 1}},
            ("heat pump system", "heatpump", "heat pump with air handler", "heat pump replacement cost"),
        ),
        Intent("brand heat pump", {"kinds": HP, "brand": brand["heat_pump"]}, (f"{brand['heat_pump']} heat pump",)),
        Intent("other brand heat pump", {"kinds": HP, "brand": other_hp_brand}, (f"{other_hp_brand} heat pump",)),
        # --- heating ---
        Intent(
            "furnace",
            {"kinds": FURNACE},
            ("furnace", "gas furnace", "new furnace", "furnace replacement cost", "forced air heat"),
        ),
        Intent(
            "80k furnace",
            {"kinds": FURNACE, "size": {"btu": 80000}},
            ("80000 BTU furnace", "80K BTU gas furnace", "80,000 btu furnace"),
        ),
        Intent(
            "96% furnace",
            {"kinds": FURNACE, "min": {"afue": 96}},
            ("96% AFUE furnace", "high efficiency furnace 96 afue"),
        ),
        Intent(
            "two-stage furnace",
            {"kinds": FURNACE, "feature": "two_stage"},
            ("two stage furnace", "2-stage gas furnace"),
        ),
        Intent("basic furnace", {"kinds": FURNACE, "tier": "good"}, ("basic furnace", "economy furnace")),
        Intent(
            "AC and furnace",
            {"kinds": {"ac_furnace": 3, "central_ac": 2, "furnace": 2}},
            ("AC and furnace system", "furnace and air conditioner combo"),
        ),
        Intent(
            "air handler",
            {"kinds": {"air_handler": 3, "heat_pump": 1}},
            ("air handler", "blower air handler", "air handler only"),
        ),
        # --- ductless ---
        Intent(
            "mini split",
            {"kinds": {"mini_split": 3}},
            ("mini split", "ductless", "ductless mini-split", "ductless heat pump"),
        ),
        Intent(
            "12k mini split",
            {"kinds": {"mini_split": 3}, "size": {"btu": 12000}},
            ("12000 BTU mini split", "12K ductless", "1 ton mini split"),
        ),
        # --- water heaters ---
        Intent(
            "water heater",
            {"kinds": WATER_HEATER},
            ("water heater", "hot water heater", "new water heater", "hot water tank"),
        ),
        Intent(
            "50 gal water heater",
            {"kinds": {"tank_wh": 3, "hp_wh": 2}, "size": {"gallons": 50}},
            ("50 gallon water heater", "50 gal hot water tank"),
        ),
        Intent(
            "40 gal gas water heater",
            {"kinds": {"tank_wh": 3}, "size": {"gallons": 40}, "fuel": "gas"},
            ("40 gallon gas water heater",),
        ),
        Intent(
            "tankless", {"kinds": {"tankless_wh": 3}}, ("tankless water heater", "on demand water heater", "tankless")
        ),
        Intent(
            "hybrid water heater",
            {"kinds": {"hp_wh": 3, "tank_wh": 1}},
            ("heat pump water heater", "hybrid water heater"),
        ),
        Intent(
            "most efficient water heater",
            {"kinds": dict.fromkeys(WATER_HEATER, 3), "order": ("uef", "desc")},
            ("most efficient water heater", "energy star water heater"),
        ),
        # --- accessories ---
        Intent("air filter", {"kinds": {"air_filter": 3}}, ("furnace filter", "air filter", "filters")),
        Intent("MERV 13", {"kinds": {"air_filter": 3}, "size": {"merv": 13}}, ("MERV 13 filter", "merv13 air filter")),
        Intent(
            "16x25x1",
            {"kinds": {"air_filter": 3}, "size": {"filter_size": "16x25x1"}},
            ("16x25x1 filter", "16 x 25 x 1 air filter"),
        ),
        Intent("thermostat", {"kinds": {"thermostat": 3}}, ("thermostat", "t-stat", "new thermostat")),
        Intent(
            "wifi thermostat",
            {"kinds": {"thermostat": 3}, "feature": "wifi"},
            ("wifi thermostat", "smart thermostat", "wi-fi t-stat"),
        ),
        # --- nothing here sells them (unanswerable: any result is a false match) ---
        Intent("boiler", {"kinds": {"boiler": 3}}, ("boiler", "hot water boiler")),
        Intent("sump pump", {"kinds": {"sump_pump": 3}}, ("sump pump",)),
        Intent("water softener", {"kinds": {"water_softener": 3}}, ("water softener",)),
        Intent("generator", {"kinds": {"generator": 3}}, ("standby generator",)),
    ]


def held_out(all_intents: list[Intent]) -> set[str]:
    """The held-out wordings: HELD_OUT_SHARE of the wordings not from the issue's table, by a fixed seed."""
    pool = sorted({w for intent in all_intents if not intent.issue for w in intent.wordings})
    return set(random.Random(HELD_OUT_SEED).sample(pool, round(len(pool) * HELD_OUT_SHARE)))
