"""The UCP Catalog tools, declared once: search_catalog, lookup_catalog, get_product.

`UcpToolSpec` is a `ToolSpec` (same tools/list entry, same generated schemas
from pydantic models) whose `run` follows UCP instead of the plain MCP
tools:

1. `meta.ucp-agent.profile` must be present, else JSON-RPC -32001
   `invalid_profile_url`;
2. the arguments are validated against the input model (the official
   request schemas): a violation is JSON-RPC -32602 (UCP's REST 400; the
   spec's batch-size rule uses -32602 too);
3. the agent's profile is fetched (cached); its `ucp.version` picks the
   release to answer in (mcp_server.ucp.versions) and the capabilities both
   sides declare at that version are computed; a fetch or version failure
   is -32001 with the spec's code, and a tool whose capability is not shared
   answers the UCP error response (`capabilities_incompatible`, a result,
   not an error);
4. the handler's response is validated against that release's output
   models and sent as `structuredContent` plus the same JSON as a text block.

Each tool's outputSchema accepts its response or the error response in any
release served (each branch pins its `ucp.version`), and its inputSchema
carries `examples` (checked against both releases' official schemas).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Union

from pydantic import TypeAdapter, ValidationError

from agent_tools.declaration import ToolSpec, clean_schema, describe_invalid_arguments, tool_success
from mcp_server.ucp import LOOKUP_CAPABILITY, SEARCH_CAPABILITY, catalog
from mcp_server.ucp.agent_profile import ProfileError
from mcp_server.ucp.models import (
    MAX_LOOKUP_IDS,
    GetProductArguments,
    GetProductResponse,
    LookupArguments,
    LookupResponse,
    SearchArguments,
    SearchResponse,
)
from mcp_server.ucp.versions import RELEASES, Release
from web.jsonrpc import RpcError

DISCOVERY_ERROR = -32001
EXAMPLE_PROFILE = "https://agent.example/profiles/shopping-agent.json"
_EXAMPLE_META = {"ucp-agent": {"profile": EXAMPLE_PROFILE}}
_ONE_LINE = (
    "Prices are the contractor's published installed estimates in minor units (cents); url is its quote "
    "page. The answer is in the UCP release of the agent profile's ucp.version (2026-04-08 or 2026-08-25; "
    "2026-08-25 adds each variant's quantity_unit and the contractor's price terms as policies)."
)


@dataclass(frozen=True)
class UcpToolSpec(ToolSpec):
    """A UCP operation as an MCP tool (see the module docstring for how it runs).

    `output_model` is the operation's 2026-04-08 response (ToolSpec's field);
    `operation` names it in every release's models.Shapes, which the
    outputSchema and the validation of each answer use.
    """

    capability: str = ""
    operation: str = ""  # the field of models.Shapes naming this tool's response in each release
    examples: tuple = ()

    def release_adapter(self, release: Release) -> TypeAdapter:
        """The response or the UCP error response, in one release."""
        return self._adapters[release.version]

    @cached_property
    def _adapters(self) -> dict[str, TypeAdapter]:
        return {
            version: TypeAdapter(getattr(release.shapes, self.operation) | release.shapes.error)
            for version, release in RELEASES.items()
        }

    @cached_property
    def result_adapter(self) -> TypeAdapter:
        """The response or the UCP error response, in any release served."""
        models = [
            model
            for release in RELEASES.values()
            for model in (getattr(release.shapes, self.operation), release.shapes.error)
        ]
        return TypeAdapter(Union[tuple(models)])  # noqa: UP007 (a union built at run time)

    @cached_property
    def input_schema(self) -> dict:
        """JSON Schema 2020-12 of `{meta, catalog}`, with example arguments."""
        schema = clean_schema(self.input_model.model_json_schema(mode="validation", by_alias=True), optional_null=False)
        schema["examples"] = copy.deepcopy(list(self.examples))
        return schema

    @cached_property
    def output_schema(self) -> dict:
        """JSON Schema 2020-12 of `structuredContent`: the response or the error response."""
        schema = clean_schema(self.result_adapter.json_schema(mode="serialization"), optional_null=False)
        return {"type": "object", **schema}

    def run(self, context: Any, arguments: dict) -> dict:
        """Check the agent, validate, negotiate, answer (raises RpcError for protocol failures)."""
        profile_url = agent_profile_url(arguments)
        try:
            params = self.input_model.model_validate(arguments)
        except ValidationError as error:
            raise catalog.invalid(describe_invalid_arguments(self.name, error), _invalid_code(error)) from None
        try:
            negotiated = context.negotiate(profile_url)
        except ProfileError as error:
            raise discovery_error(error, context.view.quote_url) from None
        release = negotiated.release
        if self.capability in negotiated.capabilities:
            structured = self.handler(context, params, release)
        else:
            structured = catalog.error_response(
                release,
                context.view,
                {},
                "capabilities_incompatible",
                f"The agent profile does not declare {self.capability} at UCP {release.version}, "
                "so this operation cannot be negotiated.",
                "unrecoverable",
            )
        adapter = self.release_adapter(release)
        validated = adapter.validate_python(structured)
        return tool_success(adapter.dump_python(validated, mode="json", exclude_none=True))


def agent_profile_url(arguments: dict) -> str:
    """`meta.ucp-agent.profile`, required on every UCP call; else -32001 invalid_profile_url."""
    meta = arguments.get("meta")
    agent = meta.get("ucp-agent") if isinstance(meta, dict) else None
    profile = agent.get("profile") if isinstance(agent, dict) else None
    if not isinstance(profile, str) or not profile.strip():
        raise discovery_error(
            ProfileError(
                "invalid_profile_url",
                "meta.ucp-agent.profile (the agent's profile URL) is required on every UCP request",
            ),
            None,
        )
    return profile


def discovery_error(error: ProfileError, continue_url: str | None) -> RpcError:
    """UCP's negotiation failures as JSON-RPC -32001 (overview: Error Handling)."""
    data = {"code": error.code, "content": error.content}
    if continue_url:
        data["continue_url"] = continue_url
    message = "Protocol version not supported" if error.code == "version_unsupported" else "UCP discovery failed"
    return RpcError(DISCOVERY_ERROR, message, data=data)


