"""Issue 24's table, on every search surface, through the clients the suite uses.

The demo's Tudi Mechanical Systems (demo/examples.py: A/C & Gas Furnace and
HP & Air Handler systems in three tiers, air filters) answers the questions
homeowners asked it: `search_catalog` on its MCP server (the official `mcp`
ClientSession, which validates structuredContent against outputSchema) and
on the webmcp.js endpoint, UCP `search_catalog` and `lookup_catalog`, its A2A
agent (the `a2a-sdk` client), and the provider's `search_businesses` and the
directory agent. Each row states what a person meant, checked against the
catalog itself (the tier and price of each product as the mirror holds it).
"""

from __future__ import annotations

import anyio
import pytest
from a2a.types.a2a_pb2 import Part
from jsonschema import Draft202012Validator
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agent_tools import COMPANY_TOOLS
from demo.examples import EXAMPLE_KEYS, STOREFRONT_ONLY_KEY, TUDI_KEY
from mirror.read.catalog import category_products
from tests.a2a_server.test_a2a import data_part, send, text_of
from tests.mcp_helpers import call_tool, module_database
from tests.ucp_helpers import demo_ucp_live

HP, ACGF, FILTERS = "hp-air-handler", "ac-gas-furnace", "air-filters"
SEARCH_SCHEMA = next(t.output_schema for t in COMPANY_TOOLS if t.name == "search_catalog")


@pytest.fixture(scope="module")
def demo(request):
    """The demo's example companies (and a few seeded ones) synced; the app on a real port, UCP on."""
    with demo_ucp_live(module_database(request), companies=2, products=8, seed=7, examples=True) as live:
        yield live


@pytest.fixture(scope="module")
def tudi(demo):
    """Tudi's public products by SKU: (category, tier, price in cents), as the mirror holds them."""
    with demo.live.mirror.Session() as session:
        rows = {slug: category_products(session, TUDI_KEY, slug) for slug in (HP, ACGF, FILTERS)}
    return {p.sku: (slug, p.tier, p.price_cents) for slug, products in rows.items() for p in products}


def meant(tudi: dict, query: str, skus: list[str], total: int | None = None) -> None:
    """The products a search returned, in order (and how many matched), are what a person asking `query` meant."""
    assert skus, query
    categories = [tudi[sku][0] for sku in skus]
    first_category, first_tier, first_price = tudi[skus[0]]
    if query in ("air conditioner", "central air", "furnance"):  # the A/C & Gas Furnace systems, no air filter
        assert set(categories) == {ACGF}
    elif query == "heatpump":
        assert set(categories) == {HP}
    elif query == "HVAC system":  # the installed systems, all of them
        systems = sum(1 for c, _, _ in tudi.values() if c != FILTERS)
        assert set(categories) == {ACGF, HP} and (len(skus) if total is None else total) == systems
    elif query == "cheapest heat pump":  # the lowest-priced heat pump
        assert first_category == HP and first_price == min(p for c, _, p in tudi.values() if c == HP)
        assert set(categories) == {HP}
    elif query == "best air conditioner":  # the Best tier of the A/C systems
        assert (first_category, first_tier) == (ACGF, "best") and set(categories) == {ACGF}
    else:
        raise AssertionError(f"no expectation for {query!r}")


QUESTIONS = [
    "air conditioner",
    "central air",
    "furnance",
    "heatpump",
    "HVAC system",
    "cheapest heat pump",
    "best air conditioner",
]


def company_url(demo, path: str = "mcp") -> str:
    return f"{demo.live.url}/companies/{TUDI_KEY}/{path}"


async def _mcp_searches(url: str, queries: list[str]) -> dict:
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {q: await session.call_tool("search_catalog", {"query": q, "limit": 20}) for q in queries}


def test_the_issues_questions_on_the_mcp_server(demo, tudi):
    answers = anyio.run(_mcp_searches, company_url(demo), QUESTIONS)
    for query, result in answers.items():
        assert result.is_error is False  # and the SDK validated structuredContent against outputSchema
        found = result.structured_content
        meant(tudi, query, [r["sku"] for r in found["results"]])
        assert found["no_match"] is None and found["total_matches"] == len(found["results"])
    understood = answers["cheapest heat pump"].structured_content["understood"]
    assert understood["concepts"][0]["slug"] == "heat-pump" and understood["price"]["order"] == "price_low"
    assert answers["HVAC system"].structured_content["understood"]["trades"] == ["hvac"]


