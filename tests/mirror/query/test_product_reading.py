"""What a catalog's product is, read from everything its catalog says (mirror/query/product_reading.py), no database.

The evidence order of docs/search.md ("What a product is"): identifying specs
keys, then names, then the trade's abbreviations (guarded by the contractor's
trades), then suggesting specs keys; the specs win a conflict.
"""

from __future__ import annotations

import pytest

from mirror.query.concepts import ABBREVIATIONS, BY_SLUG
from mirror.query.product_reading import ABBREVIATED, IDENTIFIES, NARROWS, SUGGESTS, read_product

HVAC, PLUMBING, BOTH = ["hvac"], ["plumbing"], ["hvac", "plumbing"]


def kinds(name, category="", slug="", models=(), specs=None, trades=BOTH):
    return read_product(name, category, slug, list(models), specs or {}, trades).kinds


def test_the_platforms_abbreviated_heat_pump_system():
    reading = read_product(
        "Lennox Good HP & Air Handler, 2 ton",
        "HP & Air Handler",
        "hp-air-handler",
        [],
        {"tonnage": 2, "seer2": 14, "hspf2": 7.5},
        HVAC,
    )
    assert reading.kinds == ("heat-pump", "air-handler")
    assert reading.measures == {"capacity": 24000, "seer": 14, "hspf": 7.5}
    record = reading.evidence_record()
    assert record["decided_by"] == [
        ["heat-pump", "name", "hp", ABBREVIATED],
        ["air-handler", "name", "air handler", "name"],  # the category and slug say them again: once
        ["heat-pump", "specs", "hspf2", IDENTIFIES],
    ]
    assert record["overruled"] == []


def test_the_specs_win_over_the_name():
    reading = read_product("Goodman Gas Furnace", "Furnaces", "furnaces", [], {"hspf2": 8.1}, HVAC)
    assert reading.kinds == ("heat-pump",)
    assert {e.by for e in reading.overruled} == {"hspf2"} and {e.kind for e in reading.overruled} == {"furnace"}
    # A rating that does not identify a kind (SEER: whatever cools) overrules nothing.
    assert kinds("Lennox A/C & Gas Furnace, 3 ton", specs={"tonnage": 3, "seer2": 14}) == ("air-conditioner", "furnace")
    assert kinds("Rheem Gas Furnace", specs={"afue": 96}) == ("furnace",)


@pytest.mark.parametrize(
    ("name", "specs", "expected"),
    [
        ("Model X", {"hspf2": 8}, ("heat-pump",)),
        ("Model X", {"cop": 3.1}, ("heat-pump",)),
        ("Model X", {"afue": 96}, ("furnace",)),
        ("Model X", {"uef": 0.93}, ("water-heater",)),
        ("Model X", {"first_hour_rating": 80}, ("water-heater",)),
        ("Model X", {"merv": 13}, ("air-filter",)),
        ("Model X", {"size": "16x25x1"}, ("air-filter",)),
        ("Model X", {"seer2": 15}, ("air-conditioner",)),  # SEER without a heating rating: a cooling system
        ("Model X", {"seer2": 15, "hspf2": 8}, ("heat-pump",)),
        ("Model X", {"gallons": 50}, ("tank-water-heater",)),
        ("Model X", {"size": 3}, ()),  # a "size" that is no filter size says nothing
        ("Thermal Expansion Tank", {"gallons": 2}, ("expansion-tank",)),  # a suggestion never beats a name
    ],
)
def test_specs_keys_are_evidence_of_a_kind(name, specs, expected):
    assert kinds(name, specs=specs) == expected


def test_a_quantity_narrows_a_broader_kind():
    reading = read_product(
        "Bradford White Good Water Heater, 40 gal gas", "Water Heater", "water-heater", [], {}, PLUMBING
    )
    assert reading.kinds == ("tank-water-heater",) and reading.measures == {"gallons": 40}
    assert any(e.how == NARROWS and e.kind == "tank-water-heater" for e in reading.evidence)


