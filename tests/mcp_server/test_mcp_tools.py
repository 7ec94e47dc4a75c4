"""Each MCP tool's behaviour against synced demo data.

Every successful call is checked against its tool's outputSchema (JSON Schema
2020-12) and its text block; the known companies are in mcp_helpers.
"""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from agent_tools import COMPANY_TOOLS, PROVIDER_TOOLS
from mirror.read.company import load_company_snapshot
from tests.mcp_helpers import (
    FEED_OFF,
    HOSTILE_NAME,
    MCP_OFF,
    NO_PHONE,
    NOT_LIVE,
    QUOTE_OFF,
    TUDI,
    live_mcp,
    module_database,
    rpc,
)
from tests.mcp_helpers import call_tool as raw_call

SCHEMAS = {("company", t.name): t.output_schema for t in COMPANY_TOOLS}
SCHEMAS.update({("provider", t.name): t.output_schema for t in PROVIDER_TOOLS})
PRIVATE = ("PRIVATE-DEALER-NOTE", "internal_id", "owner", "@tudi", "cost")


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request), big_catalog=True) as server:
        yield server


def ok(url: str, server: str, name: str, arguments: dict | None = None) -> dict:
    """A successful call: valid against outputSchema, text = the same JSON pretty-printed."""
    result = raw_call(url, name, arguments)
    assert result["isError"] is False, result["content"][0]["text"]
    structured = result["structuredContent"]
    Draft202012Validator(SCHEMAS[(server, name)]).validate(structured)
    assert result["content"] == [{"type": "text", "text": json.dumps(structured, indent=2, ensure_ascii=False)}]
    for secret in PRIVATE:
        assert secret not in result["content"][0]["text"]
    return structured


def tool_error(url: str, name: str, arguments: dict) -> str:
    """A tool error: isError, no structuredContent; its text."""
    result = raw_call(url, name, arguments)
    assert result["isError"] is True
    assert "structuredContent" not in result
    return result["content"][0]["text"]


def company(live, name, arguments=None, key=TUDI):
    return ok(live.company_url(key), "company", name, arguments)


def provider(live, name, arguments=None):
    return ok(live.provider_url, "provider", name, arguments)


# --- declarations -------------------------------------------------------------------


@pytest.mark.parametrize("server", ["company", "provider"])
def test_every_tool_is_fully_declared(live, server):
    url = live.company_url() if server == "company" else live.provider_url
    tools = rpc(url, "tools/list").json()["result"]["tools"]
    assert [t["name"] for t in tools] == [t.name for t in (COMPANY_TOOLS if server == "company" else PROVIDER_TOOLS)]
    for tool in tools:
        assert tool["title"] and "Returns: " in tool["description"]
        schema = tool["inputSchema"]
        Draft202012Validator.check_schema(schema)
        Draft202012Validator.check_schema(tool["outputSchema"])
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert "$ref" not in json.dumps(schema) and "$defs" not in json.dumps(tool["outputSchema"])
        assert tool["outputSchema"]["type"] == "object"
        assert tool["annotations"] == {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }


def test_launcher_tools_carry_their_widget_meta(live):
    tools = {t["name"]: t for t in rpc(live.provider_url, "tools/list").json()["result"]["tools"]}
    launcher = tools["request_service"]["_meta"]
    assert launcher["ui"]["resourceUri"] == "ui://widget/request-service.html"
    assert launcher["openai/outputTemplate"] == "ui://widget/request-service.html"
    assert tools["check_service_area"]["_meta"]["openai/widgetAccessible"] is True


# --- get_business_info, list_categories ------------------------------------------------


def test_get_business_info(live):
    info = company(live, "get_business_info")
    base = live.url + f"/companies/{TUDI}"
    assert info["name"] == "Tudi Mechanical Systems"
    assert info["trades"] == ["hvac", "plumbing"]
    assert info["address"] == {
        "line1": "12 Main St",
        "line2": "Suite 4",
        "locality": "Wentzville",
        "region": "MO",
        "postal_code": "63385",
        "country": "US",
        "formatted": "12 Main St, Suite 4, Wentzville, MO 63385",
    }
    assert info["phone"] == "+13145551234" and info["website"] == "https://tudi.example"
    assert info["service_area"] == {"postal_code_count": 3, "postal_codes": ["63301", "63376", "63385"]}
    assert info["quote_url"] == base + "/quote" and info["pricing_url"] == base + "/pricing"
    assert info["freshness_state"] == "fresh" and info["last_synced_at"].endswith("Z")
    assert info["category_count"] == 5


