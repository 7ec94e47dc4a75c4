"""A2A 1.0 over JSON-RPC 2.0: parsing a request, the version rule, and A2A's errors.

Knows nothing of companies or tools. The agents are stateless: they answer
`SendMessage` with a Message and keep no tasks, so every task method answers
TaskNotFound and streaming / push notifications answer their "not supported"
errors, exactly as the agent card's `capabilities` say.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = "1.0"
VERSION_HEADER = "A2A-Version"
# A missing A2A-Version header means 0.3 (A2A 1.0, "Versioning"), which these agents do not speak.
HEADERLESS_VERSION = "0.3"
MEDIA_TYPES = ("application/json", "application/a2a+json")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TASK_NOT_FOUND = -32001
PUSH_NOTIFICATION_NOT_SUPPORTED = -32003
UNSUPPORTED_OPERATION = -32004
CONTENT_TYPE_NOT_SUPPORTED = -32005
EXTENDED_CARD_NOT_CONFIGURED = -32007
VERSION_NOT_SUPPORTED = -32009

# Every A2A 1.0 JSON-RPC method, by the error a stateless agent answers it with.
_NO_TASKS = ("GetTask", "CancelTask", "SubscribeToTask")
_NO_PUSH = (
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
)
_ECHO_LIMIT = 100


class A2AError(Exception):
    """A JSON-RPC error response of the A2A binding."""

    def __init__(self, code: int, message: str, *, id: Any = None):
        super().__init__(message)
        self.code, self.message, self.id = code, message, id

    def body(self) -> dict:
        """The error response object."""
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}}


@dataclass(frozen=True)
class Request:
    """One parsed JSON-RPC request."""

    id: str | int | None
    method: str
    params: dict


def check_version(header: str | None) -> None:
    """Refuse any A2A-Version but 1.x (major match, as the SDK's own server does)."""
    version = (header or "").strip() or HEADERLESS_VERSION
    if version.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
        raise A2AError(
            VERSION_NOT_SUPPORTED,
            f"A2A version {version[:_ECHO_LIMIT]!r} is not supported: send A2A-Version: {PROTOCOL_VERSION}",
        )


def parse_request(raw: bytes) -> Request:
    """Decode one JSON-RPC request or raise A2AError (-32700, -32600)."""
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise A2AError(PARSE_ERROR, "Parse error: the body is not valid UTF-8 JSON") from None
    if not isinstance(payload, dict):
        raise A2AError(INVALID_REQUEST, "Invalid Request: the body must be one JSON-RPC request object")
    request_id = payload.get("id")
    if not (isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))):
        request_id = None
    method, params = payload.get("method"), payload.get("params", {})
    if payload.get("jsonrpc") != "2.0" or not isinstance(method, str) or not method:
        raise A2AError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0" and "method" a string', id=request_id)
    if not isinstance(params, dict):
        raise A2AError(INVALID_PARAMS, 'Invalid params: "params" must be an object', id=request_id)
    return Request(id=request_id, method=method, params=params)


def refuse_unsupported(request: Request) -> None:
    """Raise the error a stateless, non-streaming agent answers for every method but SendMessage."""
    method = request.method
    if method in _NO_TASKS:
        raise A2AError(
            TASK_NOT_FOUND, "Task not found: this agent keeps no tasks (every answer is a Message)", id=request.id
        )
    if method == "ListTasks":
        raise A2AError(UNSUPPORTED_OPERATION, "This agent keeps no tasks", id=request.id)
    if method in _NO_PUSH:
        raise A2AError(PUSH_NOTIFICATION_NOT_SUPPORTED, "Push notifications are not supported", id=request.id)
    if method == "SendStreamingMessage":
        raise A2AError(UNSUPPORTED_OPERATION, "Streaming is not supported: use SendMessage", id=request.id)
    if method == "GetExtendedAgentCard":
        raise A2AError(EXTENDED_CARD_NOT_CONFIGURED, "There is no extended agent card", id=request.id)
    if method != "SendMessage":
        raise A2AError(METHOD_NOT_FOUND, f"Method not found: {method[:_ECHO_LIMIT]}", id=request.id)


def result_body(request_id: Any, result: dict) -> dict:
    """The success response object."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
