"""The invocation log and the request metrics.

Every public request (and so every MCP call: one POST is one JSON-RPC
message) produces, after its response is final:

- one JSON line on the `mirror.invocations` logger: endpoint (the route
  rule, never the raw path), method, protocol (`mcp`, `webmcp`, `a2a`, `nlweb` or `http`),
  the MCP method and tool, the detected agent platform, the `?source=`
  label, status, outcome, duration, the company key the gate let through,
  and `agent`, a keyed hash of the client's address and User-Agent;
- one row in `invocations` (for `flask --app wsgi usage`), queued to the
  app's one background writer (web/recording.py, which also writes the
  source hits), so recording can never slow or fail the request;
- a count and a latency observation in the Prometheus metrics, labelled by
  route rule (bounded cardinality).

What the request thread pays is kept to collecting the fields: the JSON
line is formatted and written to stderr by a writer thread (web/drain.py's
loop, as the row writer's) (the record carries the fields and renders itself only when a handler
asks for its message), the row is appended to the writer's queue, and the
labelled metric children are looked up once per label set and kept.

The client's address is never logged or stored: only the HMAC-SHA256 of
address and User-Agent under USAGE_HASH_KEY. With USAGE_HASH_KEY empty, each
process draws a random key at start: nothing can ever be linked back to an
address, but the same agent hashes differently in each gunicorn worker and
after each restart, so "distinct agents" over-counts. Set USAGE_HASH_KEY
(and rotate it now and then) for stable counts.

Health probes and the metrics scrape (`ops.*` endpoints) are counted in the
metrics but not logged as invocations.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import hmac
import json
import logging
import logging.handlers
import os
import queue
import re
import secrets
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import orjson
from flask import Flask, Response, g, request
from prometheus_client import CollectorRegistry, Counter, Histogram

from mirror.catalog import urls
from mirror.store.models import Invocation
from mirror.values.timestamps import rfc3339
from web.drain import Drain
from web.gate import GateResult
from web.recording import RecordWriter
from web.sources import UNMATCHED, clean_label, requested_label

log = logging.getLogger(__name__)
invocation_log = logging.getLogger("mirror.invocations")

PROBE_ENDPOINTS = frozenset({"ops.healthz", "ops.readyz", "ops.metrics"})
WEBMCP_CLIENT = "webmcp.js"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
KNOWN_RPC_METHODS = frozenset(
    {
        "initialize",
        "server/discover",
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
    }
)
# First match wins: MCP clientInfo names first, then the User-Agent.
PLATFORMS = tuple(
    (name, re.compile(pattern, re.I))
    for name, pattern in (
        ("openai", r"chatgpt|openai|oai-searchbot|gptbot"),
        ("anthropic", r"claude|anthropic"),
        ("cursor", r"cursor"),
        ("vscode", r"visual studio code|vscode|vs code|copilot"),
        ("google", r"gemini|google"),
        ("perplexity", r"perplexity"),
        ("mcp-inspector", r"inspector"),
        ("curl", r"^curl/"),
        ("python", r"python|httpx|aiohttp"),
        ("node", r"^node|undici|axios"),
        ("browser", r"^mozilla/"),
    )
)


def detect_platform(user_agent: str | None, client_name: str | None = None) -> str:
    """The agent platform from MCP clientInfo.name and the User-Agent, else "unknown"."""
    for text in (client_name, user_agent):
        if not text:
            continue
        name = _platform_of(text[:512])
        if name is not None:
            return name
    return "unknown"


@functools.lru_cache(maxsize=1024)  # agents repeat their User-Agent: the patterns run once per distinct text
def _platform_of(text: str) -> str | None:
    for name, pattern in PLATFORMS:
        if pattern.search(text):
            return name
    return None


@functools.lru_cache(maxsize=4096)  # agents repeat: one HMAC per distinct client, not per request
def agent_id(key: bytes, address: str | None, user_agent: str | None) -> str:
    """A keyed hash of address and User-Agent (64 bits, hex): the address is never kept."""
    message = f"{address or ''}\x00{user_agent or ''}".encode("utf-8", "replace")
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:16]


# --- what the MCP transport tells us ---------------------------------------------------


@dataclass
class McpCall:
    """The JSON-RPC message of this request, as far as the log needs it."""

    method: str
    tool: str | None = None
    client_name: str | None = None
    outcome: str = "ok"  # "ok", "tool_error" or "rpc_error"


def note_mcp_message(message, spec=None) -> None:
    """Called by the MCP transport once it has parsed a message (never raises)."""
    try:
        params = message.params if isinstance(message.params, dict) else {}
        method = (
            message.method
            if message.method in KNOWN_RPC_METHODS
            else ("notification" if message.kind == "notification" else "other")
        )
        name = params.get("name") if method == "tools/call" else None
        tool = name if isinstance(name, str) and spec is not None and spec.tool(name) is not None else None
        if method == "tools/call" and tool is None:
            tool = "unknown"
        earlier = g.get("mcp_call")  # a batch's earlier message: the record keeps the worst outcome the client got
        outcome = earlier.outcome if earlier is not None else "ok"
        g.mcp_call = McpCall(method=method, tool=tool, client_name=_client_name(params), outcome=outcome)
    except Exception:  # the log must never break the call it describes
        log.debug("MCP message not noted", exc_info=True)


def note_mcp_outcome(result: dict | None = None, *, rpc_error: bool = False) -> None:
    """Called by the transport with the result (or after a JSON-RPC error); in a batch the worst one stays.

    An error outranks a tool error, which outranks success, so a batch's
    line says what the worst of its answers was, not only the last one.
    """
    call = g.get("mcp_call")
    if call is None:  # refused before it could be parsed
        g.mcp_call = call = McpCall(method="unparsed")
    if rpc_error:
        call.outcome = "rpc_error"
    elif isinstance(result, dict) and result.get("isError") is True and call.outcome == "ok":
        call.outcome = "tool_error"


def note_rpc_error() -> None:
    """Called by a JSON-RPC surface other than MCP (the A2A agents) that answered an error: the outcome is rpc_error."""
    g.rpc_error = True


def _client_name(params: dict) -> str | None:
    info = params.get("clientInfo")
    meta = params.get("_meta")
    if not isinstance(info, dict) and isinstance(meta, dict):
        info = meta.get(CLIENT_INFO_META_KEY)
    name = info.get("name") if isinstance(info, dict) else None
    return name[:128] if isinstance(name, str) else None


# --- metrics -------------------------------------------------------------------------------


@dataclass
class RequestMetrics:
    """The app's request metrics (one registry per app; see web/health.py for the scrape)."""

    registry: CollectorRegistry
    requests: Counter
    latency: Histogram
    mcp_calls: Counter

    @classmethod
    def create(cls) -> RequestMetrics:
        """Fresh metrics in a registry of their own (so several apps can live in one process)."""
        registry = CollectorRegistry(auto_describe=True)
        return cls(
            registry=registry,
            requests=Counter(
                "mirror_http_requests",
                "HTTP requests answered, by route rule, method and status.",
                ["endpoint", "method", "status"],
                registry=registry,
            ),
            latency=Histogram(
                "mirror_http_request_duration_seconds",
                "Time to answer a request, by route rule.",
                ["endpoint", "method"],
                registry=registry,
            ),
            mcp_calls=Counter(
                "mirror_mcp_calls",
                "MCP JSON-RPC requests, by route rule, method, tool and outcome.",
                ["endpoint", "rpc_method", "tool", "outcome"],
                registry=registry,
            ),
        )

    def __post_init__(self) -> None:
        self._children: dict[tuple, object] = {}

    def child(self, metric, *labels: str):
        """The labelled child of `metric`, looked up once per label set (labels() validates and locks)."""
        key = (id(metric), labels)
        found = self._children.get(key)
        if found is None:
            found = self._children.setdefault(key, metric.labels(*labels))
        return found


