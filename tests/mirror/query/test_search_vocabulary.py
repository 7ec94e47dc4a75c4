"""Every vocabulary entry finds what it names: the query step's contract with a catalog.

A demo upstream holds a contractor selling one product (or two) of every
concrete concept of the vocabulary (mirror/catalog/vocabulary.py), named the way
contractors name them; the mirror syncs it. Then every name, typed spelling
and hint of every concept finds a product of that concept (or of a narrower
one) first; every trade word finds that trade's products; kind, price and
tier words order and filter; every unit form finds the products of that size,
read from names and from `specs`; misspellings are corrected and run-together
words split by the database's own trigram index (pg_trgm), and
a word no public product holds any more is never offered. Relevance figures
are bench/search.py's; this file holds the contract.
"""

from __future__ import annotations

import pytest

from mirror.catalog.vocabulary import BRANDS, CONCEPTS, KIND_WORDS, TRADE_WORDS
from mirror.query import concepts
from mirror.read.catalog import search_catalog
from tests.mcp_helpers import module_database, serve_app

KEY = "vocabulary-test"

# concept -> products: (sku, name, category, tier, brand, price, specs)
CATALOG = {
    "air-conditioner": [
        (
            "AC-2T-GOOD",
            "Goodman 14.3 SEER2 Central Air Conditioner, 2 ton",
            "Central AC",
            "good",
            "Goodman",
            "6200",
            {"tonnage": 2, "seer2": 14.3},
        ),
        (
            "AC-3T-BETTER",
            "Carrier 16.2 SEER2 Central Air Conditioner, 3 ton",
            "Central AC",
            "better",
            "Carrier",
            "8400",
            {"tonnage": 3, "seer2": 16.2},
        ),
        (
            "AC-3T-BEST",
            "Trane 20.5 SEER2 Central Air Conditioner, 3 ton",
            "Central AC",
            "best",
            "Trane",
            "11700",
            {"tonnage": 3, "seer2": 20.5},
        ),
    ],
    "heat-pump": [
        (
            "HP-2T-GOOD",
            "Lennox 15.2 SEER2 Heat Pump System, 2 ton",
            "Heat Pumps",
            "good",
            "Lennox",
            "7900",
            {"tonnage": 2},
        ),
        (
            "HP-3T-BEST",
            "Lennox 19 SEER2 Heat Pump System, 3 ton",
            "Heat Pumps",
            "best",
            "Lennox",
            "12900",
            {"tonnage": 3},
        ),
    ],
    "furnace": [
        (
            "FURN-80K",
            "Lennox 96% AFUE Gas Furnace, 80,000 BTU",
            "Gas Furnaces",
            "better",
            "Lennox",
            "5700",
            {"afue": 96},
        ),
        (
            "FURN-60K",
            "Goodman 80% AFUE Gas Furnace",
            "Gas Furnaces",
            "good",
            "Goodman",
            "3900",
            {"btu": 60000, "afue": 80},
        ),
    ],
    "ductless-mini-split": [
        (
            "MINI-24K",
            "Mitsubishi Electric 20 SEER2 Ductless Mini-Split, 24,000 BTU",
            "Ductless Mini-Split",
            "good",
            "Mitsubishi Electric",
            "6100",
            {"btu": 24000},
        ),
    ],
    "geothermal": [
        (
            "GEO-4T",
            "WaterFurnace Geothermal Heat Pump, 4 ton",
            "Geothermal",
            "best",
            "WaterFurnace",
            "28000",
            {"tonnage": 4},
        )
    ],
    "boiler": [
        ("BOIL-150", "Navien Combi Boiler, 150,000 BTU", "Boilers", "better", "Navien", "9800", {"btu": 150000})
    ],
    "air-handler": [
        ("AH-3T", "Goodman Multi-Position Air Handler, 3 ton", "Air Handlers", None, "Goodman", "2900", {"tonnage": 3})
    ],
    "packaged-unit": [
        (
            "PKG-4T",
            "Weatherking Packaged Unit, 4 ton",
            "Packaged Systems",
            "good",
            "Weatherking",
            "9100",
            {"tonnage": 4},
        )
    ],
    "air-filter": [
        ("FLT-M13", "MERV 13 Air Filter 16x25x1", "Air Filters", None, None, "34.99", {"merv": 13, "size": "16x25x1"}),
        (
            "FLT-M8",
            "MERV 8 Pleated Air Filter 20x25x4",
            "Air Filters",
            None,
            None,
            "49.99",
            {"merv": 8, "size": "20x25x4"},
        ),
    ],
    "thermostat": [
        ("TSTAT-NEST", "Google Nest Learning Thermostat", "Thermostats", None, "Google", "329", {}),
        ("TSTAT-ECOBEE", "ecobee Smart Thermostat Premium", "Thermostats", None, "ecobee", "349", {}),
    ],
    "uv-light": [("IAQ-UV", "UV Germicidal Light", "Indoor Air Quality", None, None, "625", {})],
    "dehumidifier": [("IAQ-DEHU", "Whole-Home Dehumidifier", "Indoor Air Quality", None, None, "2450", {})],
    "humidifier": [("IAQ-HUM", "Aprilaire Whole-Home Humidifier", "Indoor Air Quality", None, "Aprilaire", "890", {})],
    "air-purifier": [("IAQ-EAC", "Electronic Air Cleaner", "Indoor Air Quality", None, None, "1290", {})],
    "surge-protector": [("SURGE", "Whole-Home Surge Protector", "Electrical Protection", None, None, "199", {})],
    "condensate-pump": [("CPUMP", "Condensate Pump", "HVAC Parts", None, None, "245.50", {})],
    "ductwork": [("DUCT", "Ductwork Replacement, per run", "Ductwork", None, None, "450", {})],
    "carbon-monoxide-detector": [("CO-DET", "Carbon Monoxide Detector, hardwired", "Safety", None, None, "95", {})],
    "tank-water-heater": [
        (
            "TWH-50",
            "Rheem 50-gallon gas Water Heater, 9-year warranty",
            "Tank Water Heater",
            "better",
            "Rheem",
            "2550",
            {"gallons": 50, "fuel": "gas"},
        ),
        (
            "TWH-40",
            "Rheem 40-gallon electric Water Heater, 6-year warranty",
            "Tank Water Heater",
            "good",
            "Rheem",
            "1700",
            {"gallons": 40, "fuel": "electric"},
        ),
    ],
    "tankless-water-heater": [
        (
            "TLWH-98",
            "Rinnai 9.8 GPM Tankless Water Heater",
            "Tankless Water Heater",
            "better",
            "Rinnai",
            "4200",
            {"gpm": 9.8},
        )
    ],
    "heat-pump-water-heater": [
        (
            "HPWH-65",
            "A. O. Smith 65-gallon Hybrid Heat Pump Water Heater",
            "Heat Pump Water Heater",
            "better",
            "A. O. Smith",
            "4100",
            {"gallons": 65},
        )
    ],
    "water-softener": [
        (
            "SOFT-48",
            "Culligan 48,000 grain Water Softener",
            "Water Softener",
            "better",
            "Culligan",
            "1900",
            {"grains": 48000},
        )
    ],
    "toilet": [("TOIL-ELG", "Kohler Elongated Toilet, 1.28 GPF", "Toilet Replacement", "better", "Kohler", "780", {})],
    "sump-pump": [
        ("SUMP-13", "Zoeller 1/3 HP Sump Pump", "Sump Pump", "good", "Zoeller", "950", {"hp": "1/3"}),
        ("SUMP-12", "Zoeller 1/2 HP Sump Pump", "Sump Pump", "better", "Zoeller", "1150", {"hp": "1/2"}),
    ],
    "well-pump": [("WELL", "Goulds Submersible Well Pump", "Well Pumps", "good", "Goulds", "2400", {})],
    "water-filter": [("SEDFLT", "Whole-House Sediment Filter", "Water Treatment", None, None, "410", {})],
    "garbage-disposal": [
        ("DISP", "InSinkErator Garbage Disposal, 3/4 HP", "Plumbing Parts", None, "InSinkErator", "389", {})
    ],
    "expansion-tank": [("EXPTANK", "Thermal Expansion Tank, 2 gal", "Plumbing Parts", None, None, "189", {})],
    "drain-pan": [("DRAINPAN", "Water Heater Drain Pan", "Plumbing Parts", None, None, "60.05", {})],
    "water-heater-strap": [("STRAP", "Water Heater Seismic Strap Kit", "Plumbing Parts", None, None, "45", {})],
    "pressure-reducing-valve": [("PRV", "Pressure Reducing Valve, 3/4 in", "Plumbing Parts", None, None, "325", {})],
    "leak-detector": [("LEAK", "Smart Water Leak Detector", "Plumbing Parts", None, None, "79.99", {})],
    "faucet": [("FAUCET", "Moen Kitchen Faucet", "Fixtures", None, "Moen", "420", {})],
    "sink": [("SINK", "Kohler Undermount Kitchen Sink", "Fixtures", None, "Kohler", "560", {})],
    "shower": [("SHOWER", "Walk-In Shower Valve Replacement", "Fixtures", None, None, "640", {})],
    "drain-cleaning": [("JET", "Main Sewer Line Hydro Jetting", "Drain Service", None, None, "595", {})],
    "repiping": [("REPIPE", "Whole-House Repipe, PEX", "Repiping", None, None, "8900", {})],
    "backflow-preventer": [("BACKFLOW", "Backflow Preventer Testing", "Plumbing Parts", None, None, "175", {})],
    "electrical-panel": [
        ("PANEL", "200 Amp Electrical Panel Upgrade", "Electrical Panels", "better", None, "3400", {"amps": 200})
    ],
    "ev-charger": [("EVSE", "Level 2 EV Charger Installation", "EV Chargers", "good", None, "1450", {})],
    "generator": [("GEN", "Standby Generator, 22kW", "Generators", "better", None, "11900", {})],
    "outlet": [("GFCI", "GFCI Outlet Installation", "Outlets & Wiring", None, None, "185", {})],
    "lighting": [("RECESSED", "Recessed Lighting, six cans", "Lighting", None, None, "890", {})],
    "roof": [("ROOF", "Architectural Shingle Roof Replacement", "Roofing", "better", None, "14500", {})],
    "gutters": [("GUTTER", "Seamless Aluminum Gutter, per foot", "Gutters", None, None, "12", {})],
    "skylight": [("SKYLIGHT", "Velux Skylight", "Skylights", None, "Velux", "1650", {})],
    "solar-panels": [("SOLAR", "Solar Panel System, 8 kW", "Solar", "better", None, "21000", {})],
    "pool-and-spa": [("POOLHTR", "Pool Heater, 400,000 BTU", "Pool & Spa", "better", None, "4300", {"btu": 400000})],
    "insulation": [("INSUL", "Attic Insulation, blown-in", "Insulation", "good", None, "1900", {})],
    "windows-and-doors": [("WINDOW", "Vinyl Window Replacement", "Windows & Doors", "good", None, "850", {})],
    "fireplace": [("FIREPL", "Gas Fireplace Insert", "Fireplaces", "better", None, "4800", {})],
    "appliance": [("DISHW", "Dishwasher Installation", "Appliances", None, None, "350", {})],
    "home-improvement": [("FLOOR", "Hardwood Flooring, per 100 sq ft", "Flooring", None, None, "1200", {})],
    "environmental": [("RADON", "Radon Mitigation System", "Radon", "good", None, "1350", {})],
}
SYSTEM_CONCEPTS = {c.slug for c in CONCEPTS if c.kind == "system"}
CONCEPT_OF = {sku: slug for slug, products in CATALOG.items() for sku, *_ in products}
PRODUCTS = {product[0]: product for products in CATALOG.values() for product in products}