@pytest.mark.parametrize(
    ("name", "category", "expected"),
    [
        ("Goodman Best DMS, 24K", "Ductless", ("ductless-mini-split",)),
        ("Amana ACGF 3T", "Systems", ("air-conditioner", "furnace")),
        ("Rinnai Best Tankless WH, 199K", "Tankless", ("tankless-water-heater",)),
        ("A. O. Smith Good Hybrid WH, 50 gal", "Hybrid WH", ("heat-pump-water-heater",)),
        ("Goodman AH Only, 3 ton", "AH Only", ("air-handler",)),
        ("Goodman furn 80K", "Heating", ("furnace",)),
        ("T-Stat - Wi-Fi", "T-Stats", ("thermostat",)),
        ("heatpump 3ton w/ air handler", "Heating & Cooling", ("heat-pump", "air-handler")),  # a typed spelling
        ("MERV 8 Furnace Filter 16x25x1", "Air Filters", ("air-filter",)),  # the longest name: no furnace
        ("Hybrid Heat Pump Water Heater", "Water Heaters", ("heat-pump-water-heater",)),
    ],
)
def test_names_spellings_and_abbreviations(name, category, expected):
    assert kinds(name, category, category.lower().replace(" ", "-")) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Goodman 3T A/C", 36000),
        ("Goodman 2.5T A/C", 30000),
        ("Goodman DMS 24K", 24000),
        ("Goodman Furnace 60K BTU", 60000),
        ("Weil-McLain Boiler 80 MBH", 80000),
        ("Lennox 80,000 BTU Gas Furnace", 80000),
        ("Lennox Heat Pump, two ton", None),  # number words are a question's, not a catalog's
    ],
)
def test_capacities_as_catalogs_write_them(name, expected):
    reading = read_product(name, "", "", [], {}, HVAC)
    assert reading.measures.get("capacity") == expected


def test_specs_state_a_measure_before_the_name_does():
    reading = read_product("Lennox 3 ton 16 SEER2 Heat Pump", "", "", [], {"tonnage": 2.5, "seer2": 16.2}, HVAC)
    assert reading.measures == {"capacity": 30000, "seer": 16.2}
    assert read_product("Water Heater, 40 gal", "", "", [], {"gallons": "50"}, PLUMBING).measures == {"gallons": 50}
    assert read_product("Sump Pump 1/2 HP", "", "", [], {"hp": "1/3"}, PLUMBING).measures[
        "horsepower"
    ] == pytest.approx(1 / 3)


def test_abbreviations_are_read_only_where_unambiguous_among_the_contractors_trades():
    # "1/2 HP" is a motor's horsepower, never a heat pump.
    assert kinds("Zoeller 1/2 HP Sump Pump", "Sump Pumps") == ("sump-pump",)
    # A plumber's "HP" is not a heat pump: none of a plumber's trades sells one.
    assert kinds("Rheem HP Series", trades=PLUMBING) == ()
    assert kinds("Rheem HP Series", trades=HVAC) == ("heat-pump",)
    # An abbreviation never stands against a name of another trade in the same product.
    assert kinds("Rheem Mini Tank Electric Water Heater, 4 gal", "Water Heaters") == ("tank-water-heater",)
    assert kinds("Mitsubishi Mini 12K", "Cooling") == ("ductless-mini-split",)
    # Whole tokens only: "ahead", "whole", "chp" hold no abbreviation.
    assert kinds("Ahead of the Whole CHP line") == ()


@pytest.mark.parametrize("abbreviation", sorted(" ".join(words) for words in ABBREVIATIONS))
def test_every_abbreviation_of_the_vocabulary_is_read_for_the_contractors_of_its_trades(abbreviation):
    slugs = ABBREVIATIONS[tuple(abbreviation.split())]
    trades = sorted({t for slug in slugs for t in BY_SLUG[slug].trades})
    reading = read_product(f"Acme {abbreviation.upper()} Deluxe", "", "", [], {}, trades)
    assert set(reading.kinds) == set(slugs)
    assert all(e.how == ABBREVIATED for e in reading.evidence)
    others = [t for t in ("hvac", "plumbing", "electrical", "roofing") if t not in trades]
    assert read_product(f"Acme {abbreviation.upper()} Deluxe", "", "", [], {}, others).kinds == ()


def test_model_numbers_are_read_by_their_words():
    assert kinds("Rinnai RU199", "Water Heating", models=["TWH-199"], trades=PLUMBING) == ("tankless-water-heater",)
    assert kinds("Lennox XC25", models=["ML17XP1-036"], trades=HVAC) == ()


def test_what_nothing_names_suggests_only_when_nothing_else_does():
    reading = read_product("Something 3T 14 SEER2", "Systems", "systems", [], {"seer2": 14}, HVAC)
    assert reading.kinds == ("air-conditioner",) and [e.how for e in reading.evidence] == [SUGGESTS]
    assert kinds("Carrier Infinity 24", "Equipment") == ()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("air hander 2t", ("air-handler",)),  # a misspelt name word, where it completes a name
        ("heatpump 3ton w/ air hander mid", ("heat-pump", "air-handler")),
        ("Acme Thermostatt", ("thermostat",)),
        ("Acme Hander", ()),  # a misspelt word that completes no name says nothing
        ("AC + furnce combo 3T", ("air-conditioner", "furnace")),  # "combo" is no "combi" (boiler)
        ("Goodman Air Handlr", ("air-handler",)),
        ("Acme Air Hnd", ()),  # shorter than MIN_MISSPELT: never read
    ],
)
def test_a_misspelt_name_word_is_read_as_the_word_where_it_completes_a_name(name, expected):
    assert kinds(name, trades=HVAC) == expected


