"""UCP Catalog conformance rules the schemas do not enforce, over real HTTP.

lookup_catalog: unknown ids are info messages, duplicates collapse, every
variant carries its `inputs`, too many ids is -32602. get_product: option
selection, and an unknown id answers the UCP error response. Every call:
`meta.ucp-agent.profile` is required (-32001 invalid_profile_url), the
agent's profile is fetched and negotiated, and its `ucp.version` picks the
release of the answer (2026-04-08 or 2026-08-25, exact equality). Every
structuredContent is validated against the tool's outputSchema here, and
against the official schemas of its release in tests/conformance/.
"""

from __future__ import annotations

import copy

import pytest

from mcp_server.ucp.agent_profile import UNFETCHABLE_CONTENT
from mcp_server.ucp.models import MAX_LOOKUP_IDS
from mcp_server.ucp.tools import EXAMPLE_PROFILE, UCP_TOOLS
from tests.mcp_helpers import TUDI, module_database
from tests.ucp_helpers import AGENT_PROFILE, RELEASES, V0408, V0825, agent_profile, ucp_live


@pytest.fixture(scope="module")
def ucp(request):
    with ucp_live(module_database(request)) as live:
        yield live


def variants_of(result: dict) -> list[dict]:
    return [variant for product in result["products"] for variant in product["variants"]]


# --- lookup_catalog ------------------------------------------------------------------------


def test_unknown_ids_are_not_an_error_just_fewer_products_and_info_messages(ucp):
    result = ucp.ok("lookup_catalog", {"ids": ["sku:CAC-3T-BETTER", "sku:NOPE", "category:nope", "whatever"]})
    assert [p["id"] for p in result["products"]] == ["category:central-ac"]
    not_found = [m for m in result["messages"] if m.get("code") == "not_found"]
    assert not_found == [
        {"type": "info", "code": "not_found", "content": raw} for raw in ("sku:NOPE", "category:nope", "whatever")
    ]
    nothing = ucp.ok("lookup_catalog", {"ids": ["sku:FURN-SECRET"]})  # unpublished: not public, not found
    assert nothing["products"] == [] and nothing["messages"][-1]["content"] == "sku:FURN-SECRET"


def test_each_lookup_variant_carries_its_inputs_correlation(ucp):
    result = ucp.ok(
        "lookup_catalog", {"ids": ["category:central-ac", "sku:CAC-3T-BETTER", "ACC-FLT-M13", "air-filters"]}
    )
    by_sku = {v["sku"]: v["inputs"] for v in variants_of(result)}
    assert by_sku == {
        "CAC-3T-GOOD": [{"id": "category:central-ac", "match": "featured"}],  # the cheapest is featured
        "CAC-3T-BETTER": [{"id": "sku:CAC-3T-BETTER", "match": "exact"}],
        "ACC-FLT-M13": [{"id": "ACC-FLT-M13", "match": "exact"}],  # a bare SKU
        "ACC-FLT-M8": [{"id": "air-filters", "match": "featured"}],  # a handle
    }
    assert [p["id"] for p in result["products"]] == ["category:central-ac", "category:air-filters"]  # each once


def test_duplicate_ids_collapse(ucp):
    result = ucp.ok("lookup_catalog", {"ids": ["sku:CAC-3T-BETTER", "sku:CAC-3T-BETTER", "sku:CAC-3T-BETTER"]})
    [product] = result["products"]
    [variant] = product["variants"]
    assert variant["inputs"] == [{"id": "sku:CAC-3T-BETTER", "match": "exact"}]
    same_variant = ucp.ok("lookup_catalog", {"ids": ["sku:CAC-3T-GOOD", "category:central-ac"]})
    [only] = variants_of(same_variant)
    assert only["inputs"] == [
        {"id": "sku:CAC-3T-GOOD", "match": "exact"},
        {"id": "category:central-ac", "match": "featured"},
    ]


def test_too_many_ids_answer_invalid_params(ucp):
    ids = [f"sku:X{i}" for i in range(MAX_LOOKUP_IDS + 1)]
    error = ucp.rpc_error("lookup_catalog", {"ids": ids})
    assert error["code"] == -32602 and error["data"]["code"] == "request_too_large"
    assert "catalog.ids" in error["message"]
    assert len(ucp.ok("lookup_catalog", {"ids": ids[:MAX_LOOKUP_IDS]})["messages"]) == MAX_LOOKUP_IDS + 1
    assert ucp.rpc_error("lookup_catalog", {"ids": []})["code"] == -32602


