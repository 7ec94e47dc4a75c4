"""MCP over the JSON-RPC core (web/jsonrpc.py): the protocol versions, batches, the method table.

The envelope (parsing, the storable-text rule, the error object, the one
serialiser) is the core's; this module adds what MCP says about it: which
revisions are spoken, which have batches, the 2026-07-28 `_meta` envelope
and its mirrored headers, and the HTTP status each error is sent with
(docs/contracts/surfaces.md: -32700 and -32600 with 400, -32601 and -32602
with 200; the 2026-07-28 revision sends -32601 with 404 and its envelope
errors with 400).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass

from web.jsonrpc import (
    ECHO_LIMIT,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Message,
    RpcError,
    message_from,
)

LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
MODERN_VERSION = "2026-07-28"
SUPPORTED_VERSIONS = (MODERN_VERSION, *LEGACY_VERSIONS)
LATEST_LEGACY_VERSION = "2025-11-25"
HEADERLESS_VERSION = "2025-03-26"  # the spec's assumption when no header is sent

RESOURCE_NOT_FOUND = -32002  # 2025-11-25 and earlier
HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022

PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
NAME_BEARING_PARAMS = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}
# 2026-07-28 cacheable results: how long a client may reuse them. The lists
# change only with a deploy, so five minutes is safe; nothing is per-user.
CACHEABLE = frozenset(
    {"server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"}
)
CACHE_TTL_MS = 300_000
# Params an MCP answer repeats (resources/read names the unknown uri): storable text only (web/jsonrpc.py).
ECHOED_PARAMS = (("uri",),)
MAX_BATCH = 16  # each message is charged against the rate limits as its own POST would be (docs/operations.md)


def http_status(error: RpcError) -> int:
    """The HTTP status an error is sent with: its own, else 400 for -32700/-32600 and 200 for the rest."""
    if error.status is not None:
        return error.status
    return 400 if error.code in (PARSE_ERROR, INVALID_REQUEST) else 200


@dataclass(frozen=True)
class Era:
    """The protocol version a request is answered under."""

    version: str

    @property
    def modern(self) -> bool:
        """True for 2026-07-28 (per-request envelope, no initialize)."""
        return self.version == MODERN_VERSION


def era_from_header(value: str | None) -> Era:
    """The era named by a (validated) MCP-Protocol-Version header; absent means 2025-03-26."""
    return Era(HEADERLESS_VERSION if value is None else value.strip())


def unsupported_version_body(requested: str) -> dict:
    """400 body for an MCP-Protocol-Version we do not speak (lists what we do)."""
    return RpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        data={"supported": list(SUPPORTED_VERSIONS), "requested": requested[:ECHO_LIMIT]},
    ).body()


def batch_messages(payload: list, era: Era) -> list:
    """A batch's elements, each a Message or the RpcError it is answered with.

    Only 2025-03-26 (also assumed when no version header is sent) has batches:
    that revision says servers MUST accept them, and 2025-06-18 removed them.
    The batch itself is refused (-32600) when empty, too long, or sent under
    another revision; an element that is not a valid message, or is an
    `initialize` (which MUST NOT be batched), becomes an error response in place.
    """
    if era.version != HEADERLESS_VERSION:
        raise RpcError(
            INVALID_REQUEST,
            f"Batch requests are not supported under {era.version[:ECHO_LIMIT]}: send one JSON-RPC message per POST",
        )
    if not payload:
        raise RpcError(INVALID_REQUEST, "Invalid Request: an empty batch")
    if len(payload) > MAX_BATCH:
        raise RpcError(INVALID_REQUEST, f"Invalid Request: a batch holds at most {MAX_BATCH} messages")
    elements: list = []
    for item in payload:
        try:
            message = message_from(item, echoed=ECHOED_PARAMS)
        except RpcError as error:
            elements.append(error)
            continue
        if message.method == "initialize":
            message = RpcError(
                INVALID_REQUEST,
                "Invalid Request: initialize must not be part of a batch",
                id=message.id if message.kind == "request" else None,
            )
        elements.append(message)
    return elements


def check_modern_envelope(message: Message, headers: Mapping[str, str]) -> None:
    """2026-07-28: the `_meta` envelope and the mirrored headers must agree with the body."""
    meta = message.params.get("_meta")
    if not isinstance(meta, dict) or PROTOCOL_VERSION_META_KEY not in meta:
        text = f"params._meta must carry {PROTOCOL_VERSION_META_KEY}"
        raise RpcError(INVALID_PARAMS, text, status=400, id=message.id)
    if meta[PROTOCOL_VERSION_META_KEY] != headers.get("MCP-Protocol-Version", "").strip():
        raise _mismatch("MCP-Protocol-Version header does not match the request's _meta protocol version", message)
    if headers.get("Mcp-Method") != message.method:
        raise _mismatch("Mcp-Method header does not match the request's method", message)
    name_param = NAME_BEARING_PARAMS.get(message.method or "")
    if name_param is not None and _decode_header(headers.get("Mcp-Name")) != message.params.get(name_param):
        raise _mismatch(f"Mcp-Name header does not match params.{name_param}", message)


def _mismatch(text: str, message: Message) -> RpcError:
    return RpcError(HEADER_MISMATCH, f"Header mismatch: {text}", status=400, id=message.id)


def _decode_header(value: str | None) -> str | None:
    """A header value, with the `=?base64?...?=` sentinel decoded."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[len("=?base64?") : -2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