def test_a_misspelling_is_recorded_as_one():
    reading = read_product("air hander 2t", "Parts", "parts", [], {}, HVAC)
    assert reading.evidence_record()["decided_by"] == [["air-handler", "name", "air hander", "spelling"]]


@pytest.mark.parametrize(
    ("name", "trades", "expected"),
    [
        ("hybrid hot water 50gal top", PLUMBING, ("heat-pump-water-heater",)),  # a plumber's hybrid
        ("Hybrid Heat Pump 3 ton", BOTH, ("heat-pump",)),  # never against a name of another trade
        ("Rheem HPWH 50 gal", PLUMBING, ("heat-pump-water-heater",)),
        ("Acme AHU 3T", HVAC, ("air-handler",)),
        ("Acme RTU 5T", HVAC, ("packaged-unit",)),
        ("Acme ASHP 3T", HVAC, ("heat-pump",)),
        ("Acme GSHP 4T", HVAC, ("geothermal",)),
        ("Acme HWH, electric", PLUMBING, ("water-heater",)),
        ("Trane Condenser, 3 ton", HVAC, ("air-conditioner",)),
    ],
)
def test_the_trades_abbreviations_and_words_of_issue_34(name, trades, expected):
    assert kinds(name, trades=trades) == expected


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        ({"SEER2 Rating": "16 SEER2", "HSPF2": 8.5, "Nominal Tons": "3"}, {"capacity": 36000, "seer": 16, "hspf": 8.5}),
        ({"AFUE (%)": "96%", "Input BTU/h": "80,000"}, {"capacity": 80000, "afue": 96}),
        ({"Tank Size (gal)": 50, "UEF Rating": ".93"}, {"uef": 0.93, "gallons": 50}),
        ({"First Hour Rating (gal)": 80}, {"first_hour_rating": 80}),  # a known key inside: not gallons
        ({"Input MBH": 100}, {"capacity": 100000}),
        ({"MERV Rating": 13, "Filter Size": "16x25x1"}, {"merv": 13, "filter_size": "16x25x1"}),
        ({"Color": "white", "Tons": "n/a"}, {}),  # no quantity, no number
    ],
)
def test_specs_keys_and_values_are_read_as_spec_sheets_write_them(specs, expected):
    assert read_product("Model X", "", "", [], specs, BOTH).measures == expected


def test_a_spec_sheets_key_is_evidence_as_the_key_is():
    assert kinds("Model X", specs={"AFUE %": 95}) == ("furnace",)
    assert kinds("Model X", specs={"HSPF2 Rating": 8.1, "SEER2": 16}) == ("heat-pump",)
    reading = read_product("Acme Gas Furnace", "", "", [], {"HSPF2 Rating": 8.1}, HVAC)
    assert reading.kinds == ("heat-pump",) and {e.by for e in reading.overruled} == {"HSPF2 Rating"}


def test_a_model_numbers_letters_are_never_read_as_a_misspelling():
    assert kinds("Acme 3 ton", models=["AIR-HANDLR-36"], trades=HVAC) == ()
    assert kinds("Acme air handlr 3 ton", trades=HVAC) == ("air-handler",)


@pytest.mark.parametrize(
    ("name", "category", "specs", "expected"),
    [
        # A distributor's heat pump outdoor unit: "HP cond" is the heat pump's condenser, no A/C.
        (
            "GSZB1636 3T 16 SEER2 HP cond w/ AH",
            "Residential Split Systems",
            {"SEER2": 16, "HSPF2": 8.1},
            ("heat-pump", "air-handler"),
        ),
        ("Goodman 3 Ton 14 SEER2 Heat Pump Condenser", "Outdoor Units", {}, ("heat-pump",)),
        ("Goodman 3 Ton Heat Pump Condensing Unit", "Outdoor Units", {}, ("heat-pump",)),
        # An A/C's condenser stays an A/C.
        ("GSXB1436 3T 14 SEER2 AC cond", "Residential Split Systems", {"SEER2": 14}, ("air-conditioner",)),
        ("GSXB1436 3T cond", "Residential Split Systems", {}, ("air-conditioner",)),
        # "stat": the trade's short word for a thermostat.
        ("TH00020 WiFi prog stat", "Controls", {}, ("thermostat",)),
        ("Honeywell line voltage stat", "Controls", {}, ("thermostat",)),
    ],
)
def test_a_distributors_heat_pump_condenser_and_stat(name, category, specs, expected):
    assert kinds(name, category, category.lower().replace(" ", "-"), specs=specs, trades=HVAC) == expected
    # A plumber's "stat" is no thermostat (none of a plumber's trades sells one).
    assert kinds("Aqua stat well", trades=PLUMBING) == ()
