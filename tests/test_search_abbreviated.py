"""Issue 34's table over catalogs in the platform's abbreviated style, through the real surfaces.

An HVAC contractor names its heat-pump systems as the platform's own contract
example does ("HP & Air Handler", slug hp-air-handler, "Lennox Good HP & Air
Handler, 2 ton", specs {"tonnage", "seer2", "hspf2"}), and a plumber sells
"Water Heater" products. Both are put into the demo upstream and synced by the
real sync; the questions of the issue's rows this release answers are asked
of `search_catalog` on the MCP server (the official `mcp` ClientSession) and
on the webmcp endpoint, UCP `search_catalog` and `lookup_catalog`, the A2A
agents (the `a2a-sdk` client), NLWeb `/ask` (the company's and the
directory's) and the provider's `search_businesses`. What a person meant is
checked against the catalog as written here (category, tier, ratings).

Ranking by what was asked (issue 34, point 2): efficiency words by the
rating the kind is judged by, features stated first, each kind of a question
naming several. Answers never put a price under a label it does not have
(point 3): a size, tier, brand or kind not offered is said to be absent, and
the nearest size is answered under its own label.
"""

from __future__ import annotations

import anyio
import pytest
from a2a.types.a2a_pb2 import Part
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from mirror.read.catalog import category_products
from mirror.values.money import format_cents as money
from tests.a2a_server.test_a2a import data_part, send, text_of
from tests.mcp_helpers import call_tool, module_database
from tests.nlweb_server.test_ask import answer, sentence
from tests.surface_helpers import add_company
from tests.ucp_helpers import demo_ucp_live

HVAC_KEY, PLUMBER_KEY, MIXED_KEY = "abbrev-hvac", "abbrev-plumber", "abbrev-mixed"
MIXED_ZIP = "99501"  # the mixed contractor serves only this ZIP: the other tests' answers near 63376 never see it
HP = {"name": "HP & Air Handler", "slug": "hp-air-handler", "kind": "system"}
ACGF = {"name": "A/C & Gas Furnace", "slug": "ac-gas-furnace", "kind": "system"}
FURNACE = {"name": "Furnace", "slug": "furnace", "kind": "system"}
FILTERS = {"name": "Filters", "slug": "filters", "kind": "accessory"}
WATER_HEATER = {"name": "Water Heater", "slug": "water-heater", "kind": "system"}
TANKLESS = {"name": "Tankless", "slug": "tankless", "kind": "system"}
DRAIN_PAN = {"name": "Parts", "slug": "parts", "kind": "accessory"}
T_STATS = {"name": "T-Stats", "slug": "t-stats", "kind": "accessory"}
HEATING_COOLING = {"name": "Heating & Cooling", "slug": "heating-cooling", "kind": "system"}
TIERS = {"good": 1.0, "better": 1.2, "best": 1.48}


def _systems() -> list[dict]:
    products = []
    for tier, factor in TIERS.items():
        for tons in (2, 3):
            products.append(
                {
                    "sku": f"HPAH-{tons}T-{tier.upper()}",
                    "name": f"Lennox {tier.title()} HP & Air Handler, {tons} ton",
                    "brand": "Lennox",
                    "category": HP,
                    "tier": tier,
                    "price": f"{(7000 + 1500 * tons) * factor:.2f}",
                    "specs": {"tonnage": tons, "seer2": 14 + 2 * list(TIERS).index(tier), "hspf2": 7.5},
                }
            )
            products.append(
                {
                    "sku": f"ACGF-{tons}T-{tier.upper()}",
                    "name": f"Lennox {tier.title()} A/C & Gas Furnace, {tons} ton",
                    "brand": "Lennox",
                    "category": ACGF,
                    "tier": tier,
                    "price": f"{(6500 + 1500 * tons) * factor:.2f}",
                    "specs": {"tonnage": tons, "seer2": 14, "afue": 80},
                }
            )
        products.append(
            {
                "sku": f"FURN-60K-{tier.upper()}",
                "name": f"Goodman {tier.title()} Gas Furnace, 60K BTU",
                "brand": "Goodman",
                "category": FURNACE,
                "tier": tier,
                "price": f"{3800 * factor:.2f}",
                # The Better furnace is two-stage, said by its specs alone.
                "specs": {"afue": 80 + 6 * list(TIERS).index(tier), **({"stages": 2} if tier == "better" else {})},
            }
        )
    products.append({"sku": "FLT-8", "name": "Filter 16x25x1 M8", "category": FILTERS, "tier": None, "price": "24.00"})
    products.append(
        {"sku": "TSTAT-P", "name": "T-Stat - Programmable", "category": T_STATS, "tier": None, "price": "150"}
    )
    products.append({"sku": "TSTAT-W", "name": "T-Stat - Wi-Fi", "category": T_STATS, "tier": None, "price": "290"})
    return products


