"""What the live UCP endpoint answers, against each release's official schemas.

`make test` checks every answer against the tool's own outputSchema
(tests/ucp_helpers.py); here a call of every kind the endpoint tests make, in
both releases (the agent profile's version picks the release), and the
business profiles of both releases at the company path and a company host,
are checked against the official files themselves.
"""

from __future__ import annotations

import copy

import pytest
import requests

from mcp_server.ucp.tools import UCP_TOOLS
from tests.conformance.official import OFFICIAL, assert_official
from tests.mcp_helpers import TUDI, module_database
from tests.ucp_helpers import MANY, RELEASES, V0408, V0825, ucp_live

# (tool, catalog): every branch of the mapping the endpoint tests exercise.
CALLS = [
    ("search_catalog", {"query": "furnace"}),
    ("search_catalog", {"query": "air filter", "context": {"postal_code": "10001"}}),  # outside the area
    ("search_catalog", {"filters": {"categories": ["air-filters", "thermostats"]}}),
    ("search_catalog", {"query": "filter", "filters": {"categories": ["no-such-category"]}}),
    ("search_catalog", {"filters": {"price": {"min": 1499, "max": 6005}}}),
    ("lookup_catalog", {"ids": ["sku:CAC-3T-BETTER", "category:air-filters", "sku:NOPE", "whatever"]}),
    ("lookup_catalog", {"ids": ["sku:FURN-SECRET"]}),
    ("get_product", {"id": "sku:CAC-3T-BETTER", "selected": [{"name": "Tier", "label": "Best"}]}),
    ("get_product", {"id": "category:central-ac", "selected": [{"name": "tier", "label": "best"}]}),
    ("get_product", {"id": "category:central-ac", "context": {"postal_code": "99501"}}),
]


@pytest.fixture(scope="module")
def ucp(request):
    with ucp_live(module_database(request)) as live:
        yield live


def official_result(ucp, tool: str, catalog: dict, version: str, **kwargs) -> dict:
    """One call's structuredContent in `version`, valid under that release's official response (or error
    response) schema."""
    release = OFFICIAL[version]
    structured = ucp.ok(tool, catalog, version=version, **kwargs)
    schema = release.error_response if structured["ucp"].get("status") == "error" else release.responses[tool]
    assert_official(structured, schema, f"{tool} {catalog} in {version}")
    return structured


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tool, catalog", CALLS, ids=lambda value: value if isinstance(value, str) else "")
def test_answers_are_valid_under_the_official_schemas(ucp, tool, catalog, version):
    assert official_result(ucp, tool, catalog, version)["ucp"].get("status") != "error"


def test_2026_08_25_answers_carry_quantity_unit_and_policies(ucp):
    result = official_result(ucp, "search_catalog", {"query": "furnace"}, V0825)
    assert result["policies"][0]["type"] == "com.contractor_commerce.policy.price_terms"
    assert {v["quantity_unit"]["unit"] for p in result["products"] for v in p["variants"]} == {"C62"}


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_the_declared_examples_answer_valid_responses(ucp, tool, version):
    for example in tool.examples:
        official_result(ucp, tool.name, copy.deepcopy(example)["catalog"], version)


@pytest.mark.parametrize("version", RELEASES)
def test_pages_of_a_long_search_are_valid(ucp, version):
    request = {"filters": {"price": {"min": 1}}, "pagination": {"limit": 4}}
    first = official_result(ucp, "search_catalog", request, version, key=MANY)
    cursor = first["pagination"]["cursor"]
    official_result(ucp, "search_catalog", {**request, "pagination": {"limit": 4, "cursor": cursor}}, version, key=MANY)


@pytest.mark.parametrize("version", RELEASES)
def test_an_unknown_product_answers_the_official_error_response(ucp, version):
    result = official_result(ucp, "get_product", {"id": "category:nope"}, version)
    assert result["ucp"]["status"] == "error"


def test_business_profiles_are_valid_at_the_company_path_and_a_company_host(ucp):
    for base, headers in (
        (f"{ucp.live.url}/companies/{TUDI}/.well-known/ucp", {}),
        (f"{ucp.live.url}/.well-known/ucp", {"Host": "tudi.example"}),
    ):
        newest = requests.get(base, headers=headers, timeout=10).json()
        assert_official(newest, OFFICIAL[V0825].business_profile, f"{base} ({headers})")
        assert_official(newest, OFFICIAL[V0825].profile, f"{base} ({headers}, profile.json)")
        assert newest["ucp"]["version"] == V0825 and list(newest["ucp"]["supported_versions"]) == [V0408]
        for version in RELEASES:
            url = f"{base}/{version}"
            document = requests.get(url, headers=headers, timeout=10).json()
            assert document["ucp"]["version"] == version
            assert_official(document, OFFICIAL[version].business_profile, url)
            assert_official(document, OFFICIAL[version].profile, f"{url} (the profile document)")