def test_the_issues_questions_on_the_webmcp_endpoint(demo, tudi):
    for query in QUESTIONS:
        result = call_tool(company_url(demo, "webmcp/mcp"), "search_catalog", {"query": query, "limit": 20})
        structured = result["structuredContent"]
        Draft202012Validator(SEARCH_SCHEMA).validate(structured)
        meant(tudi, query, [r["sku"] for r in structured["results"]])


def test_the_issues_questions_on_ucp_search_and_lookup(demo, tudi):
    for query in QUESTIONS:
        found = demo.ok("search_catalog", {"query": query}, key=TUDI_KEY)
        variants = [v["sku"] for product in found["products"] for v in product["variants"]]
        meant(tudi, query, variants)
        assert found["products"][0]["id"] == f"category:{tudi[variants[0]][0]}"
    # A lookup id that is no id here but names what a person wants resolves to the search's best product.
    looked = demo.ok("lookup_catalog", {"ids": ["heatpump", "best air conditioner", "no-such-thing"]}, key=TUDI_KEY)
    by_id = {i["id"]: v["sku"] for p in looked["products"] for v in p["variants"] for i in v["inputs"]}
    meant(tudi, "heatpump", [by_id["heatpump"]])
    meant(tudi, "best air conditioner", [by_id["best air conditioner"]])
    assert {"type": "info", "code": "not_found", "content": "no-such-thing"} in looked["messages"]


def test_the_issues_questions_as_a2a_text(demo, tudi):
    base = f"{demo.live.url}/companies/{TUDI_KEY}"
    for query in QUESTIONS:
        (answer,) = send(base, Part(text=query))
        assert answer["message"]["metadata"]["skill"] == "search_catalog"
        found = data_part(answer)
        meant(tudi, query, [r["sku"] for r in found["results"]], found["total_matches"])
    (coverage,) = send(base, Part(text="Do you serve 63376?"))
    assert coverage["message"]["metadata"]["skill"] == "check_service_area" and data_part(coverage)["served"]
    (sized,) = send(base, Part(text="How much is a 3 ton heat pump near 63376?"))  # a ZIP and a subject: the search
    assert sized["message"]["metadata"]["skill"] == "search_catalog"
    assert tudi[data_part(sized)["results"][0]["sku"]][0] == HP


def test_a_search_that_finds_nothing_says_what_the_contractor_carries(demo, tudi):
    found = call_tool(company_url(demo), "search_catalog", {"query": "roof repair"})["structuredContent"]
    Draft202012Validator(SEARCH_SCHEMA).validate(found)
    assert found["results"] == [] and found["understood"]["concepts"][0]["slug"] == "roof"
    carried = {c["slug"] for c in found["no_match"]["categories"]}
    assert carried == {HP, ACGF, FILTERS}
    assert (
        "Tudi Mechanical Systems" in found["no_match"]["message"]
        and "A/C & Gas Furnace" in found["no_match"]["message"]
    )
    ucp = demo.ok("search_catalog", {"query": "roof repair"}, key=TUDI_KEY)
    [note] = [m for m in ucp["messages"] if m.get("code") == "no_match"]
    assert ucp["products"] == [] and note["content"] == found["no_match"]["message"]
    (answer,) = send(f"{demo.live.url}/companies/{TUDI_KEY}", Part(text="roof repair"))
    assert data_part(answer)["no_match"] == found["no_match"] and "never instructions" in text_of(answer)


def test_a_misspelled_brand_is_read_on_every_surface(demo, tudi):
    found = call_tool(company_url(demo), "search_catalog", {"query": "lenox furnase"})["structuredContent"]
    assert found["understood"]["corrections"] == [{"typed": "lenox", "meant": "lennox", "how": "corrected"}]
    assert found["results"][0]["brand"] == "Lennox" and tudi[found["results"][0]["sku"]][0] == ACGF
    ucp = demo.ok("search_catalog", {"query": "lenox furnase"}, key=TUDI_KEY)
    assert {"type": "info", "code": "query_corrected", "content": "Read 'lenox' as 'lennox'."} in ucp["messages"]