AFUE = {p["sku"]: p["specs"]["afue"] for p in _systems() if "afue" in p.get("specs", {})}


def _water_heaters() -> list[dict]:
    products = [
        {
            "sku": f"WH-{gallons}-{tier.upper()}",
            "name": f"Bradford White {tier.title()} Water Heater, {gallons} gal gas",
            "brand": "Bradford White",
            "category": WATER_HEATER,
            "tier": tier,
            "price": f"{(1800 + 10 * gallons) * factor:.2f}",
            "specs": {"gallons": gallons},
        }
        for tier, factor in TIERS.items()
        for gallons in (40, 50)
    ]
    products.append(
        {
            "sku": "TWH-199",
            "name": "Rinnai Good Tankless WH, 199K",
            "brand": "Rinnai",
            "category": TANKLESS,
            "tier": "good",
            "price": "4100",
        }
    )
    products.append(
        {"sku": "PAN-1", "name": "Water Heater Drain Pan", "category": DRAIN_PAN, "tier": None, "price": "40"}
    )
    return products


def _mixed() -> list[dict]:
    """A busy contractor's one category for every system: a furnace beside heat pumps."""
    return [
        {"sku": "MX-FURN", "name": "Gas Furnace 80K", "category": HEATING_COOLING, "tier": "good", "price": "3500"},
        *(
            {
                "sku": f"MX-HP-{tier.upper()}",
                "name": f"{tier.title()} Heat Pump 3 ton",
                "category": HEATING_COOLING,
                "tier": tier,
                "price": f"{9000 * factor:.2f}",
                "specs": {"tonnage": 3, "hspf2": 7.8},
            }
            for tier, factor in TIERS.items()
        ),
    ]


def _abbreviated(upstream) -> None:
    add_company(upstream, _systems(), plugin_key=HVAC_KEY, name="Abbreviated Mechanical", trades=["hvac"])
    add_company(upstream, _water_heaters(), plugin_key=PLUMBER_KEY, name="Abbreviated Plumbing", trades=["plumbing"])
    mixed_area = {"service_area": {"postal_codes": [MIXED_ZIP]}}
    add_company(upstream, _mixed(), plugin_key=MIXED_KEY, name="Mixed Heating", trades=["hvac"], **mixed_area)


@pytest.fixture(scope="module")
def live(request):
    """The two abbreviated catalogs synced; the app on a real port, UCP on."""
    catalog = {"companies": 0, "products": 0, "seed": 34, "examples": False}
    with demo_ucp_live(module_database(request), before_sync=_abbreviated, **catalog) as app:
        yield app


@pytest.fixture(scope="module")
def catalog(live):
    """Each company's public products by SKU: (category slug, tier, price in cents), as the mirror holds them."""
    slugs = {HVAC_KEY: (HP, ACGF, FURNACE, FILTERS, T_STATS), PLUMBER_KEY: (WATER_HEATER, TANKLESS, DRAIN_PAN)}
    with live.live.mirror.Session() as session:
        return {
            p.sku: (category["slug"], p.tier, p.price_cents)
            for key, categories in slugs.items()
            for category in categories
            for p in category_products(session, key, category["slug"])
        }


