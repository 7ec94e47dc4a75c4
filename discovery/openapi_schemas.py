"""Component schemas and parameters of the OpenAPI document (discovery/openapi.py).

The schemas of pricing.json, the business feed and the JSON error body are
generated from the pydantic models that produce or validate those payloads
(mirror.catalog.public_view's PricingDocument and ErrorBody, feeds.business_feed's
FeedPage), so the document cannot drift from what is served; the rest
describes payloads that have no model of their own (docs/contracts/surfaces.md).
"""

from __future__ import annotations

from pydantic import BaseModel

from feeds.business_feed import PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, FeedPage
from mirror.catalog.public_view import ErrorBody, PricingDocument
from nlweb_server.protocol import PROTOCOL_VERSION, AskInput

TIMESTAMP = {"type": ["string", "null"], "format": "date-time"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _object(properties: dict, required: list[str] | None = None, closed: bool = True) -> dict:
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def parameters_extra() -> dict:
    """The business feed's query parameters."""
    return {
        "page": {
            "name": "page",
            "in": "query",
            "required": False,
            "description": "1-based page number.",
            "schema": {"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": 1},
        },
        "pageSize": {
            "name": "page_size",
            "in": "query",
            "required": False,
            "description": "Records per page.",
            "schema": {"type": "integer", "minimum": 1, "maximum": PAGE_SIZE_MAX, "default": PAGE_SIZE_DEFAULT},
        },
        "changesToken": {
            "name": "changes_token",
            "in": "query",
            "required": False,
            "description": "A `changes_token` from an earlier answer: only what changed since. "
            "Stale, malformed or foreign tokens get the full walk.",
            "schema": {"type": "string"},
        },
    }


def generated(*models: tuple[str, type[BaseModel]]) -> dict:
    """Component schemas of (name, model) pairs, their nested models as sibling components.

    Nested models are named after their class (AddressView, TierPrices, ...),
    so pricing.json and the feed share one Address component.
    """
    components: dict = {}
    for name, model in models:
        schema = model.model_json_schema(mode="serialization", ref_template="#/components/schemas/{model}")
        components.update(schema.pop("$defs", {}))
        components[name] = schema
    return {name: _untitled(schema) for name, schema in components.items()}


def _untitled(node):
    # Generated titles ("Line1", "Price Low") only repeat the property names.
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        k: _untitled(v) if k not in ("enum", "const", "default", "examples") else v
        for k, v in node.items()
        if not (k == "title" and isinstance(v, str))
    }


def _rpc_schemas() -> dict:
    rpc_id = {"type": ["string", "integer"]}
    error_object = _object(
        {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}}, required=["code", "message"]
    )
    return {
        # A message without an id is a notification, accepted with a bodiless 202.
        "RpcRequest": _object(
            {
                "jsonrpc": {"const": "2.0"},
                "id": rpc_id,
                "method": {"type": "string", "examples": ["initialize", "tools/list", "ping", "resources/list"]},
                "params": {"type": "object"},
            },
            required=["jsonrpc", "id", "method"],
            closed=False,
        ),
        "RpcError": _object(
            {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer", "null"]}, "error": error_object},
            required=["jsonrpc", "id", "error"],
            closed=False,
        ),
        "RpcResponse": {
            "anyOf": [
                _object({"jsonrpc": {"const": "2.0"}, "id": rpc_id, "result": {"type": "object"}}, closed=False),
                _ref("RpcError"),
            ]
        },
    }


def _ask_schemas() -> dict:
    """NLWeb /ask: the request (generated from the boundary model), the answer and the failure."""
    meta = _object(
        {
            "response_type": {"enum": ["Answer", "Failure"]},
            "version": {"const": PROTOCOL_VERSION},
            "response_format": {"enum": ["chatgpt_app", "conv_search"]},
        },
        required=["response_type", "version"],
    )
    items = {"type": "array", "items": {"type": "object", "required": ["@type"]}}
    text = _object({"Type": {"const": "text"}, "Text": {"type": "string"}})
    return {
        **generated(("AskRequest", AskInput)),
        "AskAnswer": _object(
            {"_meta": meta, "structuredData": items, "content": {"type": "array", "items": text}, "results": items},
            required=["_meta"],
        ),
        "AskFailure": _object(
            {"_meta": meta, "error": _object({"code": {"type": "string"}, "message": {"type": "string"}})}
        ),
    }


def _other_schemas() -> dict:
    return {
        "JsonLd": _object({"@context": {"type": "string"}, "@graph": {"type": "array", "items": {"type": "object"}}}),
        "ServerCard": _object(
            {"name": {"type": "string"}, "version": {"type": "string"}, "remotes": {"type": "array", "minItems": 1}},
            closed=False,
        ),
        "UcpProfile": _object(
            {"ucp": {"type": "object", "required": ["version", "services", "capabilities"]}}, closed=False
        ),
        "WebMcpSwitch": _object({"enabled": {"type": "boolean"}}),
        "Health": _object({"status": {"const": "ok"}}),
        "Readiness": _object(
            {
                "ready": {"type": "boolean"},
                "reasons": {"type": "array", "items": {"enum": ["database_unreachable", "never_synced", "sync_stale"]}},
                "database": {"enum": ["ok", "unreachable"]},
                "last_sync_at": TIMESTAMP,
                "last_sync_age_seconds": {"type": ["integer", "null"]},
                "freshness_threshold_seconds": {"type": "integer"},
            }
        ),
    }


def schemas() -> dict:
    """Every component schema."""
    models = generated(("Error", ErrorBody), ("PricingDocument", PricingDocument), ("FeedPage", FeedPage))
    return {**_other_schemas(), **models, **_rpc_schemas(), **_ask_schemas()}