def test_lookup_filters_and_context_apply_after_resolution(ucp):
    result = ucp.ok(
        "lookup_catalog",
        {
            "ids": ["sku:CAC-3T-BETTER", "sku:ACC-FLT-M13"],
            "filters": {"price": {"max": 10000}},
            "context": {"postal_code": "99501"},
        },
    )
    assert [v["sku"] for v in variants_of(result)] == ["ACC-FLT-M13"]
    assert variants_of(result)[0]["availability"]["available"] is False


# --- get_product ---------------------------------------------------------------------------


def test_get_product_of_an_unknown_id_answers_the_ucp_error_response(ucp):
    for unknown in ("category:nope", "sku:NOPE", "sku:FURN-SECRET"):
        result = ucp.ok("get_product", {"id": unknown})  # validated against types/error_response.json
        assert result["ucp"]["status"] == "error"
        [message] = result["messages"]
        assert message["type"] == "error" and message["code"] == "not_found" and unknown in message["content"]
        assert result["continue_url"].endswith(f"/companies/{TUDI}/quote")


def test_get_product_by_variant_id_features_that_variant(ucp):
    product = ucp.ok("get_product", {"id": "sku:CAC-3T-BETTER", "selected": [{"name": "Tier", "label": "Best"}]})[
        "product"
    ]
    assert product["id"] == "category:central-ac"
    assert product["variants"][0]["sku"] == "CAC-3T-BETTER"  # the variant id wins over `selected`
    assert product["selected"] == [{"name": "Tier", "label": "Better"}, {"name": "Brand", "label": "Lennox"}]


def test_get_product_selection_narrows_and_signals_availability(ucp):
    product = ucp.ok("get_product", {"id": "category:central-ac", "selected": [{"name": "tier", "label": "best"}]})[
        "product"
    ]
    assert product["selected"] == [{"name": "Tier", "label": "Best"}]
    assert [v["sku"] for v in product["variants"]] == ["CAC-3T-BEST", "CAC-4T-BEST"]
    brands = {v["label"]: (v["exists"], v["available"]) for v in product["options"][1]["values"]}
    assert brands == {"Goodman": (False, False), "Lennox": (True, True), "Trane": (True, True)}


def test_get_product_relaxes_selections_by_preference(ucp):
    catalog = {
        "id": "category:central-ac",
        "selected": [{"name": "Tier", "label": "Good"}, {"name": "Brand", "label": "Trane"}],
    }
    keep_tier = ucp.ok("get_product", {**catalog, "preferences": ["Tier", "Brand"]})["product"]
    assert keep_tier["selected"] == [{"name": "Tier", "label": "Good"}]
    keep_brand = ucp.ok("get_product", {**catalog, "preferences": ["Brand", "Tier"]})["product"]
    assert keep_brand["selected"] == [{"name": "Brand", "label": "Trane"}]
    assert [v["sku"] for v in keep_brand["variants"]] == ["CAC-3T-BEST"]


def test_get_product_without_selection_uses_the_featured_variant_and_coverage(ucp):
    product = ucp.ok("get_product", {"id": "category:central-ac", "context": {"postal_code": "99501"}})["product"]
    assert product["variants"][0]["sku"] == "CAC-3T-GOOD"
    assert product["selected"] == [{"name": "Tier", "label": "Good"}, {"name": "Brand", "label": "Goodman"}]
    assert all(value["available"] is False for option in product["options"] for value in option["values"])


# --- meta and negotiation ------------------------------------------------------------------


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        {"ucp-agent": {}},
        {"ucp-agent": {"profile": ""}},
        {"ucp-agent": {"profile": 42}},
        {"ucp-agent": "https://x.example/p.json"},
    ],
)
def test_a_missing_agent_profile_answers_invalid_profile_url(ucp, meta):
    body = ucp.call("search_catalog", {"query": "filter"}, profile=None, meta=meta)
    assert body["error"]["code"] == -32001
    assert body["error"]["data"]["code"] == "invalid_profile_url"


@pytest.mark.parametrize(
    "url",
    [
        "https://10.1.2.3/agent.json",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::ffff:192.168.0.1]/agent.json",
        "https://100.100.100.200/p.json",
    ],
)
def test_agent_profiles_on_private_addresses_are_never_fetched(ucp, url):
    error = ucp.rpc_error("search_catalog", {"query": "filter"}, profile=url)
    assert error["code"] == -32001 and error["data"]["code"] == "profile_unreachable"
    assert error["data"]["content"] == UNFETCHABLE_CONTENT  # the reason goes to the server log only
    assert error["data"]["continue_url"].endswith(f"/companies/{TUDI}/quote")