def meant(catalog: dict, query: str, skus: list[str]) -> None:
    """The SKUs a search returned, in order, are what a person asking `query` meant."""
    assert skus, f"{query!r} found nothing"
    categories = [catalog[sku][0] for sku in skus]
    first_category, first_tier, first_price = catalog[skus[0]]
    systems = [sku for sku, (slug, _, _) in catalog.items() if slug == HP["slug"]]
    if query in ("heat pump", "HP", "how much is a heat pump?"):  # the HP & Air Handler systems, all of them
        assert set(categories) == {HP["slug"]} and sorted(skus) == sorted(systems)
    elif query == "3 ton heat pump":  # the 3-ton systems first
        assert set(categories) == {HP["slug"]} and all(s.startswith("HPAH-3T") for s in skus[:3])
    elif query == "premium heat pump":  # the Best tier of the systems
        assert (first_category, first_tier) == (HP["slug"], "best") and set(categories) == {HP["slug"]}
    elif query == "lowest price heat pump":
        assert first_category == HP["slug"] and set(categories) == {HP["slug"]}
        assert first_price == min(p for slug, _, p in catalog.values() if slug == HP["slug"])
    elif query == "furnace and heat pump":  # both kinds, never the furnaces only
        assert {HP["slug"], FURNACE["slug"]} <= set(categories)
    elif query == "water tank heater":  # the water heaters with a tank: not the tankless one, not the drain pan
        assert set(categories) == {WATER_HEATER["slug"]}
    else:
        raise AssertionError(f"no expectation for {query!r}")


HVAC_QUESTIONS = ["heat pump", "3 ton heat pump", "premium heat pump", "lowest price heat pump", "HP"]


async def _mcp_searches(url: str, queries: list[str]) -> dict:
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {q: await session.call_tool("search_catalog", {"query": q, "limit": 20}) for q in queries}


def company_url(live, key: str, path: str = "mcp") -> str:
    return f"{live.live.url}/companies/{key}/{path}"


def test_the_heat_pump_rows_on_the_mcp_server(live, catalog):
    answers = anyio.run(_mcp_searches, company_url(live, HVAC_KEY), [*HVAC_QUESTIONS, "furnace and heat pump"])
    for query, result in answers.items():
        assert result.is_error is False
        found = result.structured_content
        assert found["no_match"] is None, query
        meant(catalog, query, [r["sku"] for r in found["results"]])


def test_the_heat_pump_rows_on_the_webmcp_endpoint(live, catalog):
    for query in HVAC_QUESTIONS:
        result = call_tool(company_url(live, HVAC_KEY, "webmcp/mcp"), "search_catalog", {"query": query, "limit": 20})
        meant(catalog, query, [r["sku"] for r in result["structuredContent"]["results"]])


def test_the_heat_pump_rows_on_ucp_search(live, catalog):
    for query in HVAC_QUESTIONS:
        found = live.ok("search_catalog", {"query": query}, key=HVAC_KEY)
        variants = [v["sku"] for product in found["products"] for v in product["variants"]]
        assert found["products"][0]["id"] == f"category:{HP['slug']}", query
        assert {catalog[sku][0] for sku in variants} == {HP["slug"]}, query


def test_ask_how_much_is_a_heat_pump_answers_each_tiers_price(live, catalog):
    said = sentence(answer(live.live, "how much is a heat pump?", HVAC_KEY))
    assert "publishes no heat pump prices" not in said
    assert "“HP & Air Handler”" in said
    for tier in TIERS:
        cheapest = min(p for slug, t, p in catalog.values() if slug == HP["slug"] and t == tier)
        assert f"${cheapest // 100:,}" in said and tier.title() in said, (tier, said)


def test_a_water_tank_heater_finds_the_plumbers_water_heaters(live, catalog):
    found = call_tool(company_url(live, PLUMBER_KEY), "search_catalog", {"query": "water tank heater", "limit": 20})
    structured = found["structuredContent"]
    assert structured["no_match"] is None
    meant(catalog, "water tank heater", [r["sku"] for r in structured["results"]])
    ucp = live.ok("search_catalog", {"query": "water tank heater"}, key=PLUMBER_KEY)
    assert ucp["products"][0]["id"] == f"category:{WATER_HEATER['slug']}"