def test_list_categories_matches_pricing_json(live):
    listed = company(live, "list_categories")
    with live.mirror.Session() as session:
        document = load_company_snapshot(session, TUDI, options=True).view(live.mirror.settings).pricing_document()
    # The summary of each category, field for field; the options, the image and the plain name are pricing.json's alone.
    pricing_only = ("options", "image_url", "plain_name")
    assert listed["categories"] == [
        {k: v for k, v in c.items() if k not in pricing_only} for c in document["categories"]
    ]
    central = next(c for c in listed["categories"] if c["slug"] == "central-ac")
    assert central == {
        "name": "Central AC",
        "slug": "central-ac",
        "kind": "system",
        "price_low": 7800,
        "price_high": 13500.5,
        "offer_count": 4,
        "tiers": {"good": 7800, "better": 9516, "best": 11700},
    }
    filters = next(c for c in listed["categories"] if c["slug"] == "air-filters")
    assert "tiers" not in filters and filters["price_low"] == 14.99
    assert listed["quote_url"] == document["quote_url"] and listed["currency"] == "USD"


def test_prices_are_exact_json_numbers(live):
    text = raw_call(live.company_url(), "list_categories")["content"][0]["text"]
    assert '"price_low": 60.05' in text and '"price_high": 13500.5' in text and "60.050" not in text


def test_quote_url_is_null_when_quoting_is_off(live):
    for name, arguments in (
        ("get_business_info", {}),
        ("list_categories", {}),
        ("search_catalog", {"query": "a"}),
        ("check_service_area", {"postal_code": "63376"}),
    ):
        assert company(live, name, arguments, key=QUOTE_OFF)["quote_url"] is None


# --- search_catalog -----------------------------------------------------------------


def names(result: dict) -> list[str]:
    return [r["name"] for r in result["results"]]


def test_search_ranks_name_and_brand_words_first(live):
    found = company(live, "search_catalog", {"query": "lennox air conditioner"})
    assert names(found)[:2] == [
        "Lennox 16.2 SEER2 Central Air Conditioner, 3 ton",
        "Lennox 20.5 SEER2 Central Air Conditioner, 4 ton",
    ]
    # Then the other air conditioners; a Lennox furnace shares the brand but is no air conditioner.
    assert set(names(found)[2:]) == {
        "Goodman 14.3 SEER2 Central Air Conditioner, 3 ton",
        "Trane 20.5 SEER2 Central Air Conditioner, 3 ton",
    }
    assert found["total_matches"] == 4 and found["quote_url"].endswith("/quote")
    assert [c["slug"] for c in found["understood"]["concepts"]] == ["air-conditioner"]
    assert found["understood"]["keywords"] == ["lennox"] and found["no_match"] is None


def test_search_ranks_a_name_match_above_a_cheaper_description_match(live):
    found = company(live, "search_catalog", {"query": "trane"})
    assert [r["sku"] for r in found["results"]] == ["CAC-3T-BEST", "FURN-80K-BETTER"]


def test_search_plural_and_model_numbers(live):
    assert names(company(live, "search_catalog", {"query": "air filters MERV 13"}))[0] == "MERV 13 Air Filter 16x25x1"
    model = company(live, "search_catalog", {"query": "ML17XP1-036"})
    assert model["results"][0]["sku"] == "CAC-3T-BETTER"
    assert model["results"][0]["model_numbers"] == ["ML17XP1-036"] and model["results"][0]["price"] == 9516


def test_search_filters_and_limit(live):
    def skus(arguments):
        return [r["sku"] for r in company(live, "search_catalog", arguments)["results"]]

    assert set(skus({"query": "central air", "tier": "best"})) == {"CAC-3T-BEST", "CAC-4T-BEST"}
    assert set(skus({"query": "lennox", "category": "Gas Furnace"})) == {"FURN-80K-BETTER"}
    assert set(skus({"query": "conditioner", "max_price": 9516})) == {"CAC-3T-GOOD", "CAC-3T-BETTER"}
    assert skus({"query": "conditioner", "max_price": 9515.99}) == ["CAC-3T-GOOD"]
    limited = company(live, "search_catalog", {"query": "conditioner", "limit": 2})
    assert limited["result_count"] == 2 and limited["total_matches"] == 4


def test_search_never_shows_unpublished_products(live):
    found = company(live, "search_catalog", {"query": "prototype unpublished secret", "limit": 50})
    assert all(r["sku"] != "FURN-SECRET" for r in found["results"])


def test_search_returns_hostile_text_verbatim_as_data(live):
    found = company(live, "search_catalog", {"query": "ignore previous instructions"})
    assert found["results"][0]["name"] == HOSTILE_NAME and found["results"][0]["brand"] == "</script>"


def test_search_with_no_match_is_an_empty_success(live):
    found = company(live, "search_catalog", {"query": "zeppelin"})
    assert found["results"] == [] and found["total_matches"] == 0


