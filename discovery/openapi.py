"""The OpenAPI 3.1 description of every HTTP endpoint, served at /openapi.json.

MCP endpoints are described at the HTTP level (a JSON-RPC message in, one
JSON body out); the JSON-RPC methods and tool schemas are the MCP servers'
own business (`tools/list`). tests/discovery/test_openapi.py keeps this document true:
every route of the app is here and everything here is a route, and
schemathesis checks the app's answers against it. `HEAD` works wherever
`GET` does and is not listed separately; every endpoint accepts `?source=`.
"""

from __future__ import annotations

from mcp_server.jsonrpc import SUPPORTED_VERSIONS as SUPPORTED_MCP_VERSIONS  # declared once, there
from mcp_server.ucp import UCP_VERSIONS  # the releases UCP serves: declared once, there
from mirror.catalog import urls
from mirror.runtime.config import Settings

JSON = "application/json"
HTML = "text/html"


# One server-sent event, as SSE clients (and schemathesis) read each event of a text/event-stream body:
# its `data:` is a JSON object in text.
_SSE_EVENT = {
    "type": "object",
    "properties": {"event": {"type": "string"}, "data": {"type": "string", "contentMediaType": "application/json"}},
    "required": ["data"],
}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _content(schema: dict, media: str = JSON) -> dict:
    return {media: {"schema": schema}}


def _response(description: str, schema: dict | None = None, media: str = JSON, headers: dict | None = None) -> dict:
    response: dict = {"description": description}
    if schema is not None:
        response["content"] = _content(schema, media)
    if headers:
        response["headers"] = headers
    return response


def _header(description: str, required: bool = False, schema: dict | None = None) -> dict:
    return {"description": description, "required": required, "schema": schema or {"type": "string"}}


ETAG = {
    "ETag": _header("Strong validator over every byte of the body."),
    "Cache-Control": _header("Caching policy (a CDN may absorb reads)."),
}
NOT_MODIFIED = {"description": "Not modified: `If-None-Match` matched the current ETag (no body).", "headers": ETAG}
RATE_LIMITED = _response(
    "Past the per-company (or per-client) rate limit: retry after `Retry-After` seconds.",
    _ref("Error"),
    headers={"Retry-After": _header("Seconds until a request will be accepted.", True, {"type": "integer"})},
)
RPC_RATE_LIMITED = _response(
    "Past the rate limit (a JSON-RPC error with no id): retry after `Retry-After` seconds.",
    _ref("RpcError"),
    headers={"Retry-After": _header("Seconds until a request will be accepted.", True, {"type": "integer"})},
)
_RETRY_AFTER_DEADLINE = {
    "Retry-After": _header(
        "The deadline in whole seconds: what one request may hold a worker for.", True, {"type": "integer"}
    )
}
DEADLINE_PASSED = _response(
    "The request ran past its deadline (`REQUEST_DEADLINE_SECONDS`) and was stopped: `deadline_exceeded`; "
    "retry after `Retry-After` seconds.",
    _ref("Error"),
    headers=_RETRY_AFTER_DEADLINE,
)
RPC_DEADLINE_PASSED = _response(
    "The request ran past its deadline and was stopped: the JSON-RPC error -32010 with `data.retry_after` "
    "(the message's id); retry after `Retry-After` seconds.",
    _ref("RpcError"),
    headers=_RETRY_AFTER_DEADLINE,
)
NOT_FOUND_JSON = _response(
    "Unknown key, not public, or this surface switched off (one identical answer).", _ref("Error")
)
NOT_FOUND_ANY = {
    "description": NOT_FOUND_JSON["description"],
    "content": {HTML: {"schema": {"type": "string"}}, JSON: {"schema": _ref("Error")}},
}
METHOD_NOT_ALLOWED = _response(
    "POST only (no SSE stream, no sessions).",
    _ref("RpcError"),
    headers={"Allow": _header("The allowed methods.", True)},
)