# --- issue 34, point 2: ranking by what was asked ------------------------------------------------


def _in_ucp_order(found: dict) -> list[str]:
    return [v["sku"] for product in found["products"] for v in product["variants"]]


def _most_efficient_furnaces(skus: list[str]) -> None:
    """The highest AFUE first, never a lower AFUE before a higher one (the stored measures' order)."""
    ratings = [AFUE[sku] for sku in skus if sku in AFUE]
    assert skus[0] == "FURN-60K-BEST" and ratings == sorted(ratings, reverse=True), skus


def test_most_efficient_ranks_by_the_rating_the_kind_is_judged_by_on_every_surface(live):
    query = "most efficient furnace"
    (result,) = anyio.run(_mcp_searches, company_url(live, HVAC_KEY), [query]).values()
    structured = result.structured_content
    _most_efficient_furnaces([r["sku"] for r in structured["results"]])
    assert structured["understood"]["ranking"]["efficient"] is True and structured["understood"]["keywords"] == []
    webmcp = call_tool(company_url(live, HVAC_KEY, "webmcp/mcp"), "search_catalog", {"query": query, "limit": 20})
    _most_efficient_furnaces([r["sku"] for r in webmcp["structuredContent"]["results"]])
    ucp = live.ok("search_catalog", {"query": query}, key=HVAC_KEY)
    assert ucp["products"][0]["id"] == f"category:{FURNACE['slug']}" and _in_ucp_order(ucp)[0] == "FURN-60K-BEST"
    (reply,) = send(f"{live.live.url}/companies/{HVAC_KEY}", Part(text=query))
    _most_efficient_furnaces([r["sku"] for r in data_part(reply)["results"]])


@pytest.mark.parametrize("query, first", [("wifi thermostat", "TSTAT-W"), ("two-stage furnace", "FURN-60K-BETTER")])
def test_a_feature_asked_ranks_the_products_stating_it_first(live, query, first):
    """Stated in the name (the Wi-Fi T-Stat, dearer than the programmable one) or in the specs alone
    ({"stages": 2}: no word of it in the name)."""
    (result,) = anyio.run(_mcp_searches, company_url(live, HVAC_KEY), [query]).values()
    assert result.structured_content["results"][0]["sku"] == first
    webmcp = call_tool(company_url(live, HVAC_KEY, "webmcp/mcp"), "search_catalog", {"query": query, "limit": 20})
    assert webmcp["structuredContent"]["results"][0]["sku"] == first
    assert _in_ucp_order(live.ok("search_catalog", {"query": query}, key=HVAC_KEY))[0] == first
    (reply,) = send(f"{live.live.url}/companies/{HVAC_KEY}", Part(text=query))
    assert data_part(reply)["results"][0]["sku"] == first


def test_a_question_naming_two_kinds_answers_each_the_best_of_each_first(live, catalog):
    query = "furnace and heat pump"
    first_two = {FURNACE["slug"], HP["slug"]}
    (result,) = anyio.run(_mcp_searches, company_url(live, HVAC_KEY), [query]).values()
    skus = [r["sku"] for r in result.structured_content["results"]]
    assert {catalog[sku][0] for sku in skus[:2]} == first_two, skus
    limited = call_tool(company_url(live, HVAC_KEY, "webmcp/mcp"), "search_catalog", {"query": query, "limit": 2})
    assert {catalog[r["sku"]][0] for r in limited["structuredContent"]["results"]} == first_two
    ucp = live.ok("search_catalog", {"query": query}, key=HVAC_KEY)
    assert [p["id"] for p in ucp["products"][:2]] == [f"category:{FURNACE['slug']}", f"category:{HP['slug']}"]
    (reply,) = send(f"{live.live.url}/companies/{HVAC_KEY}", Part(text=query))
    assert {catalog[r["sku"]][0] for r in data_part(reply)["results"][:2]} == first_two
    # /ask: each kind's prices under its own label, never one label for both.
    said = sentence(answer(live.live, "how much is a furnace and heat pump?", HVAC_KEY))
    assert "furnace and heat pump" not in said
    assert "installed price for a furnace (“Furnace”) starts at" in said
    assert "installed price for a heat pump (“HP & Air Handler”) starts at" in said


