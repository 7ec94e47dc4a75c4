"""The UCP declarations against the official 2026-04-08 schemas and OpenRPC file (no server needed).

- every declared input example is valid under the official OpenRPC params
  (`meta`, and `catalog` against the official request schema) and our own
  inputSchema;
- every field our models emit or read is one the official schema defines
  (the official object schemas are open, so a misspelt field would
  otherwise pass unnoticed);
- the business profile and the test agent profile are valid profiles.

Together with tests/ucp_helpers.py (every response valid under the tool's own
outputSchema, in `make test`) this holds the responses to the official schemas.
"""
from __future__ import annotations

import copy

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from mcp_server.ucp import models as m
from mcp_server.ucp.profile import business_profile
from mcp_server.ucp.tools import UCP_TOOLS
from tests.conformance.official import (
    BASE,
    BUSINESS_PROFILE,
    PLATFORM_PROFILE_REF,
    REQUESTS,
    RESPONSES,
    assert_official,
    official,
    official_errors,
)
from tests.ucp_helpers import AGENT_PROFILE

SHOPPING = f"{BASE}/schemas/shopping"
TYPES = f"{SHOPPING}/types"
# Our model -> the official schema(s) whose properties it may use.
OUTPUT_MODELS = {
    m.SearchResponse: [RESPONSES["search_catalog"]],
    m.LookupResponse: [RESPONSES["lookup_catalog"]],
    m.GetProductResponse: [RESPONSES["get_product"]],
    m.ErrorResponse: [f"{TYPES}/error_response.json"],
    m.UcpMeta: [f"{BASE}/schemas/ucp.json#/$defs/base"],
    m.UcpErrorMeta: [f"{BASE}/schemas/ucp.json#/$defs/base"],
    m.CapabilityRef: [f"{BASE}/schemas/capability.json#/$defs/response_schema"],
    m.Product: [f"{TYPES}/product.json"],
    m.LookupProduct: [f"{TYPES}/product.json"],
    m.DetailProduct: [f"{SHOPPING}/catalog_lookup.json#/$defs/detail_product"],
    m.Variant: [f"{TYPES}/variant.json"],
    m.LookupVariant: [f"{SHOPPING}/catalog_lookup.json#/$defs/lookup_variant"],
    m.Price: [f"{TYPES}/price.json"],
    m.PriceRange: [f"{TYPES}/price_range.json"],
    m.Description: [f"{TYPES}/description.json"],
    m.Media: [f"{TYPES}/media.json"],
    m.Category: [f"{TYPES}/category.json"],
    m.OptionValue: [f"{TYPES}/option_value.json"],
    m.ProductOption: [f"{TYPES}/product_option.json"],
    m.DetailOptionValue: [f"{TYPES}/detail_option_value.json"],
    m.DetailOption: [f"{SHOPPING}/catalog_lookup.json#/$defs/detail_product/properties/options/items"],
    m.SelectedOption: [f"{TYPES}/selected_option.json"],
    m.Link: [f"{TYPES}/link.json"],
    m.Seller: [f"{TYPES}/variant.json#/properties/seller"],
    m.Availability: [f"{TYPES}/variant.json#/properties/availability"],
    m.InputCorrelation: [f"{TYPES}/input_correlation.json"],
    m.MessageWarning: [f"{TYPES}/message_warning.json"],
    m.MessageInfo: [f"{TYPES}/message_info.json"],
    m.MessageError: [f"{TYPES}/message_error.json"],
    m.Pagination: [f"{TYPES}/pagination.json#/$defs/response"],
}
INPUT_MODELS = {
    m.SearchRequest: [REQUESTS["search_catalog"]],
    m.LookupRequest: [REQUESTS["lookup_catalog"]],
    m.GetProductRequest: [REQUESTS["get_product"]],
    m.Context: [f"{TYPES}/context.json"],
    m.SearchFilters: [f"{TYPES}/search_filters.json"],
    m.PriceFilter: [f"{TYPES}/price_filter.json"],
    m.PaginationRequest: [f"{TYPES}/pagination.json#/$defs/request"],
    m.SelectedOptionIn: [f"{TYPES}/selected_option.json"],
}


def official_properties(ref: str, what: str) -> set[str]:
    """Every property name the official schema at `ref` defines, through $ref and allOf."""
    registry, _ = official()
    resolver = registry.resolver()
    names: set[str] = set()

    def walk(node, resolver):
        if "$ref" in node:
            resolved = resolver.lookup(node["$ref"])
            walk(resolved.contents, resolved.resolver)
        names.update(node.get("properties", {}))
        for part in node.get("allOf", []):
            walk(part, resolver)

    resolved = resolver.lookup(ref)
    walk(resolved.contents, resolved.resolver)
    return names