# --- the request hooks ----------------------------------------------------------------------


def _outcome(status: int, call: McpCall | None, gated: GateResult | None, rpc_error: bool, ran_out: bool) -> str:
    if ran_out:  # stopped at REQUEST_DEADLINE_SECONDS (web/deadline.py): what it was, whatever the status
        return "deadline_passed"  # the column holds 16 characters
    if gated is not None and gated.outcome != "served":
        return gated.outcome
    if status >= 500:
        return "server_error"
    if status >= 400:
        return "client_error"
    if call is not None:
        return call.outcome
    return "rpc_error" if rpc_error else "ok"


# The POST endpoints that speak a protocol of their own besides MCP: the A2A agents and NLWeb /ask.
_POST_PROTOCOLS = {
    urls.flask_rule(urls.COMPANY_A2A): "a2a",
    urls.ROOT_A2A: "a2a",
    urls.flask_rule(urls.COMPANY_ASK): "nlweb",
    urls.ROOT_ASK: "nlweb",
}


def _protocol(call: McpCall | None, rule: str, method: str) -> str:
    if call is None and method == "POST" and rule in _POST_PROTOCOLS:
        return _POST_PROTOCOLS[rule]
    if call is None and not (rule.endswith("/mcp") and method == "POST"):
        return "http"
    # webmcp.js names itself in clientInfo (under _meta): a custom header would need a CORS allowance.
    return "webmcp" if call is not None and call.client_name == WEBMCP_CLIENT else "mcp"