def test_profile_fetch_failures_and_version_mismatch_answer_32001(ucp):
    for other in ("2026-01-23", "2026-09-01"):  # older or newer: exact equality, never date order
        unknown = agent_profile(V0825)
        unknown["ucp"]["version"] = other
        version = ucp.rpc_error("lookup_catalog", {"ids": ["x"]}, profile=ucp.profiles.json(f"/v{other}.json", unknown))
        assert version["code"] == -32001 and version["data"]["code"] == "version_unsupported"
        assert version["message"] == "Protocol version not supported"
        assert version["data"]["content"] == (
            f"Protocol version {other} is not supported. This business supports versions 2026-04-08, 2026-08-25."
        )
    # A 404 and a document that is not a profile answer alike: a caller cannot tell what a port serves.
    missing = ucp.rpc_error("lookup_catalog", {"ids": ["x"]}, profile=ucp.profiles.url + "/missing.json")
    broken = ucp.rpc_error("lookup_catalog", {"ids": ["x"]}, profile=ucp.profiles.json("/broken.json", {"ucp": {}}))
    for failed in (missing, broken):
        assert failed["code"] == -32001 and failed["data"]["code"] == "profile_unreachable"
        assert failed["data"]["content"] == UNFETCHABLE_CONTENT


@pytest.mark.parametrize("version", RELEASES)
def test_only_capabilities_both_sides_declare_are_used(ucp, version):
    search_only = agent_profile(version)
    del search_only["ucp"]["capabilities"]["dev.ucp.shopping.catalog.lookup"]
    profile = ucp.profiles.json(f"/search-only-{version}.json", search_only)
    assert ucp.ok("search_catalog", {"query": "filter"}, profile=profile)["products"]
    refused = ucp.ok("lookup_catalog", {"ids": ["sku:CAC-3T-BETTER"]}, profile=profile)
    assert refused["ucp"] == {"version": version, "status": "error", "capabilities": {}}
    assert refused["messages"][0]["code"] == "capabilities_incompatible"
    assert refused["messages"][0]["severity"] == "unrecoverable"


def test_a_capability_declared_at_the_other_release_is_not_shared(ucp):
    mixed = agent_profile(V0825)
    mixed["ucp"]["capabilities"]["dev.ucp.shopping.catalog.lookup"][0]["version"] = V0408
    profile = ucp.profiles.json("/mixed.json", mixed)
    assert ucp.ok("search_catalog", {"query": "filter"}, profile=profile)["ucp"]["version"] == V0825
    refused = ucp.ok("get_product", {"id": "category:central-ac"}, profile=profile)
    assert refused["ucp"] == {"version": V0825, "status": "error", "capabilities": {}}
    assert refused["messages"][0]["code"] == "capabilities_incompatible"


@pytest.mark.parametrize(
    "tool, catalog",
    [
        ("search_catalog", {"query": "furnace"}),
        ("lookup_catalog", {"ids": ["sku:CAC-3T-BETTER"]}),
        ("get_product", {"id": "category:nope"}),
    ],
)
def test_the_agent_profile_version_picks_the_release_of_every_answer(ucp, tool, catalog):
    for version in RELEASES:
        result = ucp.ok(tool, catalog, version=version)
        assert result["ucp"]["version"] == version
        assert all(ref == [{"version": version}] for ref in result["ucp"]["capabilities"].values())


def test_the_agent_profile_is_fetched_once_and_then_cached(ucp):
    profile = ucp.profiles.json("/cached.json", AGENT_PROFILE, cache_control="public, max-age=600")
    for _ in range(3):
        ucp.ok("search_catalog", {"query": "filter"}, profile=profile)
    assert ucp.profiles.count("/cached.json") == 1


# --- the declared examples -------------------------------------------------------------------


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_every_input_example_runs_successfully(ucp, tool, version):
    for example in tool.examples:
        arguments = copy.deepcopy(example)
        assert arguments["meta"]["ucp-agent"]["profile"] == EXAMPLE_PROFILE
        result = ucp.ok(tool.name, arguments["catalog"], version=version)
        assert result["ucp"].get("status") != "error", (tool.name, result)