def add_catalog(catalog, key: str = KEY, rows: dict | None = None) -> None:
    catalog.add_company(
        products=0,
        plugin_key=key,
        name="Everything Home Services",
        trades=["hvac", "plumbing", "electrical", "roofing"],
        status="active",
        storefront_live=True,
    )
    for slug, products in (rows or CATALOG).items():
        for sku, name, category, tier, brand, price, specs in products:
            kind = "system" if slug in SYSTEM_CONCEPTS else "accessory"
            catalog.set_product(
                key,
                sku,
                name=name,
                category={
                    "name": category,
                    "slug": category.lower().replace(" ", "-").replace("&", "and"),
                    "kind": kind,
                },
                tier=tier,
                brand=brand,
                model_numbers=[],
                price=price,
                description=f"{name}. Fully installed, including permits.",
                published=True,
                image_url=None,
                specs=specs,
            )


@pytest.fixture(scope="module")
def mirror(request):
    """The vocabulary catalog (and the demo's own few companies) synced; the app's mirror handles."""
    from demo.server import start_in_thread

    upstream = start_in_thread(companies=2, products=10, seed=3)
    add_catalog(upstream.catalog)
    try:
        with serve_app(module_database(request), upstream.url) as live:
            assert live.mirror.sync().status == "success"
            live.mirror.upstream = upstream
            yield live.mirror
    finally:
        upstream.stop()


