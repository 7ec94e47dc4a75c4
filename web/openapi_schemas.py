"""Component schemas and parameters of the OpenAPI document (web/openapi.py).

The feed record's schema is generated from the pydantic model that
validates every record before it is served, so the two cannot drift; the
rest mirrors the payloads described in docs/contracts/surfaces.md.
"""
from __future__ import annotations

from feeds.business_feed import PAGE_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, FeedBusiness

NULLABLE_STRING = {"type": ["string", "null"]}
NULLABLE_NUMBER = {"type": ["number", "null"]}
TIMESTAMP = {"type": ["string", "null"], "format": "date-time"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _object(properties: dict, required: list[str] | None = None, closed: bool = True) -> dict:
    schema = {"type": "object", "properties": properties, "required": list(properties) if required is None else required}
    if closed:
        schema["additionalProperties"] = False
    return schema


def parameters_extra() -> dict:
    """The business feed's query parameters."""
    return {
        "page": {"name": "page", "in": "query", "required": False, "description": "1-based page number.",
                 "schema": {"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": 1}},
        "pageSize": {"name": "page_size", "in": "query", "required": False, "description": "Records per page.",
                     "schema": {"type": "integer", "minimum": 1, "maximum": PAGE_SIZE_MAX,
                                "default": PAGE_SIZE_DEFAULT}},
        "changesToken": {"name": "changes_token", "in": "query", "required": False,
                         "description": "A `changes_token` from an earlier answer: only what changed since. "
                                        "Stale, malformed or foreign tokens get the full walk.",
                         "schema": {"type": "string"}},
    }


def _feed_schemas() -> dict:
    generated = FeedBusiness.model_json_schema(ref_template="#/components/schemas/{model}")
    definitions = generated.pop("$defs", {})
    page = _object({
        "checksum": {"type": "boolean", "description": "false exactly when the token is current and nothing changed"},
        "page": {"type": "integer", "minimum": 1},
        "page_size": {"type": "integer", "minimum": 1, "maximum": PAGE_SIZE_MAX},
        "total_pages": {"type": "integer", "minimum": 0},
        "changes_token": {"type": "string", "pattern": "^chg_[0-9]+_[0-9]+$"},
        "businesses": {"type": "array", "items": _ref("FeedBusiness")},
    })
    return {**definitions, "FeedBusiness": generated, "FeedPage": page}


def _pricing_schemas() -> dict:
    address = _object({
        "line1": NULLABLE_STRING, "line2": NULLABLE_STRING, "locality": NULLABLE_STRING, "region": NULLABLE_STRING,
        "postal_code": NULLABLE_STRING, "country": NULLABLE_STRING, "formatted": {"type": "string"},
    })
    tiers = _object({"good": NULLABLE_NUMBER, "better": NULLABLE_NUMBER, "best": NULLABLE_NUMBER})
    category = _object({
        "name": {"type": "string"}, "slug": {"type": "string"}, "price_low": {"type": "number"},
        "price_high": {"type": "number"}, "offer_count": {"type": "integer", "minimum": 1}, "tiers": _ref("Tiers"),
    }, required=["name", "slug", "price_low", "price_high", "offer_count"])
    business = _object({
        "name": {"type": "string"},
        "address": {"anyOf": [_ref("Address"), {"type": "null"}]},
        "service_area": _object({"postal_code_count": {"type": "integer", "minimum": 0},
                                 "postal_codes": {"type": "array", "items": {"type": "string"}}}),
    })
    document = _object({
        "business": business,
        "categories": {"type": "array", "items": _ref("Category")},
        "currency": {"type": "string"},
        "price_description": NULLABLE_STRING,
        "data_provenance": {"type": "string"},
        "quote_url": {"type": ["string", "null"], "format": "uri"},
        "last_synced_at": TIMESTAMP,
        "content_updated_at": TIMESTAMP,
        "freshness_state": {"enum": ["fresh", "stale", "unavailable"]},
        "content_version": NULLABLE_STRING,
    })
    return {"Address": address, "Tiers": tiers, "Category": category, "PricingDocument": document}


def _rpc_schemas() -> dict:
    rpc_id = {"type": ["string", "integer"]}
    error_object = _object({"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}},
                           required=["code", "message"])
    return {
        # A message without an id is a notification, accepted with a bodiless 202.
        "RpcRequest": _object({
            "jsonrpc": {"const": "2.0"}, "id": rpc_id,
            "method": {"type": "string", "examples": ["initialize", "tools/list", "ping", "resources/list"]},
            "params": {"type": "object"},
        }, required=["jsonrpc", "id", "method"], closed=False),
        "RpcError": _object({"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer", "null"]},
                             "error": error_object}, required=["jsonrpc", "id", "error"], closed=False),
        "RpcResponse": {"anyOf": [
            _object({"jsonrpc": {"const": "2.0"}, "id": rpc_id, "result": {"type": "object"}}, closed=False),
            _ref("RpcError"),
        ]},
    }


def _other_schemas() -> dict:
    return {
        "Error": _object({"error": {"type": "string"}, "message": {"type": "string"},
                          "parameter": {"type": "string"}, "retry_after": {"type": "integer", "minimum": 1}},
                         required=["error", "message"]),
        "JsonLd": _object({"@context": {"type": "string"}, "@graph": {"type": "array", "items": {"type": "object"}}}),
        "ServerCard": _object({"name": {"type": "string"}, "version": {"type": "string"},
                               "remotes": {"type": "array", "minItems": 1}}, closed=False),
        "UcpProfile": _object({"ucp": {"type": "object", "required": ["version", "services", "capabilities"]}},
                              closed=False),
        "WebMcpSwitch": _object({"enabled": {"type": "boolean"}}),
        "Health": _object({"status": {"const": "ok"}}),
        "Readiness": _object({
            "ready": {"type": "boolean"},
            "reasons": {"type": "array", "items": {"enum": ["database_unreachable", "never_synced", "sync_stale"]}},
            "database": {"enum": ["ok", "unreachable"]},
            "last_sync_at": TIMESTAMP,
            "last_sync_age_seconds": {"type": ["integer", "null"]},
            "freshness_threshold_seconds": {"type": "integer"},
        }),
    }


def schemas() -> dict:
    """Every component schema."""
    return {**_other_schemas(), **_pricing_schemas(), **_feed_schemas(), **_rpc_schemas()}