def invocation_record(response: Response, duration: float, hash_key: bytes) -> dict:
    """The log line's fields for this request (no raw address, no request text but the label)."""
    # The request and g are read once each: every attribute read through
    # Flask's proxies is a context-variable lookup.
    current = request._get_current_object()
    state = g._get_current_object()
    call = state.get("mcp_call")
    gated = state.get("gate")
    user_agent = current.headers.get("User-Agent")
    label = requested_label()
    url_rule = current.url_rule
    rule = url_rule.rule if url_rule else ""
    method = current.method
    status = response.status_code
    return {
        "recorded_at": datetime.now(UTC),
        "endpoint": rule if url_rule else UNMATCHED,
        "method": method[:8],
        "protocol": _protocol(call, rule, method),
        "rpc_method": call.method if call else None,
        "tool": call.tool if call else None,
        "platform": detect_platform(user_agent, call.client_name if call else None),
        "source": clean_label(label) if label.strip() else None,
        "status": status,
        "outcome": _outcome(status, call, gated, state.get("rpc_error", False), state.get("deadline_exceeded", False)),
        "duration_ms": round(duration * 1000, 1),
        "company_key": gated.company_key if gated else None,
        "agent": agent_id(hash_key, current.remote_addr, user_agent),
    }


def _log_line(record: dict) -> str:
    """The JSON line: pure ASCII, compact (exactly `json.dumps(..., ensure_ascii=True)`)."""
    line = {"ts": rfc3339(record["recorded_at"]), "event": "invocation"}
    line.update({k: v for k, v in record.items() if k != "recorded_at"})
    # orjson writes the same bytes for ASCII text, several times faster; any
    # other character must be escaped, which only the standard library does.
    try:
        fast = orjson.dumps(line)
    except TypeError:  # a lone surrogate: only the standard library escapes it
        fast = b"\x80"
    if fast.isascii() and b"\x7f" not in fast:  # json.dumps escapes DEL too
        return fast.decode("ascii")
    return json.dumps(line, ensure_ascii=True, separators=(",", ":"))


def _row(record: dict) -> dict:
    row = {k: v for k, v in record.items() if k != "rpc_method"}
    row["duration_ms"] = round(record["duration_ms"])
    return row


class InvocationLine:
    """A log message that renders itself as the JSON line only when a handler asks (`str()`)."""

    __slots__ = ("record",)

    def __init__(self, record: dict) -> None:
        self.record = record

    def __str__(self) -> str:
        return _log_line(self.record)


class _DeferredQueueHandler(logging.handlers.QueueHandler):
    """Enqueue the record as it is: formatting happens on the listener's thread, not the request's.

    When this handler is the logger's only one (as configured), a request
    enqueues just its fields (`enqueue_fields`): no LogRecord is made on the
    request thread; the listener makes the line from them. With any other
    handler attached (an operator's, a test's), the request goes through
    `Logger.handle` as usual, so every handler sees every record.

    The queue is bounded by a soft cap: if stderr stalls, lines are dropped
    (and counted) rather than held without limit.
    """

    capacity = 20000

    def __init__(self, target: logging.Handler) -> None:
        super().__init__(queue.SimpleQueue())
        self.target = target
        self.dropped = 0
        self._listener: _LineWriter | None = None
        self._pid: int | None = None

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record  # the message is an InvocationLine: immutable fields, rendered by the target

    def enqueue(self, record: logging.LogRecord | dict) -> None:
        if self._pid != os.getpid():  # first line in this process (threads do not survive gunicorn's fork)
            self._start()
        if self.queue.qsize() >= self.capacity:
            self.dropped += 1
            return
        self.queue.put_nowait(record)

    enqueue_fields = enqueue  # a record's fields (a dict): the listener makes the line

    def _start(self) -> None:
        self._pid = os.getpid()
        self._listener = _LineWriter(self.queue, self.target)
        self._listener.start()

    def flush(self) -> None:
        """Wait until every queued line is written (tests, shutdown)."""
        if self._listener is not None and self._pid == os.getpid():
            self._listener.stop()  # writes what is queued, then ends the thread
            self._listener = None
            self._pid = None