def search(mirror, query: str, **kwargs):
    with mirror.Session() as session:
        return search_catalog(session, KEY, query, limit=kwargs.pop("limit", 60), **kwargs)


def skus(mirror, query: str, **kwargs) -> list[str]:
    return [hit.sku for hit in search(mirror, query, **kwargs).hits]


def test_the_catalog_has_every_concrete_concept():
    concrete = {c.slug for c in CONCEPTS if c.kind is not None and c.slug != "water-heater"}
    assert concrete == set(CATALOG) - {"water-heater"}  # water-heater's products are its narrower kinds'


@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c.slug)
def test_every_name_spelling_and_hint_finds_what_it_names(mirror, concept):
    members = set(concepts.descendants(concept.slug))
    expected = {sku for sku, slug in CONCEPT_OF.items() if slug in members}
    assert expected, f"the catalog has nothing of {concept.slug}"
    for phrase in (*concept.names, *concept.typed, *concept.hints):
        found = skus(mirror, phrase)
        assert found and found[0] in expected, (phrase, found[:3])
        assert expected <= set(found), (phrase, sorted(expected - set(found)))


@pytest.mark.parametrize("trade", sorted(TRADE_WORDS))
def test_every_trade_word_finds_that_trades_products(mirror, trade):
    trade_concepts = {slug for slug, products in CATALOG.items() if trade in concepts.concept_trades(slug)}
    for phrase in TRADE_WORDS[trade]:
        found = skus(mirror, phrase)
        assert found and all(CONCEPT_OF[sku] in trade_concepts for sku in found), (
            phrase,
            [s for s in found if CONCEPT_OF[s] not in trade_concepts],
        )


