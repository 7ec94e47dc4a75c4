"""JSON-RPC 2.0: the one core under every JSON-RPC endpoint (MCP, UCP, webmcp.js's calls, A2A).

Every protocol this service speaks over JSON-RPC (MCP and UCP in
mcp_server/, A2A in a2a_server/) parses its envelope here and sends every
answer through `serialise()`, so a rule about the envelope is written once
and holds on every endpoint, including the next one:

- `decode_body(raw)`: the body's JSON value, or -32700 (not UTF-8, not
  JSON, `NaN`/`Infinity`, nested too deep for the decoder);
- `message_from(payload, echoed=...)`: one message (a request, a
  notification or a response), or -32600 for anything that is not one. An
  `id` must be a string or an integer (never a boolean, a float or null);
  a message without `id` is a notification, which gets no answer;
- text an answer would echo must be storable (mirror/values/storable.py, the one
  rule: no NUL, no unpaired surrogate): `id`, `method` and the params
  fields the protocol names in `echoed` (A2A's `message.contextId`,
  `message.taskId`, `message.messageId`). Such a message is -32600 with
  `id: null`, whatever else it holds: the id cannot be echoed, and a
  client whose own id is not valid UTF-8 cannot match an answer to it;
- `serialise(payload)`: the bytes of a response body. It cannot raise: an
  unpaired surrogate that reached an answer anyway is sent as U+FFFD, NaN
  and the infinities as null, and anything that still fails to encode is
  logged and answered with -32603 (`id: null`), never a 500.

Which HTTP status carries an error is the protocol's decision (MCP: 400 for
-32700/-32600, A2A: 200); `RpcError.status` only records an error's own
exception to that rule. This module knows nothing else of HTTP, and web/ (it
sits below the surfaces, which import it; web/limits.py answers a limit in
JSON-RPC through it too) knows no surface.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mirror.values.jsontext import dumps
from mirror.values.storable import storable

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RATE_LIMITED = -32000  # the "server error" range: JSON-RPC has no standard code for a rate limit
DEADLINE_EXCEEDED = -32010  # the request ran past REQUEST_DEADLINE_SECONDS (web/deadline.py); sent with HTTP 503
ECHO_LIMIT = 100  # characters of a client's text an error message quotes

UNSTORABLE_ECHO = "holds a NUL or an unpaired surrogate character, which cannot be echoed"
_SURROGATE = re.compile("[\ud800-\udfff]")


class RpcError(Exception):
    """A JSON-RPC error response: code, message, optional data, and the id it answers.

    `status` is the HTTP status this error must be sent with when it differs
    from the protocol's usual one (None: the protocol decides).
    """

    def __init__(self, code: int, message: str, *, data: Any = None, id: Any = None, status: int | None = None):
        super().__init__(message)
        self.code, self.message, self.data, self.id, self.status = code, message, data, id, status

    def body(self) -> dict:
        """The error response object."""
        error: dict = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": self.id, "error": error}


@dataclass(frozen=True)
class Message:
    """One parsed JSON-RPC message."""

    id: Any
    method: str | None
    params: dict
    kind: str  # "request", "notification" or "response"

    @property
    def is_notification_or_response(self) -> bool:
        """Nothing is answered (MCP and A2A: 202 and no body)."""
        return self.kind != "request"


def result_body(request_id: Any, result: Any) -> dict:
    """The success response object."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def decode_body(raw: bytes) -> Any:
    """The body's JSON value (an object, or a batch array) or RpcError -32700."""
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RpcError(PARSE_ERROR, "Parse error: the body is not valid UTF-8 JSON") from None


def message_from(payload: Any, *, echoed: Iterable[tuple[str, ...]] = ()) -> Message:
    """Validate one decoded JSON-RPC message or raise RpcError -32600.

    `echoed` names the params fields (as key paths) the protocol's answers
    repeat; they, `id` and `method` must hold storable text.
    """
    if isinstance(payload, list):
        raise RpcError(INVALID_REQUEST, "Batch requests are not supported: send one JSON-RPC message per POST")
    if not isinstance(payload, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: the body must be a JSON-RPC object")
    _refuse_unstorable_echoes(payload, echoed)
    request_id = payload.get("id")
    valid_id = _valid_id(request_id)
    echo = request_id if valid_id else None
    if payload.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', id=echo)
    if "method" not in payload:
        if valid_id and ("result" in payload or "error" in payload):
            return Message(id=request_id, method=None, params={}, kind="response")
        raise RpcError(INVALID_REQUEST, "Invalid Request: no method", id=echo)
    method = payload["method"]
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string', id=echo)
    if "id" in payload and not valid_id:
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    params = payload.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an object', id=echo)
    kind = "request" if "id" in payload else "notification"
    return Message(id=request_id, method=method, params=params, kind=kind)


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _refuse_unstorable_echoes(payload: dict, echoed: Iterable[tuple[str, ...]]) -> None:
    """-32600 with id null when text an answer would repeat cannot be stored (and so not sent as UTF-8)."""
    fields = [(("id",), payload.get("id")), (("method",), payload.get("method"))]
    params = payload.get("params")
    for path in echoed:
        fields.append((("params", *path), _at(params, path)))
    for path, value in fields:
        if isinstance(value, str) and not storable(value):
            raise RpcError(INVALID_REQUEST, f'Invalid Request: "{".".join(path)}" {UNSTORABLE_ECHO}')


def _at(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


# --- the one serialiser ---------------------------------------------------------------------

INTERNAL_ERROR_BODY = (
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the answer could not be encoded"}}'
)


def serialise(payload: Any) -> bytes:
    """A JSON-RPC response body (an object or a batch array) as compact UTF-8 JSON; never raises.

    The text is `mirror.values.jsontext.dumps(payload)` (NaN and the
    infinities as null), except that an unpaired surrogate, which UTF-8
    cannot carry, is U+FFFD. The envelope
    rules keep such text out of everything echoed (`message_from`); this is
    the last line, so that no string anywhere can turn an answer into a 500.
    """
    try:
        try:
            return dumps(payload).encode("utf-8")
        except UnicodeEncodeError:  # an unpaired surrogate: the one text UTF-8 cannot carry
            return dumps(_without_surrogates(payload)).encode("utf-8")
    except Exception:  # a value JSON has no form for, or nesting beyond the encoder: a bug to log, not a 500
        log.exception("a JSON-RPC answer could not be encoded")
        return INTERNAL_ERROR_BODY


def _without_surrogates(value: Any) -> Any:
    """`value` with every unpaired surrogate, in keys and strings, replaced by U+FFFD (containers copied)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_without_surrogates(item) for item in value]
    return value
