"""The UCP declarations against both releases' official schemas and OpenRPC files (no server needed).

For 2026-04-08 and 2026-08-25 each:

- every declared input example is valid under the release's official
  OpenRPC params (`meta`, and `catalog` against the official request
  schema) and our own inputSchema;
- every field our models of that release emit or read is one the release's
  official schema defines (the official object schemas are open, so a
  misspelt field would otherwise pass unnoticed);
- the business profile of that release and the test agent profile are valid
  profiles.

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
from tests.conformance.official import OFFICIAL, Release, assert_official, official, official_errors
from tests.ucp_helpers import RELEASES, V0408, V0825, agent_profile

ENDPOINT = "https://pricing.example/companies/k/ucp/mcp"
PROFILE_URL = "https://pricing.example/companies/k/.well-known/ucp"
# Models both releases use as they are, and where each release defines them: (shopping/types or shared types, file).
SHARED_OUTPUTS = {
    m.Price: ("common", "price.json"),
    m.PriceRange: ("common", "price_range.json"),
    m.Description: ("common", "description.json"),
    m.Media: ("common", "media.json"),
    m.Category: ("shopping", "category.json"),
    m.OptionValue: ("shopping", "option_value.json"),
    m.ProductOption: ("shopping", "product_option.json"),
    m.DetailOptionValue: ("shopping", "detail_option_value.json"),
    m.SelectedOption: ("shopping", "selected_option.json"),
    m.Link: ("common", "link.json"),
    m.Seller: ("shopping", "variant.json#/properties/seller"),
    m.Availability: ("shopping", "variant.json#/properties/availability"),
    m.InputCorrelation: ("shopping", "input_correlation.json"),
    m.MessageWarning: ("common", "message_warning.json"),
    m.MessageInfo: ("common", "message_info.json"),
    m.MessageError: ("common", "message_error.json"),
    m.Pagination: ("common", "pagination.json#/$defs/response"),
}
SHARED_INPUTS = {
    m.Context: ("common", "context.json"),
    m.SearchFilters: ("shopping", "search_filters.json"),
    m.PriceFilter: ("common", "price_filter.json"),
    m.PaginationRequest: ("common", "pagination.json#/$defs/request"),
    m.SelectedOptionIn: ("shopping", "selected_option.json"),
}
# The models of each release that differ (2026-08-25 redeclares what it changed), in the same roles.
RELEASE_OUTPUTS = {
    V0408: {
        "meta": m.UcpMeta,
        "error_meta": m.UcpErrorMeta,
        "capability": m.CapabilityRef,
        "product": m.Product,
        "lookup_product": m.LookupProduct,
        "detail_product": m.DetailProduct,
        "variant": m.Variant,
        "lookup_variant": m.LookupVariant,
    },
    V0825: {
        "meta": m.UcpMeta0825,
        "error_meta": m.UcpErrorMeta0825,
        "capability": m.CapabilityRef0825,
        "product": m.Product0825,
        "lookup_product": m.LookupProduct0825,
        "detail_product": m.DetailProduct0825,
        "variant": m.Variant0825,
        "lookup_variant": m.LookupVariant0825,
    },
}


def located(release: Release, where: str, name: str) -> str:
    return f"{release.common_types if where == 'common' else release.shopping_types}/{name}"


def output_models(release: Release) -> dict:
    """Each model a release's responses use -> the official schema(s) whose properties it may use."""
    own, shapes = RELEASE_OUTPUTS[release.version], m.SHAPES[release.version]
    lookup = f"{release.shopping}/catalog_lookup.json#/$defs"
    models = {
        shapes.search: [release.responses["search_catalog"]],
        shapes.lookup: [release.responses["lookup_catalog"]],
        shapes.get_product: [release.responses["get_product"]],
        shapes.error: [release.error_response],
        own["meta"]: [f"{release.base}/schemas/ucp.json#/$defs/base"],
        own["error_meta"]: [f"{release.base}/schemas/ucp.json#/$defs/base"],
        own["capability"]: [f"{release.base}/schemas/capability.json#/$defs/response_schema"],
        own["product"]: [f"{release.shopping_types}/product.json"],
        own["lookup_product"]: [f"{release.shopping_types}/product.json"],
        own["detail_product"]: [f"{lookup}/detail_product"],
        own["variant"]: [f"{release.shopping_types}/variant.json"],
        own["lookup_variant"]: [f"{lookup}/lookup_variant"],
        m.DetailOption: [f"{lookup}/detail_product/properties/options/items"],
        **{model: [located(release, *place)] for model, place in SHARED_OUTPUTS.items()},
    }
    if release.version == V0825:
        models[m.QuantityUnit] = [f"{release.common_types}/quantity_unit.json"]
        models[m.Policy] = [f"{release.common_types}/policy.json"]
    return models