@pytest.mark.parametrize("trade", sorted(TRADE_WORDS))
def test_a_trade_alone_lists_its_installed_systems_before_its_parts(mirror, trade):
    for phrase in TRADE_WORDS[trade]:
        kinds = [hit.category_kind for hit in search(mirror, phrase, limit=50).hits]
        if "system" in kinds:
            assert kinds == sorted(kinds, key=lambda kind: kind != "system"), (phrase, kinds)


def test_every_brand_the_catalog_carries_finds_its_products_first(mirror):
    carried: dict[str, set[str]] = {}
    for sku, _name, _category, _tier, brand, _price, _specs in PRODUCTS.values():
        if brand:
            carried.setdefault(brand.lower(), set()).add(sku)
    checked = [brand for brand in BRANDS if brand in carried]
    assert len(checked) >= 10
    for brand in checked:
        first = skus(mirror, brand)[: len(carried[brand])]
        assert set(first) == carried[brand], (brand, first)


def test_kind_words_and_the_issues_hvac_system(mirror):
    for phrase in KIND_WORDS["system"]:
        found = search(mirror, f"cheapest {phrase}")
        assert found.hits and all(hit.category_kind == "system" for hit in found.hits), phrase
        assert [h.price_cents for h in found.hits] == sorted(h.price_cents for h in found.hits)
    for phrase in KIND_WORDS["accessory"]:
        assert {hit.category_kind for hit in search(mirror, phrase).hits} == {"accessory"}, phrase
    hvac_systems = search(mirror, "HVAC system")
    expected = {
        sku for sku, slug in CONCEPT_OF.items() if slug in SYSTEM_CONCEPTS and "hvac" in concepts.concept_trades(slug)
    }
    assert {hit.sku for hit in hvac_systems.hits} == expected


def test_a_system_question_ranks_systems_above_accessories_that_share_its_words(mirror):
    assert CONCEPT_OF[skus(mirror, "air conditioner")[0]] == "air-conditioner"
    assert not {"FLT-M13", "FLT-M8"} & set(skus(mirror, "central air"))  # "air" alone is no air conditioner
    assert skus(mirror, "furnace filter")[:2] in (["FLT-M13", "FLT-M8"], ["FLT-M8", "FLT-M13"])
    assert not {"FURN-80K", "FURN-60K"} & set(skus(mirror, "furnace filter"))
    heat_pumps = skus(mirror, "heat pump")
    assert not {"HPWH-65", "GEO-4T", "MINI-24K"} & set(heat_pumps)  # water heater, geothermal, ductless: their own
    water_heaters = set(skus(mirror, "water heater"))
    assert {"TWH-50", "TWH-40", "TLWH-98", "HPWH-65"} == water_heaters  # not the drain pan nor the strap