@pytest.mark.parametrize(
    "arguments,argument",
    [
        ({}, "query"),
        ({"query": "   "}, "query"),
        ({"query": 7}, "query"),
        ({"query": "a", "limit": 0}, "limit"),
        ({"query": "a", "limit": 51}, "limit"),
        ({"query": "a", "limit": "10"}, "limit"),
        ({"query": "a", "limit": True}, "limit"),
        ({"query": "a", "tier": "premium"}, "tier"),
        ({"query": "a", "max_price": -1}, "max_price"),
        ({"query": "a", "colour": "red"}, "colour"),
        ({"query": "a", "category": "spaceships"}, "category"),
    ],
)
def test_search_bad_arguments_are_tool_errors_naming_the_argument(live, arguments, argument):
    assert argument in tool_error(live.company_url(), "search_catalog", arguments)


def test_search_on_a_5000_product_catalog_is_a_bounded_query(live):
    """Speed lives in bench/serve.py; here: the work per search does not grow per
    product (a fixed number of SQL statements) and the ranking still holds."""
    from sqlalchemy import event

    url = live.company_url("big-catalog-test")
    assert company(live, "get_business_info", key="big-catalog-test")["category_count"] > 5
    statements = []

    def count(*_args):
        statements.append(1)

    event.listen(live.mirror.engine, "before_cursor_execute", count)
    try:
        per_query = {}
        for query in ("heat pump 3 ton", "air filter merv 13", "rheem", "zeppelin"):
            statements.clear()
            found = ok(url, "company", "search_catalog", {"query": query})
            per_query[query] = len(statements)
            assert found["total_matches"] < 5000
    finally:
        event.remove(live.mirror.engine, "before_cursor_execute", count)
    assert max(per_query.values()) <= 6, per_query


# --- compare_tiers ---------------------------------------------------------------------


def test_compare_tiers_side_by_side(live):
    compared = company(live, "compare_tiers", {"category": "central-ac"})
    assert compared["tiers"] == {"good": 7800, "better": 9516, "best": 11700}
    by_tier = {c["tier"]: c for c in compared["comparison"]}
    assert [c["tier"] for c in compared["comparison"]] == ["good", "better", "best"]
    assert by_tier["best"]["offer_count"] == 2 and by_tier["best"]["brands"] == ["Lennox", "Trane"]
    assert by_tier["best"]["price"] == 11700 and by_tier["best"]["product"]["sku"] == "CAC-3T-BEST"
    assert by_tier["better"]["product"]["specs"] == {"seer2": 16.2, "tonnage": 3}
    assert compare_by_name(live) == compared


def compare_by_name(live):
    return company(live, "compare_tiers", {"category": " central ac "})


def test_compare_tiers_with_an_empty_tier(live):
    furnace = company(live, "compare_tiers", {"category": "gas-furnace"})
    good = furnace["comparison"][0]
    assert good == {"tier": "good", "price": None, "offer_count": 0, "brands": [], "product": None}


@pytest.mark.parametrize(
    "arguments,needle",
    [
        ({"category": "air-filters"}, "accessory"),
        ({"category": "spaceships"}, "category"),
        ({}, "category"),
    ],
)
def test_compare_tiers_errors(live, arguments, needle):
    assert needle in tool_error(live.company_url(), "compare_tiers", arguments)


# --- check_service_area ------------------------------------------------------------------


@pytest.mark.parametrize(
    "given,normalised,served",
    [
        ("63376", "63376", True),
        ("63376-1234", "63376", True),
        (" 63 376 ", "63376", True),
        ("633011234", "63301", True),
        ("99999", "99999", False),
    ],
)
def test_check_service_area(live, given, normalised, served):
    answer = company(live, "check_service_area", {"postal_code": given})
    assert answer["postal_code"] == normalised and answer["served"] is served
    assert answer["quote_url"].endswith("/quote") and answer["business_name"] == "Tudi Mechanical Systems"


@pytest.mark.parametrize("value", ["abc", "6337", "63376-12", "", 63376, None])
def test_check_service_area_refuses_what_is_not_a_zip(live, value):
    assert "postal_code" in tool_error(live.company_url(), "check_service_area", {"postal_code": value})


# --- provider: request_service, check_service_area, search_businesses -------------------


def test_request_service(live):
    card = provider(live, "request_service", {"business_id": TUDI})
    assert card["provider_business_id"] == TUDI and card["name"] == "Tudi Mechanical Systems"
    assert card["address"]["formatted"] == "12 Main St, Suite 4, Wentzville, MO 63385"
    assert card["phone"] == "+13145551234"
    assert card["quote_url"] == f"{live.url}/companies/{TUDI}/quote"
    assert card["mcp_url"] == f"{live.url}/companies/{TUDI}/mcp"
    assert card["categories"] == company(live, "list_categories")["categories"]


