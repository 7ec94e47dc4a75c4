"""One view: every public shape is declared once, in mirror.catalog.public_view, and the rest derive from it.

- no output model, feed model or OpenAPI schema re-declares the address,
  service area, tiers, category or provenance fields;
- each tool's "Returns:" summary is generated from its outputSchema;
- the route table in mirror.catalog.urls is what the app registers and what the
  OpenAPI document lists.
"""

from __future__ import annotations

import inspect

import pydantic
import pytest

import agent_tools.company
import agent_tools.models
import agent_tools.provider
import feeds.business_feed
from agent_tools import COMPANY_TOOLS, PROVIDER_TOOLS
from agent_tools.declaration import summarise_schema
from discovery.openapi import openapi
from mcp_server.ucp.tools import UCP_TOOLS
from mirror.catalog import public_view, urls

VIEW_SHAPES = (
    public_view.AddressView,
    public_view.ServiceAreaView,
    public_view.TierPrices,
    public_view.PricingCategory,
    public_view.Provenance,
)
PROVENANCE_FIELDS = set(public_view.Provenance.model_fields)
DERIVED_MODULES = (agent_tools.models, agent_tools.company, agent_tools.provider, feeds.business_feed)
ALL_TOOLS = (*COMPANY_TOOLS, *PROVIDER_TOOLS, *UCP_TOOLS)


def _models_declared_in(module) -> list[type[pydantic.BaseModel]]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, pydantic.BaseModel) and value.__module__ == module.__name__
    ]


@pytest.mark.parametrize("module", DERIVED_MODULES, ids=lambda m: m.__name__)
def test_no_model_outside_the_view_redeclares_a_view_shape(module):
    models = _models_declared_in(module)
    assert models, f"{module.__name__} declares no model: the test looks in the wrong place"
    for model in models:
        own = set(inspect.get_annotations(model))
        assert not own & PROVENANCE_FIELDS, f"{model.__name__} re-declares provenance: {own & PROVENANCE_FIELDS}"
        for shape in VIEW_SHAPES:
            if not issubclass(model, shape):
                assert not set(shape.model_fields) <= set(model.model_fields), (
                    f"{model.__name__} re-declares {shape.__name__}; use the view's class"
                )


def test_tool_results_that_carry_provenance_inherit_the_one_class():
    carriers = [
        t.output_model
        for t in (*COMPANY_TOOLS, *PROVIDER_TOOLS)
        if "freshness_state" in t.output_schema.get("properties", {})
    ]
    assert len(carriers) == 7
    assert all(issubclass(model, public_view.Provenance) for model in carriers)


@pytest.mark.parametrize("tool", ALL_TOOLS, ids=lambda t: f"{t.name}-{type(t).__name__}")
def test_returns_summary_is_generated_from_the_output_schema(tool):
    description = tool.list_entry()["description"]
    assert description.endswith("\n\nReturns: " + summarise_schema(tool.output_schema))
    returns = description.rsplit("Returns: ", 1)[1]
    top = tool.output_schema.get("properties") or tool.output_schema["anyOf"][0]["properties"]
    for name in top:
        assert name in returns, f"{tool.name}: {name} is in outputSchema but not in Returns"
    assert tool.webmcp_definition()["description"] == description


def test_summary_marks_optional_nullable_and_enumerated_properties():
    schema = {
        "type": "object",
        "required": ["a", "b", "c"],
        "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "b": {
                "type": "array",
                "items": {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}},
            },
            "c": {"enum": ["good", "best"], "type": "string"},
            "d": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    assert summarise_schema(schema) == "{a|null, b[{x}], c (good|best), d?{}}"


def test_pricing_and_error_schemas_are_generated_from_the_view(app):
    components = openapi(app.extensions["mirror"].settings)["components"]["schemas"]
    document = components["PricingDocument"]
    assert list(document["properties"]) == list(public_view.PRICING_ORDER)
    assert document["properties"]["business"] == {"$ref": "#/components/schemas/PricingBusiness"}
    address = {"$ref": "#/components/schemas/AddressView"}
    assert address in components["PricingBusiness"]["properties"]["address"]["anyOf"]
    assert components["FeedBusiness"]["properties"]["address"]["$ref"] == address["$ref"]
    assert set(components["AddressView"]["required"]) == set(public_view.AddressView.model_fields)
    assert set(components["Error"]["properties"]) == set(public_view.ErrorBody.model_fields)


def test_every_route_template_is_registered_and_documented(app):
    templates = [
        value
        for name, value in vars(urls).items()
        if name.isupper() and isinstance(value, str) and value.startswith("/")
    ]
    assert len(templates) >= 15
    rules = {rule.rule for rule in app.url_map.iter_rules()}
    paths = openapi(app.extensions["mirror"].settings)["paths"]
    for template in templates:
        assert urls.flask_rule(template) in rules, f"{template} is not a registered route"
        assert template in paths, f"{template} is not in the OpenAPI document"


def test_company_path_encodes_the_key_once():
    assert urls.company_path(urls.PRICING_JSON, "a/b c") == "/companies/a%2Fb%20c/pricing.json"
    assert urls.flask_rule(urls.JSONLD) == "/companies/<key>.jsonld"