def test_price_words_order_and_bound(mirror):
    heat_pumps = [PRODUCTS[sku] for sku in skus(mirror, "heat pump")]
    assert skus(mirror, "cheapest heat pump")[0] == min(heat_pumps, key=lambda p: float(p[5]))[0]
    assert skus(mirror, "most expensive furnace")[0] == "FURN-80K"
    for phrase in ("under $7,000", "less than $7000", "below 7000 dollars", "max $7k"):
        found = search(mirror, f"air conditioner {phrase}")
        assert {h.sku for h in found.hits} == {"AC-2T-GOOD"}, phrase
    assert {h.sku for h in search(mirror, "air conditioner between $8,000 and $12,000").hits} == {
        "AC-3T-BETTER",
        "AC-3T-BEST",
    }


def test_tier_words_rank_the_tier_first(mirror):
    for phrase in ("best", "premium", "top of the line", "high-end"):
        assert skus(mirror, f"{phrase} air conditioner")[0] == "AC-3T-BEST", phrase
    assert skus(mirror, "mid-range central air")[0] == "AC-3T-BETTER"
    assert skus(mirror, "basic heat pump")[0] == "HP-2T-GOOD"


@pytest.mark.parametrize("form", ["24,000 BTU", "24000 btu", "24k btu", "2-ton", "2 ton", "two tons"])
def test_every_capacity_form_finds_the_same_sizes_from_names_and_specs(mirror, form):
    # HP-2T-GOOD and AC-2T-GOOD say "2 ton", MINI-24K says "24,000 BTU"; all three say it in specs too.
    found = search(mirror, form)
    assert {h.sku for h in found.hits} == {"HP-2T-GOOD", "AC-2T-GOOD", "MINI-24K"} and found.total == 3


@pytest.mark.parametrize(
    "query, first",
    [
        ("60,000 BTU furnace", "FURN-60K"),  # in its specs only
        ("80k btu furnace", "FURN-80K"),  # in its name only
        ("3 ton heat pump", "HP-3T-BEST"),
        ("16 seer air conditioner", "AC-3T-BETTER"),  # 16.2 SEER2
        ("96% afue furnace", "FURN-80K"),
        ("merv 8 filter", "FLT-M8"),
        ("20x25x4", "FLT-M8"),
        ("16 x 25 x 1 furnace filter", "FLT-M13"),
        ("40 gallon water heater", "TWH-40"),
        ("65 gal water heater", "HPWH-65"),
        ("9.8 gpm", "TLWH-98"),
        ("1/2 hp sump pump", "SUMP-12"),
        ("48,000 grain softener", "SOFT-48"),
        ("200 amp panel upgrade", "PANEL"),
    ],
)
def test_sizes_and_ratings_rank_their_products_first(mirror, query, first):
    assert skus(mirror, query)[0] == first


@pytest.mark.parametrize(
    "query, first",
    [
        ("5 ton heat pump", "HP-3T-BEST"),  # none is 5 ton: the 3-ton heat pump, not the cheaper 2-ton
        ("4 ton central air", "AC-3T-BETTER"),  # the 3-ton systems (the cheaper first), not the cheapest 2-ton
        ("45,000 btu heat pump", "HP-3T-BEST"),  # 3.75 ton: of 2 and 3 ton, 3 is the nearer
    ],
)
def test_without_the_size_asked_the_nearest_sizes_come_first(mirror, query, first):
    assert skus(mirror, query)[0] == first


def test_misspellings_are_corrected_by_the_databases_trigram_index(mirror):
    found = search(mirror, "wetherking packaged unit")  # a catalog word, not a vocabulary one
    assert [(c.typed, c.meant) for c in found.understood.corrections] == [("wetherking", "weatherking")]
    assert found.hits[0].sku == "PKG-4T"
    split = search(mirror, "waterfurnacegeothermal")
    assert [(c.meant, c.how) for c in split.understood.corrections] == [("waterfurnace geothermal", "split")]
    assert split.hits[0].sku == "GEO-4T"
    assert skus(mirror, "rinai tankless")[0] == "TLWH-98"  # a vocabulary brand: corrected without the catalog
    unknown = search(mirror, "zeppelin")
    assert unknown.hits == [] and unknown.understood.unrecognised == ("zeppelin",)


