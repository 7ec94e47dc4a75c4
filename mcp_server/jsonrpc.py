"""JSON-RPC 2.0 for MCP: parsing one message, the method table, errors.

Knows nothing of HTTP beyond the status each error is sent with
(docs/contracts/surfaces.md: -32700 and -32600 with 400, -32601 and -32602 with 200; the
2026-07-28 revision sends -32601 with 404 and its envelope errors with 400).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
MODERN_VERSION = "2026-07-28"
SUPPORTED_VERSIONS = (MODERN_VERSION, *LEGACY_VERSIONS)
LATEST_LEGACY_VERSION = "2025-11-25"
HEADERLESS_VERSION = "2025-03-26"  # the spec's assumption when no header is sent

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
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
_ECHO_LIMIT = 100
MAX_BATCH = 16  # one POST, one rate-limit charge: a batch must not multiply the work behind it


class RpcError(Exception):
    """A JSON-RPC error response, with the HTTP status it is sent with."""

    def __init__(self, code: int, message: str, *, status: int | None = None, data: Any = None, id: Any = None):
        super().__init__(message)
        self.code, self.message, self.data, self.id = code, message, data, id
        self.status = status if status is not None else (400 if code in (PARSE_ERROR, INVALID_REQUEST) else 200)

    def body(self) -> dict:
        """The error response object."""
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": self.id, "error": error}


@dataclass(frozen=True)
class Era:
    """The protocol version a request is answered under."""

    version: str

    @property
    def modern(self) -> bool:
        """True for 2026-07-28 (per-request envelope, no initialize)."""
        return self.version == MODERN_VERSION


@dataclass(frozen=True)
class Message:
    """One parsed JSON-RPC message."""

    id: Any
    method: str | None
    params: dict
    kind: str  # "request", "notification" or "response"

    @property
    def is_notification_or_response(self) -> bool:
        """Answered with 202 and no body."""
        return self.kind != "request"


def era_from_header(value: str | None) -> Era:
    """The era named by a (validated) MCP-Protocol-Version header; absent means 2025-03-26."""
    return Era(HEADERLESS_VERSION if value is None else value.strip())


def unsupported_version_body(requested: str) -> dict:
    """400 body for an MCP-Protocol-Version we do not speak (lists what we do)."""
    return RpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        data={"supported": list(SUPPORTED_VERSIONS), "requested": requested[:_ECHO_LIMIT]},
    ).body()


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def decode_body(raw: bytes) -> Any:
    """The body's JSON value (an object, or a batch array) or RpcError -32700."""
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RpcError(PARSE_ERROR, "Parse error: the body is not valid UTF-8 JSON") from None


def parse_message(raw: bytes) -> Message:
    """Decode one JSON-RPC message or raise RpcError (-32700, -32600)."""
    return message_from(decode_body(raw))


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
            f"Batch requests are not supported under {era.version[:_ECHO_LIMIT]}: send one JSON-RPC message per POST",
        )
    if not payload:
        raise RpcError(INVALID_REQUEST, "Invalid Request: an empty batch")
    if len(payload) > MAX_BATCH:
        raise RpcError(INVALID_REQUEST, f"Invalid Request: a batch holds at most {MAX_BATCH} messages")
    elements: list = []
    for item in payload:
        try:
            message = message_from(item)
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


def message_from(payload: Any) -> Message:
    """Validate one decoded JSON-RPC message or raise RpcError (-32600)."""
    if isinstance(payload, list):
        raise RpcError(INVALID_REQUEST, "Batch requests are not supported: send one JSON-RPC message per POST")
    if not isinstance(payload, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: the body must be a JSON-RPC object")
    request_id = payload.get("id")
    valid_id = _valid_id(request_id)
    if payload.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', id=request_id if valid_id else None)
    if "method" not in payload:
        if valid_id and ("result" in payload or "error" in payload):
            return Message(id=request_id, method=None, params={}, kind="response")
        raise RpcError(INVALID_REQUEST, "Invalid Request: no method", id=request_id if valid_id else None)
    return _request_or_notification(payload, request_id, valid_id)


def _request_or_notification(payload: dict, request_id: Any, valid_id: bool) -> Message:
    echo = request_id if valid_id else None
    method = payload["method"]
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string', id=echo)
    if "id" in payload and not valid_id:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    params = payload.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an object', id=echo)
    kind = "request" if "id" in payload else "notification"
    return Message(id=request_id, method=method, params=params, kind=kind)


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


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
        text = f"Method not found: {message.method[:_ECHO_LIMIT]}"
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


def result_body(request_id: Any, result: dict) -> dict:
    """The success response object."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


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
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {json.dumps(name[:_ECHO_LIMIT])}")
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
        raise RpcError(code, "Resource not found", data={"uri": uri[:_ECHO_LIMIT]})
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