def model_fields(model) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


@pytest.mark.parametrize("model, refs", [*OUTPUT_MODELS.items(), *INPUT_MODELS.items()],
                         ids=lambda value: getattr(value, "__name__", ""))
def test_every_field_is_defined_by_the_official_schema(model, refs):
    defined = set().union(*(official_properties(ref, f"the field check of {model.__name__}") for ref in refs))
    assert model_fields(model) <= defined, f"{model.__name__} invents {sorted(model_fields(model) - defined)}"


@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_every_input_example_is_valid_under_the_official_openrpc_params(tool):
    _, openrpc = official()
    method = next(method for method in openrpc["methods"] if method["name"] == tool.name)
    params = {param["name"]: param for param in method["params"]}
    assert sorted(params) == ["catalog", "meta"] and all(p["required"] for p in params.values())
    assert params["catalog"]["schema"]["$ref"] == REQUESTS[tool.name]
    meta_schema = openrpc["components"]["schemas"]["meta"]
    assert tool.examples
    for example in tool.examples:
        Draft202012Validator(meta_schema, format_checker=FormatChecker()).validate(example["meta"])
        assert_official(example["catalog"], REQUESTS[tool.name], f"an input example of {tool.name}")
        Draft202012Validator(tool.input_schema).validate(example)
        assert tool.input_model.model_validate(copy.deepcopy(example))


@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_openrpc_results_are_the_schemas_we_validate_against(tool):
    _, openrpc = official()
    method = next(method for method in openrpc["methods"] if method["name"] == tool.name)
    ref = method["result"]["schema"]["$ref"]
    if ref.startswith("#/components/schemas/"):  # get_product: its response or the error response
        branches = openrpc["components"]["schemas"][ref.rsplit("/", 1)[1]]["oneOf"]
        assert [b["$ref"] for b in branches] == [RESPONSES[tool.name], f"{TYPES}/error_response.json"]
    else:
        assert ref == RESPONSES[tool.name]


def test_our_schemas_refuse_what_the_official_ones_refuse():
    """Spot checks that validation is real: a float amount, a null field, a missing inputs."""
    variant = {"id": "sku:A", "sku": "A", "title": "A", "description": {"plain": "A"},
               "categories": [{"value": "a", "taxonomy": "merchant"}], "price": {"amount": 100, "currency": "USD"},
               "availability": {"available": True}, "options": [], "seller": {"name": "S"}, "metadata": {}}
    product = {"id": "category:a", "handle": "a", "title": "A", "description": {"plain": "A"},
               "categories": [{"value": "a", "taxonomy": "merchant"}], "tags": ["system"], "metadata": {},
               "price_range": {"min": {"amount": 100, "currency": "USD"}, "max": {"amount": 100, "currency": "USD"}},
               "variants": [variant]}
    ok = {"ucp": {"version": "2026-04-08", "capabilities": {}}, "products": [product], "messages": []}
    lookup = next(t for t in UCP_TOOLS if t.name == "lookup_catalog").output_schema
    missing_inputs = copy.deepcopy(ok)
    assert official_errors(missing_inputs, RESPONSES["lookup_catalog"])
    assert list(Draft202012Validator(lookup).iter_errors(missing_inputs))
    with_inputs = copy.deepcopy(ok)
    with_inputs["products"][0]["variants"][0]["inputs"] = [{"id": "sku:A", "match": "exact"}]
    assert not official_errors(with_inputs, RESPONSES["lookup_catalog"])
    assert not list(Draft202012Validator(lookup).iter_errors(with_inputs))
    for broken in ({"amount": 1.5}, {"amount": None}, {"currency": "usd"}):
        bad = copy.deepcopy(with_inputs)
        bad["products"][0]["variants"][0]["price"].update(broken)
        assert official_errors(bad, RESPONSES["lookup_catalog"]), broken
        assert list(Draft202012Validator(lookup).iter_errors(bad)), broken


def test_the_business_profile_and_the_test_agent_profile_are_valid():
    profile = business_profile("https://pricing.example/companies/k/ucp/mcp")
    assert_official(profile, BUSINESS_PROFILE, "the business profile")
    assert_official(AGENT_PROFILE, PLATFORM_PROFILE_REF, "the test agent profile")
    without_handlers = copy.deepcopy(profile)
    del without_handlers["ucp"]["payment_handlers"]
    assert official_errors(without_handlers, BUSINESS_PROFILE)