def test_a_brand_the_contractor_does_not_carry_is_unmatched_not_unrecognised(mirror):
    found = search(mirror, "bosch heat pump")
    assert CONCEPT_OF[found.hits[0].sku] == "heat-pump"
    assert found.unmatched == ("bosch",) and found.understood.unrecognised == ()


@pytest.fixture
def small(database_url, upstream):
    """One contractor with one product of a rare brand, synced; yields (mirror, catalog)."""
    from wsgi import create_app

    add_catalog(upstream.catalog, rows={"packaged-unit": CATALOG["packaged-unit"], "boiler": CATALOG["boiler"]})
    app = create_app({"DATABASE_URL": database_url, "UPSTREAM_URL": upstream.url, "UPSTREAM_TOKEN": "demo-token"})
    mirror = app.extensions["mirror"]
    assert mirror.sync().status == "success"
    yield mirror, upstream.catalog
    mirror.dispose()


def listed(mirror, word: str, plugin_key: str = KEY) -> bool:
    from sqlalchemy import select

    from mirror.store.models import CompanyWord

    with mirror.Session() as session:
        held = select(CompanyWord.word).where(CompanyWord.plugin_key == plugin_key, CompanyWord.word == word)
        return session.scalar(held) is not None


def test_the_spelling_list_follows_the_sync_and_never_offers_a_word_no_public_product_holds(small):
    mirror, catalog = small
    assert listed(mirror, "weatherking")
    with mirror.Session() as session:
        assert [c.meant for c in search_catalog(session, KEY, "wetherking").understood.corrections] == ["weatherking"]
    catalog.set_product(KEY, "PKG-4T", published=False)
    assert mirror.sync().status == "success"
    assert not listed(mirror, "weatherking")  # the run that touched the catalog made its list again
    with mirror.Session() as session:
        gone = search_catalog(session, KEY, "wetherking")
    assert gone.understood.corrections == () and gone.understood.unrecognised == ("wetherking",)
    catalog.set_product(KEY, "PKG-4T", published=True)
    assert mirror.sync().status == "success"
    assert listed(mirror, "weatherking")
    assert mirror.sync(full=True).status == "success"
    assert listed(mirror, "weatherking") and listed(mirror, "navien")  # a full run keeps an exact list as it is


def test_a_run_makes_a_list_again_only_where_what_it_reads_moved(small):
    # A word taken out behind the sync's back shows which runs make the company's list again: a repricing
    # leaves it as it was (a list reads no price); a new name or a price of zero (not public) makes it again.
    from sqlalchemy import delete

    from mirror.store.models import CompanyWord

    mirror, catalog = small
    with mirror.WriterSession() as session, session.begin():
        session.execute(delete(CompanyWord).where(CompanyWord.plugin_key == KEY, CompanyWord.word == "navien"))
    catalog.set_product(KEY, "PKG-4T", price="9250.00")
    assert mirror.sync().status == "success"
    assert not listed(mirror, "navien") and listed(mirror, "weatherking")
    catalog.set_product(KEY, "PKG-4T", name="Weatherking Rooftop Packaged Unit, 4 ton")
    assert mirror.sync().status == "success"
    assert listed(mirror, "navien") and listed(mirror, "rooftop")
    catalog.set_product(KEY, "PKG-4T", price="0.00")
    assert mirror.sync().status == "success"
    assert not listed(mirror, "rooftop") and not listed(mirror, "weatherking")


def test_lists_made_by_another_rule_or_release_are_made_again_by_the_next_run(small):
    # A sync of the previous release may run between the migration and the restart: the lists it leaves are
    # not this release's, and the next run makes every company's list again (mirror/sync/words.py).
    from sqlalchemy import delete

    from mirror.store import state as st
    from mirror.store.models import CompanyWord

    mirror, _catalog = small
    with mirror.WriterSession() as session, session.begin():
        session.execute(delete(CompanyWord))
        st.put(session, st.WORDS_VERSION, "0:an-older-rule")
    assert not listed(mirror, "weatherking")
    assert mirror.sync().status == "success"  # nothing changed upstream
    assert listed(mirror, "weatherking")