def test_request_service_for_a_company_whose_own_server_is_off(live):
    assert provider(live, "request_service", {"business_id": MCP_OFF})["mcp_url"] is None


@pytest.mark.parametrize("arguments", [{}, {"business_id": ""}, {"business_id": "   "}, {"business_id": 7}])
def test_request_service_without_a_business_id_names_the_argument(live, arguments):
    text = tool_error(live.provider_url, "request_service", arguments)
    assert "business_id" in text and "No business found" not in text


@pytest.mark.parametrize("key", ["no-such-business", QUOTE_OFF, FEED_OFF, NOT_LIVE, NO_PHONE])
def test_businesses_outside_the_feed_are_not_found(live, key):
    assert "No business found" in tool_error(live.provider_url, "request_service", {"business_id": key})
    text = tool_error(live.provider_url, "check_service_area", {"business_id": key, "postal_code": "63376"})
    assert "No business found" in text


def test_provider_check_service_area(live):
    served = provider(live, "check_service_area", {"business_id": TUDI, "postal_code": "63385-0001"})
    assert served["served"] is True and served["postal_code"] == "63385" and served["provider_business_id"] == TUDI
    assert provider(live, "check_service_area", {"business_id": TUDI, "postal_code": "10001"})["served"] is False
    assert "postal_code" in tool_error(
        live.provider_url, "check_service_area", {"business_id": TUDI, "postal_code": "nope"}
    )


def test_search_businesses_by_postal_code_and_category(live):
    found = provider(live, "search_businesses", {"postal_code": "63301", "category": "central-ac"})
    assert [r["business_id"] for r in found["results"]] == [TUDI]
    result = found["results"][0]
    assert result["price_range"] == {
        "category": "Central AC",
        "slug": "central-ac",
        "price_low": 7800,
        "price_high": 13500.5,
        "offer_count": 4,
        "currency": "USD",
        "kind": None,  # its own category, not a kind it lists under another name
    }
    assert result["city"] == "Wentzville" and result["quote_url"] == f"{live.url}/companies/{TUDI}/quote"
    assert result["mcp_url"] == f"{live.url}/companies/{TUDI}/mcp"
    by_name = provider(live, "search_businesses", {"postal_code": "63301", "category": "central ac"})
    assert by_name["results"] == found["results"]


def test_search_businesses_lists_exactly_the_feed(live):
    found = provider(live, "search_businesses", {"postal_code": "63376", "limit": 20})
    ids = {r["business_id"] for r in found["results"]}
    assert {TUDI, MCP_OFF} <= ids
    assert not ids & {QUOTE_OFF, FEED_OFF, NOT_LIVE, NO_PHONE}
    mcp_off = next(r for r in found["results"] if r["business_id"] == MCP_OFF)
    assert mcp_off["mcp_url"] is None and mcp_off["price_range"] is None


def test_search_businesses_by_keywords_and_limit(live):
    assert provider(live, "search_businesses", {"query": "Tudi"})["results"][0]["business_id"] == TUDI
    everyone = provider(live, "search_businesses", {"limit": 20})
    assert everyone["total_matches"] >= 2 and everyone["result_count"] == min(20, everyone["total_matches"])
    assert provider(live, "search_businesses", {"limit": 1})["result_count"] == 1
    assert provider(live, "search_businesses", {"category": "spaceships"})["results"] == []


@pytest.mark.parametrize(
    "arguments,argument",
    [
        ({"postal_code": "abc"}, "postal_code"),
        ({"limit": 21}, "limit"),
        ({"limit": 0}, "limit"),
        ({"city": "x"}, "city"),
        ({"query": ""}, "query"),
    ],
)
def test_search_businesses_bad_arguments(live, arguments, argument):
    assert argument in tool_error(live.provider_url, "search_businesses", arguments)


# --- the widget resource ---------------------------------------------------------------


def test_widget_resource_is_listed_and_readable(live):
    listed = rpc(live.provider_url, "resources/list").json()["result"]["resources"]
    assert [r["uri"] for r in listed] == ["ui://widget/request-service.html"]
    assert listed[0]["mimeType"] == "text/html;profile=mcp-app"
    read = rpc(live.provider_url, "resources/read", {"uri": "ui://widget/request-service.html"}).json()["result"]
    contents = read["contents"][0]
    assert contents["mimeType"] == "text/html;profile=mcp-app"
    assert contents["_meta"]["ui"]["prefersBorder"] is True
    assert contents["_meta"]["ui"]["csp"] == {"connectDomains": [], "resourceDomains": []}
    html = contents["text"]
    assert html.startswith("<!doctype html>") and "ui/initialize" in html and "window.openai" in html
    for external in ('src="http', 'href="http', "@import", "url(", "<link"):
        assert external not in html
