"""Stateless Streamable HTTP for MCP: one POST in, one JSON body out.

Every MCP endpoint of this service (the per-company catalog server, the
install-wide provider server, the UCP catalog endpoint) is a `ServerSpec`
served by `serve()`. There are no sessions and no SSE streams: each POST is
answered on its own, so any worker can answer any request.

Two eras of the protocol share the endpoint (see docs/mcp.md):

- legacy (2025-03-26, 2025-06-18, 2025-11-25): `initialize` negotiates the
  version; later requests carry `MCP-Protocol-Version` (absent means
  2025-03-26);
- modern (2026-07-28): no handshake; every request carries
  `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` (and `Mcp-Name`) headers
  and a `_meta` envelope; `server/discover` describes the server.

HTTP-level rules are checked in a fixed order before the body is parsed:
Host (DNS rebinding), Origin, then the endpoint's own budget (`charge`, so a
foreign Host or Origin never spends a client's budget), Content-Type, Accept,
size, protocol version.

Serving another endpoint (e.g. UCP) takes a spec and three route functions::

    spec = ServerSpec(name=..., version=..., title=..., instructions=lambda: "...",
                      tools=TOOLS,              # each has .name and .list_entry() -> dict
                      call_tool=dispatch,       # (tool, arguments: dict) -> CallToolResult dict;
                                                # raise web.jsonrpc.RpcError(code, message, data=...) for protocol errors
                      allowed_origins=None)     # None: any Origin (CORS *)
    POST    -> serve(spec)                      # after the route's own 404 gate
    OPTIONS -> preflight(None); GET/DELETE -> method_not_allowed(None)

`agent_tools.declaration.ToolSpec` (pydantic models) and its
`tool_success`/`tool_error` helpers build such tools and results.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from flask import request
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header, parse_options_header

from mcp_server import jsonrpc as rpc
from mcp_server.hosts import host_allowed, origin_of_base
from mirror.runtime.deadline import DeadlineExceeded, check_deadline
from web.db import settings as current_settings
from web.deadline import deadline_rpc_error, ran_out
from web.jsonrpc import INVALID_REQUEST, Message, RpcError, decode_body, message_from, result_body, serialise
from web.limits import RateLimited, charge_again
from web.observability import note_mcp_message, note_mcp_outcome
from web.responses import Response, cors_preflight

MAX_BODY_BYTES = 16 * 1024
ALLOWED_REQUEST_HEADERS = "Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name"
_ANY_ORIGIN = None


@dataclass(frozen=True)
class Resource:
    """A readable resource (the provider's widget); `text` is built on read."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str
    text: Callable[[], str]
    meta: Mapping[str, Any] | None = None

    def list_entry(self) -> dict:
        """The resources/list entry."""
        entry = {
            "uri": self.uri,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }
        if self.meta:
            entry["_meta"] = dict(self.meta)
        return entry

    def contents(self) -> dict:
        """The resources/read contents entry."""
        entry = {"uri": self.uri, "mimeType": self.mime_type, "text": self.text()}
        if self.meta:
            entry["_meta"] = dict(self.meta)
        return entry


@dataclass(frozen=True)
class ServerSpec:
    """What one MCP endpoint serves.

    `tools` are declarations with a `.name` and a `.list_entry()`; `call_tool`
    runs one (already looked up by name) with the raw `arguments` object and
    returns a CallToolResult dict, or raises `web.jsonrpc.RpcError` for a protocol
    error. `allowed_origins` None accepts browser calls from any Origin.
    """

    name: str
    version: str
    title: str
    instructions: Callable[[], str]
    tools: Sequence[Any]
    call_tool: Callable[[Any, dict], dict]
    resources: Sequence[Resource] = ()
    allowed_origins: frozenset[str] | None = _ANY_ORIGIN

    def tool(self, name: Any):
        """The declared tool called `name`, or None."""
        return next((t for t in self.tools if t.name == name), None) if isinstance(name, str) else None

    def capabilities(self) -> dict:
        """What the server offers (resources only when it has some)."""
        caps: dict = {"tools": {"listChanged": False}}
        if self.resources:
            caps["resources"] = {"subscribe": False, "listChanged": False}
        return caps

    def server_info(self) -> dict:
        """The Implementation object (serverInfo)."""
        return {"name": self.name, "title": self.title, "version": self.version}


# --- HTTP entry points ---------------------------------------------------------


def serve(spec: ServerSpec, charge: Callable[[], None] | None = None) -> Response:
    """Answer one POST to an MCP endpoint (the route has already passed its gate).

    `charge` (a rate limit that aborts with its 429) runs once Host and
    Origin are known to be ours, before anything else is looked at.
    """
    refusal = _foreign_refusal(spec)
    if refusal is None and charge is not None:
        charge()
    refusal = refusal or _http_refusal(spec)
    if refusal is not None:
        return refusal
    body = request.stream.read(MAX_BODY_BYTES + 1)  # a chunked body has no Content-Length
    if len(body) > MAX_BODY_BYTES:
        return _with_cors(spec, _plain_error(413, f"Request body over {MAX_BODY_BYTES} bytes"))
    try:
        era = rpc.era_from_header(request.headers.get("MCP-Protocol-Version"))
        payload = decode_body(body)
        if isinstance(payload, list):
            return _serve_batch(spec, rpc.batch_messages(payload, era), era)
        message = message_from(payload, echoed=rpc.ECHOED_PARAMS)
        note_mcp_message(message, spec)  # the invocation log (never raises)
        if message.is_notification_or_response:
            return _with_cors(spec, Response(status=202))
        if era.modern:
            rpc.check_modern_envelope(message, request.headers)
        try:
            result = rpc.dispatch(spec, message, era)
        except DeadlineExceeded as exceeded:
            note_mcp_outcome(rpc_error=True)
            return ran_out(_json(spec, deadline_rpc_error(exceeded, message.id).body(), 503), exceeded)
        note_mcp_outcome(result)
        return _json(spec, result_body(message.id, result), 200)
    except RpcError as error:
        note_mcp_outcome(rpc_error=True)
        return _json(spec, error.body(), rpc.http_status(error))


def _serve_batch(spec: ServerSpec, elements: list, era: rpc.Era) -> Response:
    """A 2025-03-26 batch: an array of the requests' responses, or 202 when it holds none.

    Notifications and responses in it produce no entry; each request is
    answered as it would be on its own POST, errors included, in order.
    Each message costs what its own POST would: the gate charged the first,
    and each further one is charged the same budgets again; from the first
    message a limit refuses, the requests get that limit's JSON-RPC error
    (-32000, `data.retry_after`) in place and nothing more is run.

    The whole batch shares the request's one deadline: from the message it
    stops (checked before each message, and cancelling the one running), the
    requests get the deadline's JSON-RPC error (-32010, `data.retry_after`)
    in place, nothing more is run, and the batch is answered with HTTP 503
    and Retry-After; the answers finished before it are kept in the array.
    """
    responses = []
    limited: RateLimited | None = None
    exceeded: DeadlineExceeded | None = None
    for index, element in enumerate(elements):
        if index and limited is None and exceeded is None:
            try:
                charge_again()
            except RateLimited as refusal:
                limited = refusal
        if exceeded is None and limited is None:
            try:
                check_deadline()
                answer = _batch_answer(spec, element, era)
            except DeadlineExceeded as stopped:
                exceeded = stopped
        if exceeded is not None:
            answer = _stopped_answer(element, deadline_rpc_error(exceeded))
        elif limited is not None:
            answer = _stopped_answer(element, limited.rpc_error())
        if answer is not None:
            responses.append(answer)
    if exceeded is not None:
        return ran_out(_json(spec, responses, 503), exceeded)
    if not responses:
        return _with_cors(spec, Response(status=202))
    return _json(spec, responses, 200)


def _batch_answer(spec: ServerSpec, element: Message | RpcError, era: rpc.Era) -> dict | None:
    """One batch element's response object (None for a notification or a response)."""
    if isinstance(element, RpcError):
        note_mcp_outcome(rpc_error=True)
        return element.body()
    note_mcp_message(element, spec)
    if element.is_notification_or_response:
        return None
    try:
        result = rpc.dispatch(spec, element, era)
    except RpcError as error:
        note_mcp_outcome(rpc_error=True)
        return error.body()
    note_mcp_outcome(result)
    return result_body(element.id, result)


def _stopped_answer(element: Message | RpcError, error: RpcError) -> dict | None:
    """A batch element past a rate limit or the deadline: that error for a request (or an invalid element), else nothing."""
    if isinstance(element, Message) and element.is_notification_or_response:
        return None
    note_mcp_outcome(rpc_error=True)
    error.id = element.id
    return error.body()


def preflight(spec_origins: frozenset[str] | None) -> Response:
    """Answer a CORS preflight: any origin (per-company) or the allowed ones (provider)."""
    origin = request.headers.get("Origin")
    if spec_origins is not _ANY_ORIGIN and not _origin_allowed(spec_origins, origin):
        return _plain_error(403, "Origin not allowed")
    response = cors_preflight(ALLOWED_REQUEST_HEADERS)
    if spec_origins is not _ANY_ORIGIN:
        del response.headers["Access-Control-Allow-Origin"]
        _cors_headers(response, spec_origins, origin)
    return response


def method_not_allowed(spec_origins: frozenset[str] | None) -> Response:
    """GET and DELETE: no SSE stream and no sessions here."""
    response = _plain_error(405, "Method not allowed: this MCP endpoint accepts POST only (no SSE stream, no sessions)")
    response.headers["Allow"] = "POST, OPTIONS"
    _cors_headers(response, spec_origins, request.headers.get("Origin"))
    return response


# --- HTTP-level checks ---------------------------------------------------------


def _foreign_refusal(spec: ServerSpec) -> Response | None:
    """421 for a Host that is not ours (DNS rebinding), 403 for an Origin the endpoint refuses; else None."""
    if not host_allowed(request.host, current_settings()):
        return misdirected()
    origin = request.headers.get("Origin")
    restricted = spec.allowed_origins is not _ANY_ORIGIN
    if origin is not None and restricted and not _origin_allowed(spec.allowed_origins, origin):
        return _plain_error(403, "Forbidden: Origin not allowed")
    return None


def _http_refusal(spec: ServerSpec) -> Response | None:
    """The first request-shape rule (after Host and Origin) the request breaks, as a response; None when all hold."""
    if not _json_content_type():
        return _with_cors(spec, _plain_error(415, "Content-Type must be application/json"))
    if not _accepts_json():
        return _with_cors(spec, _plain_error(406, "Accept must allow application/json"))
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        return _with_cors(spec, _plain_error(413, f"Request body over {MAX_BODY_BYTES} bytes"))
    version = request.headers.get("MCP-Protocol-Version")
    if version is not None and version.strip() not in rpc.SUPPORTED_VERSIONS:
        return _json(spec, rpc.unsupported_version_body(version), 400)
    return None


def misdirected() -> Response:
    """The 421 for a Host that is not ours (DNS-rebinding protection)."""
    return _plain_error(421, "Misdirected request: this Host is not served here")


def _json_content_type() -> bool:
    return _is_json_utf8(request.environ.get("CONTENT_TYPE", ""))


def _accepts_json() -> bool:
    return _accept_allows_json(request.environ.get("HTTP_ACCEPT", ""))


# Clients repeat their headers: each distinct value is parsed once.
@lru_cache(maxsize=256)
def _is_json_utf8(content_type: str) -> bool:
    mimetype, options = parse_options_header(content_type)
    if mimetype.lower() != "application/json":
        return False
    charset = options.get("charset")
    return charset is None or charset.lower() in ("utf-8", "utf8")


@lru_cache(maxsize=256)
def _accept_allows_json(header: str) -> bool:
    if not header.strip():
        return True  # no preference stated
    return parse_accept_header(header, MIMEAccept).quality("application/json") > 0


def _origin_allowed(allowed: frozenset[str] | None, origin: str | None) -> bool:
    """No Origin (a non-browser client), our own origin, or one of ALLOWED_ORIGINS."""
    if origin is None:
        return True
    normalised = origin.strip().rstrip("/").lower()
    return normalised == origin_of_base(current_settings()) or normalised in (allowed or frozenset())


# --- responses -------------------------------------------------------------------


def _cors_headers(response: Response, allowed: frozenset[str] | None, origin: str | None) -> None:
    if allowed is _ANY_ORIGIN:
        response.headers["Access-Control-Allow-Origin"] = "*"
    elif origin is not None and _origin_allowed(allowed, origin):
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers.add("Vary", "Origin")


def _with_cors(spec: ServerSpec, response: Response) -> Response:
    _cors_headers(response, spec.allowed_origins, request.headers.get("Origin"))
    return response


def _json(spec: ServerSpec, payload: dict | list, status: int) -> Response:
    return _with_cors(spec, _rpc_response(payload, status))


def _rpc_response(payload: dict | list, status: int) -> Response:
    """A JSON-RPC body (through the core's one serialiser, which cannot raise), never cached."""
    response = Response(serialise(payload), status=status, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def _plain_error(status: int, message: str) -> Response:
    """An HTTP-level refusal, with a JSON-RPC error body that has no id."""
    return _rpc_response(RpcError(INVALID_REQUEST, message).body(), status)