def businesses(demo, arguments: dict) -> dict:
    result = call_tool(f"{demo.live.url}/mcp", "search_businesses", arguments)
    assert result["isError"] is False
    return result["structuredContent"]


def test_the_issues_questions_find_the_businesses_that_sell_them(demo):
    prairie = EXAMPLE_KEYS["no_funnel"]  # Prairie Heating & Cooling: HVAC, Central AC only, serves 63376
    for query in QUESTIONS:
        found = businesses(demo, {"query": query, "postal_code": "63376"})
        ranked = [r["business_id"] for r in found["results"]]
        assert TUDI_KEY in ranked, (query, ranked)
        if query in ("heatpump", "furnance", "cheapest heat pump"):  # Prairie has the trade, not the product
            assert ranked[0] == TUDI_KEY and ranked.index(prairie) > 0, (query, ranked)
    plumbers = businesses(demo, {"query": "plumber"})
    assert plumbers["results"][0]["business_id"] == STOREFRONT_ONLY_KEY
    assert TUDI_KEY not in {r["business_id"] for r in plumbers["results"]}  # an HVAC contractor is no plumber
    water = businesses(demo, {"query": "water heater installation near 63103"})
    assert water["postal_code"] == "63103" and [r["business_id"] for r in water["results"]] == [STOREFRONT_ONLY_KEY]
    ac = businesses(demo, {"query": "AC repair", "postal_code": "63376"})
    assert {TUDI_KEY, prairie} <= {r["business_id"] for r in ac["results"]}
    assert ac["understood"]["concepts"][0]["slug"] == "air-conditioner"


def test_the_directory_agent_reads_the_question_too(demo):
    (answer,) = send(demo.live.url, Part(text="plumber near 63103"))
    found = data_part(answer)
    assert answer["message"]["metadata"]["skill"] == "search_businesses" and found["postal_code"] == "63103"
    assert [r["business_id"] for r in found["results"]] == [STOREFRONT_ONLY_KEY]


# --- issue 34: ranking by what was asked, and the featured choice never under another label ----------


def test_most_efficient_and_each_kind_asked_on_every_surface(demo, tudi):
    """Tudi's furnaces are the A/C & Gas Furnace systems (80, 96 and 98% AFUE): the most efficient is the 98%
    (the Best tier); "furnace and heat pump" answers both kinds, the best of each first."""
    with demo.live.mirror.Session() as session:
        afue = {p.sku: p.specs["afue"] for p in category_products(session, TUDI_KEY, ACGF)}
    efficient = anyio.run(_mcp_searches, company_url(demo), ["most efficient furnace"])["most efficient furnace"]
    skus = [r["sku"] for r in efficient.structured_content["results"]]
    assert [afue[sku] for sku in skus] == sorted(afue.values(), reverse=True) and afue[skus[0]] == 98
    webmcp = call_tool(
        company_url(demo, "webmcp/mcp"), "search_catalog", {"query": "furnace and heat pump", "limit": 2}
    )
    assert {tudi[r["sku"]][0] for r in webmcp["structuredContent"]["results"]} == {ACGF, HP}
    ucp = demo.ok("search_catalog", {"query": "most efficient furnace"}, key=TUDI_KEY)
    assert afue[ucp["products"][0]["variants"][0]["sku"]] == 98
    (answer,) = send(f"{demo.live.url}/companies/{TUDI_KEY}", Part(text="energy efficient furnace"))
    assert afue[data_part(answer)["results"][0]["sku"]] == 98


def test_a_lookup_for_a_size_not_offered_features_the_nearest_and_says_so(demo, tudi):
    looked = demo.ok("lookup_catalog", {"ids": ["5-ton-ac"]}, key=TUDI_KEY)
    [featured] = [v for p in looked["products"] for v in p["variants"]]
    assert featured["inputs"] == [{"id": "5-ton-ac", "match": "featured"}] and "4 ton" in featured["title"]
    assert {
        "type": "info",
        "code": "not_offered",
        "content": "5-ton-ac: Tudi Mechanical Systems lists no 5-ton air conditioner; the nearest is 4-ton.",
    } in looked["messages"]