def input_models(release: Release) -> dict:
    """Each argument model -> the release's official schema(s) whose properties it may use."""
    return {
        m.SearchRequest: [release.requests["search_catalog"]],
        m.LookupRequest: [release.requests["lookup_catalog"]],
        m.GetProductRequest: [release.requests["get_product"]],
        **{model: [located(release, *place)] for model, place in SHARED_INPUTS.items()},
    }


def official_properties(ref: str) -> set[str]:
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


MODEL_CASES = [
    pytest.param(version, model, refs, id=f"{version}-{model.__name__}")
    for version in RELEASES
    for model, refs in {**output_models(OFFICIAL[version]), **input_models(OFFICIAL[version])}.items()
]


@pytest.mark.parametrize("version, model, refs", MODEL_CASES)
def test_every_field_is_defined_by_the_official_schema(version, model, refs):
    defined = set().union(*(official_properties(ref) for ref in refs))
    assert model_fields(model) <= defined, f"{model.__name__} invents {sorted(model_fields(model) - defined)}"


def test_2026_08_25_models_are_the_2026_04_08_ones_plus_what_that_release_added():
    for role, older in RELEASE_OUTPUTS[V0408].items():
        newer = RELEASE_OUTPUTS[V0825][role]
        assert model_fields(newer) - model_fields(older) <= {"quantity_unit"}, role
        assert model_fields(older) <= model_fields(newer), role
    for operation in ("search", "lookup", "get_product"):
        older, newer = getattr(m.SHAPES[V0408], operation), getattr(m.SHAPES[V0825], operation)
        assert model_fields(newer) == model_fields(older) | {"policies"}


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_every_input_example_is_valid_under_the_official_openrpc_params(tool, version):
    release = OFFICIAL[version]
    openrpc = release.openrpc()
    method = next(method for method in openrpc["methods"] if method["name"] == tool.name)
    params = {param["name"]: param for param in method["params"]}
    assert sorted(params) == ["catalog", "meta"] and all(p["required"] for p in params.values())
    assert params["catalog"]["schema"]["$ref"] == release.requests[tool.name]
    meta_schema = openrpc["components"]["schemas"]["meta"]
    assert tool.examples
    for example in tool.examples:
        Draft202012Validator(meta_schema, format_checker=FormatChecker()).validate(example["meta"])
        assert_official(example["catalog"], release.requests[tool.name], f"an input example of {tool.name}")
        Draft202012Validator(tool.input_schema).validate(example)
        assert tool.input_model.model_validate(copy.deepcopy(example))


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_openrpc_results_are_the_schemas_we_validate_against(tool, version):
    release = OFFICIAL[version]
    openrpc = release.openrpc()
    method = next(method for method in openrpc["methods"] if method["name"] == tool.name)
    ref = method["result"]["schema"]["$ref"]
    if ref.startswith("#/components/schemas/"):  # get_product: its response or the error response
        branches = openrpc["components"]["schemas"][ref.rsplit("/", 1)[1]]["oneOf"]
        assert [b["$ref"] for b in branches] == [release.responses[tool.name], release.error_response]
    else:
        assert ref == release.responses[tool.name]