# --- methods ---------------------------------------------------------------------


def dispatch(spec, message: Message, era: Era) -> dict:
    """Run one request against a ServerSpec; the result object (era fields added)."""
    handler = _METHODS.get(message.method)
    if (
        handler is None
        or (era.modern and message.method == "initialize")
        or (not era.modern and message.method == "server/discover")
    ):
        text = f"Method not found: {message.method[:ECHO_LIMIT]}"
        raise RpcError(METHOD_NOT_FOUND, text, status=404 if era.modern else 200, id=message.id)
    try:
        result = handler(spec, message.params, era)
    except RpcError as error:
        error.id = message.id
        raise
    if era.modern:
        result = {**result, "resultType": "complete"}
        if message.method in CACHEABLE:
            result.update(ttlMs=CACHE_TTL_MS, cacheScope="public")
    return result


def _initialize(spec, params: dict, era: Era) -> dict:
    requested = params.get("protocolVersion")
    version = requested if requested in LEGACY_VERSIONS else LATEST_LEGACY_VERSION
    return {
        "protocolVersion": version,
        "capabilities": spec.capabilities(),
        "serverInfo": spec.server_info(),
        "instructions": spec.instructions(),
    }


def _discover(spec, params: dict, era: Era) -> dict:
    return {
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "capabilities": spec.capabilities(),
        "instructions": spec.instructions(),
        "_meta": {SERVER_INFO_META_KEY: spec.server_info()},
    }


def _call_tool(spec, params: dict, era: Era) -> dict:
    name = params.get("name")
    if not isinstance(name, str):
        raise RpcError(INVALID_PARAMS, "Invalid params: tools/call needs params.name (a string)")
    tool = spec.tool(name)
    if tool is None:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {json.dumps(name[:ECHO_LIMIT])}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: params.arguments must be an object")
    return spec.call_tool(tool, arguments)


def _read_resource(spec, params: dict, era: Era) -> dict:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise RpcError(INVALID_PARAMS, "Invalid params: resources/read needs params.uri (a string)")
    resource = next((r for r in spec.resources if r.uri == uri), None)
    if resource is None:
        code = INVALID_PARAMS if era.modern else RESOURCE_NOT_FOUND
        raise RpcError(code, "Resource not found", data={"uri": uri[:ECHO_LIMIT]})
    return {"contents": [resource.contents()]}


_METHODS = {
    "initialize": _initialize,
    "server/discover": _discover,
    "ping": lambda spec, params, era: {},
    "tools/list": lambda spec, params, era: {"tools": [tool.list_entry() for tool in spec.tools]},
    "tools/call": _call_tool,
    # Generic clients list these on every server; an empty list beats an error.
    "resources/list": lambda spec, params, era: {"resources": [r.list_entry() for r in spec.resources]},
    "resources/templates/list": lambda spec, params, era: {"resourceTemplates": []},
    "resources/read": _read_resource,
    "prompts/list": lambda spec, params, era: {"prompts": []},
}