def _invalid_code(error: ValidationError) -> str:
    too_many = any(e["type"] == "too_long" and tuple(e["loc"]) == ("catalog", "ids") for e in error.errors())
    return "request_too_large" if too_many else "invalid_request"


UCP_TOOLS: tuple[UcpToolSpec, ...] = (
    UcpToolSpec(
        name="search_catalog",
        title="Search the catalog (UCP)",
        description="Search this contractor's installed-price catalog (UCP Catalog Search). Each product is a "
        "category of installed systems or parts (id category:<slug>); its variants are the published "
        "products (id sku:<sku>) with Tier and Brand options. Give catalog.query and/or "
        "catalog.filters (categories: slugs; price: min/max in cents); catalog.context.postal_code "
        "marks variants unavailable outside the service area. Page with pagination.cursor "
        f"(default limit 10). {_ONE_LINE}",
        input_model=SearchArguments,
        output_model=SearchResponse,
        handler=catalog.search,
        capability=SEARCH_CAPABILITY,
        operation="search",
        examples=(
            {
                "meta": _EXAMPLE_META,
                "catalog": {
                    "query": "lennox heat pump",
                    "context": {"postal_code": "63376", "address_country": "US"},
                    "pagination": {"limit": 5},
                },
            },
            {
                "meta": _EXAMPLE_META,
                "catalog": {
                    "filters": {"categories": ["central-ac"], "price": {"max": 1000000}},
                    "context": {"currency": "USD"},
                },
            },
        ),
    ),
    UcpToolSpec(
        name="lookup_catalog",
        title="Look up products (UCP)",
        description="Look up products or variants by id (UCP Catalog Lookup): category:<slug> product ids "
        "answer the featured (cheapest) variant, sku:<sku> variant ids (or bare SKUs) that variant; "
        "each variant's inputs say which requested id it answers. Unknown ids are not an error: they "
        f"come back as info messages with code not_found. At most {MAX_LOOKUP_IDS} ids. {_ONE_LINE}",
        input_model=LookupArguments,
        output_model=LookupResponse,
        handler=catalog.lookup,
        capability=LOOKUP_CAPABILITY,
        operation="lookup",
        examples=(
            {
                "meta": _EXAMPLE_META,
                "catalog": {"ids": ["category:central-ac", "sku:CAC-3T-BETTER"], "context": {"postal_code": "63385"}},
            },
        ),
    ),
    UcpToolSpec(
        name="get_product",
        title="Product detail (UCP)",
        description="Full detail of one product (category:<slug>) or of a variant's product (sku:<sku>), with "
        "interactive option selection: catalog.selected (e.g. Tier: Best) narrows the variants and "
        "each option value says whether it exists and is available with the other selections. An "
        f"unknown id answers the UCP error response (ucp.status error, code not_found). {_ONE_LINE}",
        input_model=GetProductArguments,
        output_model=GetProductResponse,
        handler=catalog.get_product,
        capability=LOOKUP_CAPABILITY,
        operation="get_product",
        examples=(
            {
                "meta": _EXAMPLE_META,
                "catalog": {
                    "id": "category:central-ac",
                    "selected": [{"name": "Tier", "label": "Best"}],
                    "preferences": ["Tier", "Brand"],
                },
            },
            {"meta": _EXAMPLE_META, "catalog": {"id": "sku:CAC-3T-BETTER"}},
        ),
    ),
)