def _parameters() -> dict:
    return {
        "key": {
            "name": "key",
            "in": "path",
            "required": True,
            "description": "The contractor's pluginKey (the business feed's `id`).",
            "schema": {"type": "string", "minLength": 1},
        },
        "source": {
            "name": "source",
            "in": "query",
            "required": False,
            "description": "A free label recorded for source tracking (first 64 characters kept).",
            "schema": {"type": "string"},
        },
        "ifNoneMatch": {
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "description": "ETags (a list, weak tags or `*`): a match answers 304.",
            "schema": {"type": "string"},
        },
        "ucpVersion": {
            "name": "version",
            "in": "path",
            "required": True,
            "description": "A UCP release served here (docs/ucp.md); any other answers the 404.",
            "schema": {"type": "string", "enum": list(UCP_VERSIONS)},
        },
        "mcpVersion": {
            "name": "MCP-Protocol-Version",
            "in": "header",
            "required": False,
            "description": "Absent means 2025-03-26; an unsupported one answers 400.",
            "schema": {"type": "string", "enum": list(SUPPORTED_MCP_VERSIONS)},
        },
    }


def _p(*names: str) -> list[dict]:
    return [{"$ref": f"#/components/parameters/{name}"} for name in names]


def _get(summary: str, responses: dict, *params: str, tags: tuple = ()) -> dict:
    return {
        "get": {"summary": summary, "tags": list(tags), "parameters": _p(*params, "source"), "responses": responses}
    }


def _cached(description: str, schema: dict, media: str = JSON) -> dict:
    return {"200": _response(description, schema, media, ETAG), "304": NOT_MODIFIED}


def _keyed_json(summary: str, description: str, schema: dict, media: str = JSON) -> dict:
    responses = {**_cached(description, schema, media), "404": NOT_FOUND_JSON, "429": RATE_LIMITED}
    return _get(summary, responses, "key", "ifNoneMatch", tags=("company",))


def _keyed_html(summary: str, extra: dict | None = None) -> dict:
    responses = {
        **_cached("The page (no JavaScript).", {"type": "string"}, HTML),
        **(extra or {}),
        "404": NOT_FOUND_ANY,
        "429": RATE_LIMITED,
    }
    return _get(summary, responses, "key", "ifNoneMatch", tags=("company",))


def _mcp_endpoint(summary: str, keyed: bool, restricted_origins: bool) -> dict:
    """POST (one JSON-RPC message), OPTIONS (CORS preflight), and 405 for the rest."""
    rpc_error = _response("Transport refusal or JSON-RPC error.", _ref("RpcError"))
    responses = {
        "200": _response("The JSON-RPC response.", _ref("RpcResponse")),
        "202": {"description": "A notification or response was accepted (no body)."},
        "400": _response(
            "Malformed JSON (-32700), a bad request (-32600) or an unsupported protocol version.", _ref("RpcError")
        ),
        "403": rpc_error if restricted_origins else None,
        "404": _response("Method not found (2026-07-28).", _ref("RpcError")),
        "406": rpc_error,
        "413": rpc_error,
        "415": rpc_error,
        "421": rpc_error,
        "429": RPC_RATE_LIMITED,
    }
    if keyed:
        responses["404"] = {
            "description": "Unknown key, not public or switched off (the one JSON 404); or, "
            "under 2026-07-28, a method not found.",
            "content": _content({"anyOf": [_ref("Error"), _ref("RpcError")]}),
        }
    params = ("key",) if keyed else ()
    post = {
        "summary": summary,
        "tags": ["mcp"],
        "parameters": _p(*params, "mcpVersion", "source"),
        "requestBody": {"required": True, "content": _content(_ref("RpcRequest"))},
        "responses": {code: r for code, r in responses.items() if r is not None},
    }
    preflight = {
        "summary": "CORS preflight.",
        "tags": ["mcp"],
        "parameters": _p(*params, "source"),
        "responses": {
            "204": {"description": "Allowed (CORS headers)."},
            **({"403": rpc_error} if restricted_origins else {}),
        },
    }
    not_post = {
        "summary": "Refused: POST only.",
        "tags": ["mcp"],
        "parameters": _p(*params, "source"),
        "responses": {"405": METHOD_NOT_ALLOWED},
    }
    return {"post": post, "options": preflight, **{m: dict(not_post) for m in ("get", "delete", "put", "patch")}}