# --- issue 34, point 3: a price never under a label it does not have -------------------------------


def _tier_prices(catalog: dict, slug: str, sku_part: str = "") -> str:
    cheapest = {}
    for sku, (category, tier, cents) in catalog.items():
        if category == slug and sku_part in sku:
            cheapest[tier] = min(cents, cheapest.get(tier, cents))
    return ", ".join(f"{money(cheapest[t], 'USD')} ({t.title()})" for t in TIERS if t in cheapest)


def test_a_size_not_offered_is_said_absent_and_the_nearest_answered_under_its_own_label(live, catalog):
    # The HP & Air Handler systems come in 2 and 3 tons: a 5-ton is none of them.
    expected = (
        "Abbreviated Mechanical lists no 5-ton heat pump; the largest is 3-ton. Abbreviated Mechanical's installed "
        f"price for a 3-ton heat pump (“HP & Air Handler”) starts at {_tier_prices(catalog, HP['slug'], '-3T-')}."
    )
    said = sentence(answer(live.live, "what does a 5 ton heat pump cost?", HVAC_KEY))
    assert said.startswith(expected), said
    (reply,) = send(f"{live.live.url}/companies/{HVAC_KEY}", Part(text="what does a 5 ton heat pump cost?"))
    assert text_of(reply).startswith(expected)
    # The directory's /ask and agent, across the businesses serving the ZIP.
    near = "how much is a 5 ton heat pump near 63376?"
    three_tons = [cents for sku, (slug, _, cents) in catalog.items() if slug == HP["slug"] and "-3T-" in sku]
    directory = sentence(answer(live.live, near, None))
    assert directory.startswith(
        "No business serving 63376 lists a 5-ton heat pump; the largest is 3-ton. Published installed prices for "
        f"a 3-ton heat pump near 63376: {money(min(three_tons), 'USD')} to {money(max(three_tons), 'USD')} "
        "across 1 business."
    ), directory
    (reply,) = send(live.live.url, Part(text=near))
    assert text_of(reply).startswith(directory)
    # UCP lookup: an id read by meaning features the nearest size, and says so.
    looked = live.ok("lookup_catalog", {"ids": ["5-ton-heat-pump"]}, key=HVAC_KEY)
    [featured] = [v["sku"] for p in looked["products"] for v in p["variants"]]
    assert featured.startswith("HPAH-3T-")
    note = {
        "type": "info",
        "code": "not_offered",
        "content": "5-ton-heat-pump: Abbreviated Mechanical lists no 5-ton heat pump; the nearest is 3-ton.",
    }
    assert note in looked["messages"]
    offered = live.ok("lookup_catalog", {"ids": ["3-ton-heat-pump"]}, key=HVAC_KEY)
    assert not [m for m in offered["messages"] if m["code"] == "not_offered"]
    # search_businesses: the category's range covers every size it lists; the 5-ton is said to be absent.
    found = call_tool(
        f"{live.live.url}/mcp",
        "search_businesses",
        {"query": "5 ton heat pump", "postal_code": "63376", "category": HP["slug"]},
    )["structuredContent"]
    assert found["message"].startswith(
        "No business serving 63376 lists a 5-ton heat pump; the largest is 3-ton. Published installed prices for "
        "“HP & Air Handler” serving 63376:"
    ), found["message"]


