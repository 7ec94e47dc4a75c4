"""A2A 1.0 over the JSON-RPC core (web/jsonrpc.py): the version rule, the method table and A2A's errors.

Knows nothing of companies or tools. The envelope (parsing, notifications,
the storable-text rule for what an answer echoes, the error object, the one
serialiser) is the core's, shared with MCP. The agents are stateless: they
answer `SendMessage` with a Message and keep no tasks, so every task method
answers TaskNotFound and streaming / push notifications answer their "not
supported" errors, exactly as the agent card's `capabilities` say.
"""

from __future__ import annotations

from web.jsonrpc import ECHO_LIMIT, METHOD_NOT_FOUND, Message, RpcError, decode_body, message_from

PROTOCOL_VERSION = "1.0"
# The A2A-Version values answered: exactly the `major.minor` versions these agents speak. Anything
# else (a bare major "1", a minor they do not speak "1.1" or "1.999999", a patch "1.0.1", a list
# "1.0, 2.0") is VersionNotSupported: the spec has the server answer in the version asked, or refuse.
SUPPORTED_VERSIONS = (PROTOCOL_VERSION,)
VERSION_HEADER = "A2A-Version"
# A missing A2A-Version header means 0.3 (A2A 1.0, "Versioning"), which these agents do not speak.
HEADERLESS_VERSION = "0.3"
MEDIA_TYPES = ("application/json", "application/a2a+json")
# The params fields an A2A answer repeats (a Message's ids): storable text only, else -32600.
ECHOED_PARAMS = (("message", "contextId"), ("message", "taskId"), ("message", "messageId"))

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


def check_version(header: str | None) -> None:
    """Refuse any A2A-Version but one of SUPPORTED_VERSIONS (surrounding spaces aside)."""
    version = (header or "").strip() or HEADERLESS_VERSION
    if version not in SUPPORTED_VERSIONS:
        raise RpcError(
            VERSION_NOT_SUPPORTED,
            f"A2A version {version[:ECHO_LIMIT]!r} is not supported: send A2A-Version: {PROTOCOL_VERSION}",
        )


def parse_request(raw: bytes) -> Message:
    """Decode one JSON-RPC message or raise RpcError (-32700, -32600); a batch is -32600 (A2A has none)."""
    return message_from(decode_body(raw), echoed=ECHOED_PARAMS)


def refuse_unsupported(request: Message) -> None:
    """Raise the error a stateless, non-streaming agent answers for every method but SendMessage."""
    method = request.method
    if method in _NO_TASKS:
        raise RpcError(
            TASK_NOT_FOUND, "Task not found: this agent keeps no tasks (every answer is a Message)", id=request.id
        )
    if method == "ListTasks":
        raise RpcError(UNSUPPORTED_OPERATION, "This agent keeps no tasks", id=request.id)
    if method in _NO_PUSH:
        raise RpcError(PUSH_NOTIFICATION_NOT_SUPPORTED, "Push notifications are not supported", id=request.id)
    if method == "SendStreamingMessage":
        raise RpcError(UNSUPPORTED_OPERATION, "Streaming is not supported: use SendMessage", id=request.id)
    if method == "GetExtendedAgentCard":
        raise RpcError(EXTENDED_CARD_NOT_CONFIGURED, "There is no extended agent card", id=request.id)
    if method != "SendMessage":
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method[:ECHO_LIMIT]}", id=request.id)