def _paths() -> dict:
    # Keyed by mirror.catalog.urls' route templates: the same strings the blueprints register.
    text_plain = {"type": "string"}
    return {
        urls.JSONLD: _keyed_json(
            "The company's schema.org graph.",
            "JSON-LD, ready to paste into a script tag.",
            _ref("JsonLd"),
            "application/ld+json",
        ),
        urls.PRICING_JSON: _keyed_json("The pricing view model.", "The pricing document.", _ref("PricingDocument")),
        urls.PRICING_PAGE: _keyed_html("The reference pricing page."),
        urls.QUOTE_PAGE: _keyed_html(
            "The quote page, or a 302 to the contractor's own funnel.",
            {
                "302": {
                    "description": "To the contractor's verified quote funnel (referrer stamped).",
                    "headers": {"Location": _header("The funnel URL.", True)},
                }
            },
        ),
        urls.COMPANY_MCP: _mcp_endpoint("One JSON-RPC message to the company's catalog MCP server.", True, False),
        urls.WEBMCP_MCP: _mcp_endpoint(
            "webmcp.js's call endpoint: the same catalog server, gated by the webmcp switch alone.", True, False
        ),
        urls.PROVIDER_MCP: _mcp_endpoint("One JSON-RPC message to the provider MCP server.", False, True),
        urls.UCP_MCP: _mcp_endpoint("One JSON-RPC message to the company's UCP Catalog endpoint.", True, False),
        urls.HOST_UCP_MCP: _host_mapped(
            _mcp_endpoint(
                "One JSON-RPC message to the UCP endpoint of the company mapped to this Host (COMPANY_HOSTS).",
                True,
                False,
            )
        ),
        urls.UCP_PROFILE: _keyed_json("The company's UCP business profile.", "The profile.", _ref("UcpProfile")),
        urls.HOST_UCP_PROFILE: _get(
            "The UCP profile of the company mapped to this Host (COMPANY_HOSTS).",
            {**_cached("The profile.", _ref("UcpProfile")), "404": NOT_FOUND_JSON, "429": RATE_LIMITED},
            "ifNoneMatch",
            tags=("company",),
        ),
        urls.UCP_PROFILE + "/{version}": _get(
            "The company's UCP business profile in one release.",
            {**_cached("The profile.", _ref("UcpProfile")), "404": NOT_FOUND_JSON, "429": RATE_LIMITED},
            "key",
            "ucpVersion",
            "ifNoneMatch",
            tags=("company",),
        ),
        urls.HOST_UCP_PROFILE + "/{version}": _get(
            "The UCP profile in one release of the company mapped to this Host.",
            {**_cached("The profile.", _ref("UcpProfile")), "404": NOT_FOUND_JSON, "429": RATE_LIMITED},
            "ucpVersion",
            "ifNoneMatch",
            tags=("company",),
        ),
        urls.WEBMCP_SWITCH: _get(
            "Whether webmcp.js registers this key's tools (never a 404).",
            _cached("The switch.", _ref("WebMcpSwitch")),
            "key",
            "ifNoneMatch",
            tags=("webmcp",),
        ),
        urls.WEBMCP_DEMO: _keyed_html("A page embedding webmcp.js for this key."),
        urls.WEBMCP_JS: _get(
            "The WebMCP embed (an ES module).",
            _cached("JavaScript.", text_plain, "text/javascript"),
            "ifNoneMatch",
            tags=("webmcp",),
        ),
        urls.WEBMCP_DEMO_JS: _get(
            "The demo page's script.",
            _cached("JavaScript.", text_plain, "text/javascript"),
            "ifNoneMatch",
            tags=("webmcp",),
        ),
        urls.BUSINESS_FEED: _get(
            "The business feed (ChatGPT local-services request-a-quote).",
            {
                **_cached("One page of the feed.", _ref("FeedPage")),
                "400": _response("page or page_size out of range (the error names it).", _ref("Error")),
                "429": RATE_LIMITED,
            },
            "page",
            "pageSize",
            "changesToken",
            "ifNoneMatch",
            tags=("feed",),
        ),
        urls.MCP_SERVER_CARD: _get(
            "The MCP server card.", _cached("The card.", _ref("ServerCard")), "ifNoneMatch", tags=("mcp",)
        ),
        urls.LLMS_TXT: _get(
            "A plain-text index of the public surfaces for agents.",
            _cached("Markdown-flavoured text.", text_plain, "text/plain"),
            "ifNoneMatch",
            tags=("discovery",),
        ),
        urls.HEALTHZ: _get("Liveness.", {"200": _response("The process answers.", _ref("Health"))}, tags=("ops",)),
        urls.READYZ: _get(
            "Readiness: database reachable and the mirror fresh.",
            {
                "200": _response("Ready.", _ref("Readiness")),
                "503": _response("Not ready; `reasons` says why.", _ref("Readiness")),
            },
            tags=("ops",),
        ),
        urls.METRICS: _get(
            "Prometheus metrics.",
            {"200": _response("Text exposition format 0.0.4.", text_plain, "text/plain")},
            tags=("ops",),
        ),
        urls.OPENAPI: _get("This document.", {"200": _response("OpenAPI 3.1.", {"type": "object"})}, tags=("ops",)),
    }