def test_a_tier_brand_or_kind_not_offered_is_said_absent(live, catalog):
    tankless = sentence(answer(live.live, "how much is a best tankless water heater?", PLUMBER_KEY))
    assert tankless.startswith(
        "Abbreviated Plumbing lists no Best-tier tankless water heater. Abbreviated Plumbing's installed price for a "
        f"tankless water heater (“Tankless”) starts at {_tier_prices(catalog, TANKLESS['slug'])}."
    ), tankless
    brand = sentence(answer(live.live, "how much is a Carrier heat pump?", HVAC_KEY))
    assert brand.startswith("Abbreviated Mechanical lists no “carrier” heat pump. "), brand
    kind = sentence(answer(live.live, "how much is a heat pump and a boiler?", HVAC_KEY))
    assert kind.startswith("Abbreviated Mechanical lists no boiler. ") and "heat pump and boiler" not in kind, kind
    assert "installed price for a heat pump (“HP & Air Handler”)" in kind
    feature = sentence(answer(live.live, "how much is a variable speed heat pump?", HVAC_KEY))
    assert feature.startswith("Abbreviated Mechanical lists no variable speed heat pump. "), feature
    # The directory: each kind's range under its own label.
    both = sentence(answer(live.live, "how much is a furnace and a water heater near 63376?", None))
    assert "furnace and water heater" not in both
    assert "Published installed prices for a furnace near 63376:" in both
    assert "Published installed prices for a water heater near 63376:" in both


def cents(amount) -> int:
    """A tool result's amount (a JSON number) in cents."""
    return round(amount * 100)


def _businesses(live, **arguments) -> dict:
    return call_tool(f"{live.live.url}/mcp", "search_businesses", arguments)["structuredContent"]


@pytest.mark.parametrize("category", ["heat pump", "Heat Pumps", "HP"])
def test_search_businesses_reads_a_category_given_as_a_kind(live, catalog, category):
    """Issue 34, point 5: "heat pump" finds the business whose category is "HP & Air Handler", priced from
    its heat pumps, and the range across businesses is said under the kind's own label."""
    found = _businesses(live, postal_code="63376", category=category)
    assert [r["business_id"] for r in found["results"]] == [HVAC_KEY], found
    heat_pumps = [price for slug, _, price in catalog.values() if slug == HP["slug"]]
    price_range = found["results"][0]["price_range"]
    assert (price_range["category"], price_range["slug"], price_range["kind"]) == (HP["name"], HP["slug"], "heat pump")
    assert (cents(price_range["price_low"]), cents(price_range["price_high"])) == (min(heat_pumps), max(heat_pumps))
    assert price_range["offer_count"] == len(heat_pumps)
    assert found["installed_price_range"]["category"] == "heat pump"
    assert found["message"].startswith(
        f"Published installed prices for a heat pump serving 63376: {money(min(heat_pumps), 'USD')} to "
    ), found["message"]


def test_a_kind_in_a_mixed_category_is_priced_from_that_kinds_products_only(live):
    """A category holding a furnace and heat pumps: "heat pump" is priced from the heat pumps, never from the
    cheaper furnace under the heat pumps' label; the category the business names stays its own."""
    found = _businesses(live, postal_code=MIXED_ZIP, category="heat pump")
    (result,) = found["results"]
    price_range = result["price_range"]
    assert (price_range["category"], price_range["kind"], price_range["offer_count"]) == (
        HEATING_COOLING["name"],
        "heat pump",
        3,
    ), price_range
    assert (cents(price_range["price_low"]), cents(price_range["price_high"])) == (900_000, 1_332_000)
    furnace = _businesses(live, postal_code=MIXED_ZIP, category="furnace")["results"][0]["price_range"]
    assert (cents(furnace["price_low"]), cents(furnace["price_high"]), furnace["kind"]) == (350_000, 350_000, "furnace")
    # The business's own category name asked: its whole group, no kind.
    own = _businesses(live, postal_code=MIXED_ZIP, category=HEATING_COOLING["name"])["results"][0]["price_range"]
    assert (cents(own["price_low"]), cents(own["price_high"]), own["kind"]) == (350_000, 1_332_000, None)


def test_a_category_no_business_sells_finds_none(live):
    """A kind nobody near sells (a boiler) matches no business, as an unknown category does."""
    for category in ("boiler", "no-such-category"):
        found = _businesses(live, postal_code="63376", category=category)
        assert found["total_matches"] == 0, (category, found)