@pytest.mark.parametrize("version", RELEASES)
def test_our_schemas_refuse_what_the_official_ones_refuse(version):
    """Spot checks that validation is real: a float amount, a null field, a missing inputs, the other release."""
    release = OFFICIAL[version]
    variant = {
        "id": "sku:A",
        "sku": "A",
        "title": "A",
        "description": {"plain": "A"},
        "categories": [{"value": "a", "taxonomy": "merchant"}],
        "price": {"amount": 100, "currency": "USD"},
        "availability": {"available": True},
        "options": [],
        "seller": {"name": "S"},
        "metadata": {},
    }
    product = {
        "id": "category:a",
        "handle": "a",
        "title": "A",
        "description": {"plain": "A"},
        "categories": [{"value": "a", "taxonomy": "merchant"}],
        "tags": ["system"],
        "metadata": {},
        "price_range": {"min": {"amount": 100, "currency": "USD"}, "max": {"amount": 100, "currency": "USD"}},
        "variants": [variant],
    }
    ok = {"ucp": {"version": version, "capabilities": {}}, "products": [product], "messages": []}
    lookup = next(t for t in UCP_TOOLS if t.name == "lookup_catalog").output_schema
    missing_inputs = copy.deepcopy(ok)
    assert official_errors(missing_inputs, release.responses["lookup_catalog"])
    assert list(Draft202012Validator(lookup).iter_errors(missing_inputs))
    with_inputs = copy.deepcopy(ok)
    with_inputs["products"][0]["variants"][0]["inputs"] = [{"id": "sku:A", "match": "exact"}]
    assert not official_errors(with_inputs, release.responses["lookup_catalog"])
    assert not list(Draft202012Validator(lookup).iter_errors(with_inputs))
    for broken in ({"amount": 1.5}, {"amount": None}, {"currency": "usd"}):
        bad = copy.deepcopy(with_inputs)
        bad["products"][0]["variants"][0]["price"].update(broken)
        assert official_errors(bad, release.responses["lookup_catalog"]), broken
        assert list(Draft202012Validator(lookup).iter_errors(bad)), broken
    sold_each = copy.deepcopy(with_inputs)
    sold_each["products"][0]["variants"][0]["quantity_unit"] = {"unit": "C62", "display_text": "each"}
    policies = {
        **copy.deepcopy(with_inputs),
        "policies": [{"type": "com.example.policy.x", "description": {"plain": "x"}}],
    }
    for newer in (sold_each, policies):  # 2026-08-25 fields: ours only in a 2026-08-25 answer
        assert bool(list(Draft202012Validator(lookup).iter_errors(newer))) is (version == V0408)
        if version == V0825:
            assert not official_errors(newer, release.responses["lookup_catalog"])
    bad_unit = copy.deepcopy(sold_each)
    bad_unit["products"][0]["variants"][0]["quantity_unit"] = {"unit": "C62"}  # display_text is required
    assert official_errors(bad_unit, OFFICIAL[V0825].responses["lookup_catalog"])
    assert list(Draft202012Validator(lookup).iter_errors(bad_unit))


@pytest.mark.parametrize("version", RELEASES)
def test_the_business_profile_and_the_test_agent_profile_are_valid(version):
    release = OFFICIAL[version]
    profile = business_profile(ENDPOINT, version, PROFILE_URL)
    assert_official(profile, release.business_profile, f"the {version} business profile")
    assert_official(profile, release.profile, f"the {version} business profile (the profile document)")
    assert ("supported_versions" in profile["ucp"]) is (version == V0825)
    assert_official(agent_profile(version), release.platform_profile, f"the {version} test agent profile")
    without_handlers = copy.deepcopy(profile)
    del without_handlers["ucp"]["payment_handlers"]
    assert official_errors(without_handlers, release.business_profile)