def _discovery_document(summary: str, media: str, *params: str, keyed: bool = False) -> dict:
    """GET (cached, CORS *) and the CORS preflight of an AI Catalog or server-card document."""
    responses = _cached("The document.", {"type": "object"}, media)
    if keyed:
        responses.update({"404": NOT_FOUND_JSON, "429": RATE_LIMITED})
    operations = _get(summary, responses, *params, "ifNoneMatch", tags=("discovery",))
    operations["options"] = {
        "summary": "CORS preflight (the key is not looked up).",
        "tags": ["discovery"],
        "parameters": _p(*params, "source"),
        "responses": {"204": {"description": "Allowed (CORS headers)."}},
    }
    return operations


def _a2a_endpoint(summary: str, keyed: bool) -> dict:
    """POST one A2A JSON-RPC request; JSON-RPC errors travel with HTTP 200."""
    rpc_error = _response("Transport refusal (a JSON-RPC error with no id).", _ref("RpcError"))
    not_found = (
        "Unknown key, not public or `a2a` switched off (the one JSON 404)."
        if keyed
        else "On a COMPANY_HOSTS domain: the mapped company is not public or `a2a` is off (the one JSON 404)."
    )
    return {
        "post": {
            "summary": summary,
            "tags": ["a2a"],
            "parameters": _p(*(("key",) if keyed else ()), "source"),
            "requestBody": {"required": True, "content": _content({"type": "object"})},
            "responses": {
                "200": _response(
                    "The JSON-RPC response (a SendMessageResponse, or an A2A error).", {"type": ["object", "array"]}
                ),
                "404": _response(not_found, _ref("Error")),
                "413": rpc_error,
                "415": rpc_error,
                "421": rpc_error,
                "429": RPC_RATE_LIMITED,
            },
        }
    }


def _ask_endpoint(summary: str, keyed: bool) -> dict:
    """POST one NLWeb question: an Answer (JSON, or server-sent events when asked), or a 4xx Failure."""
    failure = _ref("AskFailure")
    responses = {
        "200": {
            "description": "An Answer (NLWeb 0.54): one JSON object, or, when `prefer.streaming` (or `Accept: "
            "text/event-stream`) asks, server-sent events whose `data:` objects merge into it.",
            "content": {JSON: {"schema": _ref("AskAnswer")}, "text/event-stream": {"schema": _SSE_EVENT}},
        },
        "400": _response("The request is not a valid NLWeb ask request (a Failure naming the field).", failure),
        "413": _response("The body is over 16 KiB.", failure),
        "415": _response("The Content-Type is not application/json.", failure),
        "429": RATE_LIMITED,
    }
    if keyed:
        responses["404"] = _response("Unknown key, not public or `a2a` switched off (the one JSON 404).", _ref("Error"))
    return {
        "post": {
            "summary": summary,
            "tags": ["nlweb"],
            "parameters": _p(*(("key",) if keyed else ()), "source"),
            "requestBody": {"required": True, "content": _content(_ref("AskRequest"))},
            "responses": responses,
        },
        "options": {
            "summary": "CORS preflight from any origin (the key is not looked up).",
            "tags": ["nlweb"],
            "parameters": _p(*(("key",) if keyed else ()), "source"),
            "responses": {"204": {"description": "Allowed (CORS headers)."}},
        },
    }