class _LineWriter:
    """The thread that writes the queued lines to stderr: every POLL_SECONDS, all that are queued, in one go.

    web/drain.py's loop, as the row writer's: one wake-up per interval, not
    one per line, and lines reach stderr at most that much later. Each
    wake-up writes the lines queued meanwhile with one write and one flush
    (`_StderrHandler.emit_lines`), not one per line.
    """

    POLL_SECONDS = 1.0  # as the row writer's linger (web/recording.py): one wake-up a second

    def __init__(self, lines: queue.SimpleQueue, target: _StderrHandler) -> None:
        self.target = target
        self._drain = Drain(lines)
        self._thread = threading.Thread(target=self._run, name="invocation-log", daemon=True)

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def stop(self) -> None:
        """Write every line queued, then end the thread (a flush never waits the interval out)."""
        self._drain.stop()
        self._thread.join()

    def _run(self) -> None:
        while True:
            batch, stop = self._drain.next_batch(self.POLL_SECONDS)
            if batch:
                self._write(batch)
            if stop:
                return

    def _write(self, batch: list) -> None:
        target = self.target
        lines = []
        for item in batch:
            if isinstance(item, dict):  # enqueue_fields: only our handler is attached
                lines.append(_log_line(item))
            else:
                try:
                    lines.append(target.format(item))
                except Exception:  # one bad record must not lose the batch
                    target.handleError(item)
        if lines:
            target.emit_lines(lines)


class _StderrHandler(logging.StreamHandler):
    """A StreamHandler on whatever `sys.stderr` is when a line is written, not when it was made.

    The listener writes after the request, and the last lines at exit: a
    process (a test runner, a server) may have swapped stderr meanwhile,
    and writing to the stream it closed is a traceback per line.
    """

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass  # always the current sys.stderr

    def emit_lines(self, lines: list[str]) -> None:
        """Write formatted lines with one write and one flush (never raises: logging's own error report)."""
        try:
            with self.lock:
                stream = self.stream
                stream.write(self.terminator.join(lines) + self.terminator)
                stream.flush()
        except Exception:
            self.handleError(None)


def _configure_invocation_logger() -> None:
    """One bare JSON line per invocation on stderr, written off the request thread (idempotent)."""
    if getattr(invocation_log, "_mirror_configured", False):
        return
    stream = _StderrHandler()
    stream.setFormatter(logging.Formatter("%(message)s"))
    handler = _DeferredQueueHandler(stream)
    invocation_log.addHandler(handler)
    invocation_log.setLevel(logging.INFO)
    invocation_log.propagate = False
    invocation_log._mirror_configured = True
    atexit.register(handler.flush)


def init_observability(app: Flask, settings, writer: RecordWriter) -> None:
    """Install the metrics and the invocation log (rows go to `writer`) on the app."""
    metrics = RequestMetrics.create()
    hash_key = settings.usage_hash_key.encode("utf-8") or secrets.token_bytes(32)
    app.extensions["metrics"] = metrics
    _configure_invocation_logger()

    @app.before_request
    def _start_clock() -> None:
        g.request_started = time.perf_counter()

    @app.after_request
    def _observe(response: Response) -> Response:
        try:
            _observe_response(response, metrics, writer, hash_key)
        except Exception:  # observing must never change the answer
            log.warning("request not observed", exc_info=True)
        return response


def _observe_response(response: Response, metrics: RequestMetrics, writer: RecordWriter, key: bytes) -> None:
    duration = time.perf_counter() - g.get("request_started", time.perf_counter())
    endpoint = request.url_rule.rule if request.url_rule else UNMATCHED
    method = (
        request.method if request.method in ("GET", "HEAD", "POST", "OPTIONS", "PUT", "PATCH", "DELETE") else "other"
    )
    metrics.child(metrics.requests, endpoint, method, str(response.status_code)).inc()
    metrics.child(metrics.latency, endpoint, method).observe(duration)
    if request.endpoint in PROBE_ENDPOINTS:
        return
    record = invocation_record(response, duration, key)
    call = g.get("mcp_call")
    if call is not None:
        metrics.child(metrics.mcp_calls, endpoint, call.method, call.tool or "", record["outcome"]).inc()
    if invocation_log.isEnabledFor(logging.INFO):
        handlers = invocation_log.handlers
        if len(handlers) == 1 and isinstance(handlers[0], _DeferredQueueHandler) and not invocation_log.filters:
            handlers[0].enqueue_fields(record)  # ours alone: the listener makes the line from the fields
        else:
            # The record straight to the handlers: Logger.info's caller lookup
            # (a stack walk) finds nothing this line uses.
            invocation_log.handle(
                invocation_log.makeRecord(invocation_log.name, logging.INFO, "", 0, InvocationLine(record), (), None)
            )
    writer.record(Invocation, _row(record))
