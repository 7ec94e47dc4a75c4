"""What the live UCP endpoint answers, against the official 2026-04-08 schemas (SQLite and Postgres).

`make test` checks every answer against the tool's own outputSchema
(tests/ucp_helpers.py); here a call of every kind the endpoint tests make, and
both business profiles, are checked against the official files themselves.
"""
from __future__ import annotations

import copy

import pytest
import requests

from mcp_server.ucp.tools import UCP_TOOLS
from tests.conformance.official import BUSINESS_PROFILE, ERROR_RESPONSE, PROFILE, RESPONSES, assert_official
from tests.mcp_helpers import BACKENDS, TUDI, module_database
from tests.ucp_helpers import MANY, ucp_live

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


@pytest.fixture(scope="module", params=BACKENDS)
def ucp(request, tmp_path_factory):
    with ucp_live(module_database(request.param, tmp_path_factory, request)) as live:
        yield live


def official_result(ucp, tool: str, catalog: dict, **kwargs) -> dict:
    """One call's structuredContent, valid under the official response (or error response) schema."""
    structured = ucp.ok(tool, catalog, **kwargs)
    schema = ERROR_RESPONSE if structured["ucp"].get("status") == "error" else RESPONSES[tool]
    assert_official(structured, schema, f"{tool} {catalog}")
    return structured


@pytest.mark.parametrize("tool, catalog", CALLS, ids=lambda value: value if isinstance(value, str) else "")
def test_answers_are_valid_under_the_official_schemas(ucp, tool, catalog):
    assert official_result(ucp, tool, catalog)["ucp"].get("status") != "error"


@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_the_declared_examples_answer_valid_responses(ucp, tool):
    for example in tool.examples:
        official_result(ucp, tool.name, copy.deepcopy(example)["catalog"])


def test_pages_of_a_long_search_are_valid(ucp):
    request = {"filters": {"price": {"min": 1}}, "pagination": {"limit": 4}}
    first = official_result(ucp, "search_catalog", request, key=MANY)
    cursor = first["pagination"]["cursor"]
    official_result(ucp, "search_catalog", {**request, "pagination": {"limit": 4, "cursor": cursor}}, key=MANY)


def test_an_unknown_product_answers_the_official_error_response(ucp):
    result = official_result(ucp, "get_product", {"id": "category:nope"})
    assert result["ucp"]["status"] == "error"


def test_business_profiles_are_valid_at_the_company_path_and_a_company_host(ucp):
    company = requests.get(f"{ucp.live.url}/companies/{TUDI}/.well-known/ucp", timeout=10).json()
    assert_official(company, BUSINESS_PROFILE, "the business profile")
    assert_official(company, PROFILE, "the business profile (discovery/profile.json)")
    hosted = requests.get(f"{ucp.live.url}/.well-known/ucp", headers={"Host": "tudi.example"}, timeout=10).json()
    assert_official(hosted, BUSINESS_PROFILE, "the custom-host profile")