def _discovery_paths() -> dict:
    """The AI Catalog, the MCP server cards and the A2A agent cards and endpoints."""
    card = "application/mcp-server-card+json"
    return {
        urls.AI_CATALOG: _discovery_document("The AI Catalog (MCP server cards).", "application/ai-catalog+json"),
        urls.PROVIDER_SERVER_CARD: _discovery_document("The provider MCP server's card.", card),
        urls.COMPANY_TEMPLATE_SERVER_CARD: _discovery_document("The per-company MCP server's templated card.", card),
        urls.COMPANY_SERVER_CARD: _discovery_document("One contractor's MCP server card.", card, "key", keyed=True),
        urls.COMPANY_AGENT_CARD: _keyed_json(
            "One contractor's A2A agent card.", "The agent card (A2A 1.0).", {"type": "object"}
        ),
        urls.AGENT_CARD: _get(
            "The directory agent's card (or, on a COMPANY_HOSTS domain, the mapped company's).",
            {**_cached("The agent card (A2A 1.0).", {"type": "object"}), "404": NOT_FOUND_JSON, "429": RATE_LIMITED},
            "ifNoneMatch",
            tags=("a2a",),
        ),
        urls.COMPANY_A2A: _a2a_endpoint("One A2A JSON-RPC request to a contractor's agent.", True),
        urls.ROOT_A2A: _a2a_endpoint(
            "One A2A JSON-RPC request to the directory agent (or a COMPANY_HOSTS company's).", False
        ),
        urls.COMPANY_ASK: _ask_endpoint("One question to a contractor (NLWeb ask): its answer and items.", True),
        urls.ROOT_ASK: _ask_endpoint(
            "One question to the directory (NLWeb ask): published prices across the businesses serving a ZIP.", False
        ),
    }


def _host_mapped(operations: dict) -> dict:
    """The COMPANY_HOSTS variant: the Host names the company, so there is no {key}."""
    for operation in operations.values():
        operation["parameters"] = [p for p in operation["parameters"] if p["$ref"] != "#/components/parameters/key"]
    operations["post"]["responses"]["404"]["description"] = (
        "This Host is not mapped to a public company (the one JSON 404); or, under 2026-07-28, a method not found."
    )
    return operations


def _with_deadline(paths: dict) -> dict:
    """Every operation that does a request's work (each one the rate limits count) may answer the deadline's 503.

    In its own shape: a JSON-RPC error where the 429 is one, NLWeb's Failure on `/ask`, else the JSON error.
    """
    for path, operations in paths.items():
        for operation in operations.values():
            responses = operation.get("responses", {})
            if "429" not in responses:
                continue
            if responses["429"] is RPC_RATE_LIMITED:
                responses["503"] = RPC_DEADLINE_PASSED
            elif path.endswith("/ask"):
                responses["503"] = _response(
                    "The question ran past its deadline: a Failure with code `DEADLINE_EXCEEDED`; retry after "
                    "`Retry-After` seconds.",
                    _ref("AskFailure"),
                    headers=_RETRY_AFTER_DEADLINE,
                )
            else:
                responses["503"] = DEADLINE_PASSED
    return paths


def openapi(settings: Settings) -> dict:
    """The whole document, with PUBLIC_BASE_URL as its server."""
    from discovery.openapi_schemas import parameters_extra, schemas

    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{settings.provider_name} contractor mirror",
            "version": "1.0.0",
            "description": "Contractors' own published installed prices, service areas and quote links: JSON-LD, "
            "pricing.json, hosted pages, the business feed, MCP, UCP, A2A and NLWeb endpoints, and operations "
            "endpoints. Everything is public and read-only. Unknown, not-public and switched-off "
            "keys all answer the same 404.",
        },
        "servers": [{"url": settings.public_base_url}],
        "paths": _with_deadline({**_paths(), **_discovery_paths()}),
        "components": {"parameters": {**_parameters(), **parameters_extra()}, "schemas": schemas()},
    }
