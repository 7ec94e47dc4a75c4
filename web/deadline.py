"""Every request runs under a deadline (REQUEST_DEADLINE_SECONDS); past it, a 503 with Retry-After.

The clock starts when the request arrives (right after the invocation log's
own clock) and stops when it ends; mirror/runtime/deadline.py holds it, so the
database statement and the Python loops of the request stop at it
(`DeadlineExceeded`, raised by `mirror.runtime.deadline.check_deadline()` or by a
statement the database cancelled). The answer to a request that ran out:

- plain JSON endpoints: 503 `{"error": "deadline_exceeded", "message", "retry_after"}`;
- JSON-RPC endpoints (MCP, UCP, webmcp.js's calls, A2A): HTTP 503 with the
  JSON-RPC error `DEADLINE_EXCEEDED` (-32010, `data.retry_after`), built
  by the transport with `deadline_rpc_error` (it knows the message's id);
- NLWeb `/ask`: 503 with its Failure shape (code `DEADLINE_EXCEEDED`);

each with `Retry-After` (the deadline, in whole seconds: what one request may
hold a worker for) and `Cache-Control: no-store`. The invocation log records
the request's outcome as `deadline_passed` (web/observability.py), and the
rate limits charge the client for the time it held a worker (web/limits.py).
"""

from __future__ import annotations

import math

from flask import Flask, Response, g

from mirror.runtime import deadline
from mirror.runtime.config import Settings
from mirror.runtime.deadline import DeadlineExceeded
from web.jsonrpc import DEADLINE_EXCEEDED, RpcError
from web.responses import json_error

DEADLINE_MESSAGE = "The request ran past its deadline of {seconds:g} s and was stopped; retry later."
_TOKEN = "deadline_token"


def init_deadline(app: Flask, settings: Settings) -> None:
    """Start each request's deadline, end it at teardown, and answer DeadlineExceeded with the 503."""
    seconds = settings.request_deadline_seconds

    @app.before_request
    def _start_deadline() -> None:
        g.setdefault(_TOKEN, deadline.start(seconds))

    @app.teardown_request
    def _end_deadline(_error=None) -> None:
        token = g.pop(_TOKEN, None)
        if token is not None:
            deadline.finish(token)

    app.register_error_handler(DeadlineExceeded, lambda error: deadline_response(error))


def retry_after(error: DeadlineExceeded) -> int:
    """Seconds a client should wait before asking again: the deadline itself, at least one."""
    return max(1, math.ceil(error.seconds))


def deadline_message(error: DeadlineExceeded) -> str:
    """The one sentence every surface sends."""
    return DEADLINE_MESSAGE.format(seconds=error.seconds)


def ran_out(response: Response, error: DeadlineExceeded) -> Response:
    """`response` as the deadline's answer: status 503, Retry-After, never cached; the request noted as such."""
    response.status_code = 503
    response.headers["Retry-After"] = str(retry_after(error))
    response.headers["Cache-Control"] = "no-store"
    g.deadline_exceeded = True
    return response


def deadline_response(error: DeadlineExceeded) -> Response:
    """The 503 of a plain JSON endpoint."""
    body = json_error(503, "deadline_exceeded", deadline_message(error), retry_after=retry_after(error))
    return ran_out(body, error)


def deadline_rpc_error(error: DeadlineExceeded, request_id=None) -> RpcError:
    """The JSON-RPC error of a message the deadline stopped (sent with HTTP 503 through `ran_out`)."""
    return RpcError(
        DEADLINE_EXCEEDED, deadline_message(error), data={"retry_after": retry_after(error)}, id=request_id, status=503
    )
