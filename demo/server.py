"""The demo upstream: a real HTTP server speaking UPSTREAM.md over a DemoCatalog.

It serves the sync's tests (with fault injection), `make run` and the
benchmarks. It is a separate server, never a mock inside the client.

Python::

    from demo.server import start_in_thread
    with start_in_thread(companies=20, products=30, seed=7) as upstream:
        upstream.url                      # "http://127.0.0.1:<port>", token "demo-token"
        upstream.catalog.mutate(0.05)     # reprice 5% of products, stamped now
        upstream.faults.add("status", status=503, path="/v1/products", nth=2)
        upstream.requests.count, upstream.requests[-1].query

Command line (blocking)::

    flask --app wsgi demo-upstream --port 8765 --companies 50 --products 100 --seed 1
    python -m demo.server --port 8765

Upstream API (UPSTREAM.md): ``GET /v1/companies``, ``GET /v1/products``,
``GET /v1/companies/<plugin_key>/products`` with ``updated_since``, ``cursor``
and ``limit``. Cursors are base64url JSON of (list, updated_since, position,
issue time); a cursor from another list or another ``updated_since`` is a 400,
and, when ``cursor_ttl_seconds`` is set, an older one is a 410.

Admin API (same bearer token; never logged, never faulted; JSON bodies)::

    GET    /_demo/stats
    POST   /_demo/mutate                 {"fraction": 0.01, "seed": 7, "company_fraction": 0}
    POST   /_demo/companies              {"products": 10, "plugin_key": "...", ...fields} -> 201
    GET    /_demo/companies/<key>        (private fields included)
    PATCH  /_demo/companies/<key>        {...fields, "_unset": ["phone"], "updated_at": "..."}
    DELETE /_demo/companies/<key>        hard delete: no list will say so
    GET    /_demo/companies/<key>/products/<sku>
    PATCH  /_demo/companies/<key>/products/<sku>   {...fields, "_unset": [...]} (creates a new SKU)
    DELETE /_demo/companies/<key>/products/<sku>   -> the tombstone
    GET | POST | DELETE  /_demo/faults   POST: one fault spec or a list of them
    GET | DELETE         /_demo/requests

Fault spec: ``{"kind": K, "path": "/v1/", "exact": false, "nth": 1, "times": 1, ...}``.
A fault watches requests whose path starts with ``path`` (equals it when
``exact``); it fires on the ``nth`` such request after it was added and on the
next ``times - 1`` (``times: null`` = until cleared). Kinds and their options:

- ``status``: answer ``status`` (500) with ``body`` (JSON; a string is sent as text) and ``headers``
- ``rate_limit``: 429 with ``Retry-After: retry_after`` (1)
- ``cursor_expired``: 410 ``{"error": "cursor_expired"}``; ``unauthorized``: 401; ``bad_request``: 400
- ``slow``: wait ``seconds`` (5) before answering normally
- ``truncated``: the real page's JSON cut to ``keep`` (0.5) of its bytes; a complete HTTP response
- ``short_body``: Content-Length of the whole page but only ``keep`` of it sent, then the socket closes
- ``not_json``: ``status`` (200) with an HTML ``body``
- ``reset``: the socket is closed without any response
- ``malformed_records``: ``records`` (default: broken copies of the page's first record,
  a string and a null) appended to the real page's ``data``
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import math
import re
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import click
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.routing import Map, Rule
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from demo.catalog import MISSING, DemoCatalog, Page, iso_utc, parse_rfc3339

__all__ = ["DemoCatalog", "DemoUpstream", "Fault", "FaultQueue", "MISSING", "RequestLog",
           "demo_upstream_command", "serve", "start_in_thread"]

DEFAULT_LIMIT, MAX_LIMIT = 100, 500
FAULT_KINDS = ("status", "rate_limit", "cursor_expired", "unauthorized", "bad_request", "slow",
               "truncated", "short_body", "not_json", "reset", "malformed_records")
_DIGITS = re.compile(r"^[0-9]+$")


class ApiError(Exception):
    """An error answer: status and a small JSON body `{"error": ..., "message": ...}`."""

    def __init__(self, status: int, error: str, message: str | None = None):
        super().__init__(message or error)
        self.status, self.error, self.message = status, error, message

    def payload(self) -> dict:
        return {"error": self.error, **({"message": self.message} if self.message else {})}


# --- cursors ---------------------------------------------------------------------

def encode_cursor(list_id: str, since: int | None, position: tuple, issued_at: int) -> str:
    """An opaque cursor: the walk's identity and the last position served."""
    raw = json.dumps([list_id, since, list(position), issued_at], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).rstrip(b"=").decode()


def decode_cursor(text: str, list_id: str, since: int | None, key_arity: int) -> tuple[tuple, int]:
    """The (position, issued_at) in a cursor; ApiError(400) if it is not this walk's."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        cursor_list, cursor_since, position, issued_at = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise ApiError(400, "bad_request", "cursor is not one this server issued") from None
    shape_ok = (isinstance(position, list) and len(position) == key_arity + 1
                and isinstance(position[0], int) and all(isinstance(k, str) for k in position[1:])
                and isinstance(issued_at, int))
    if not shape_ok or cursor_list != list_id:
        raise ApiError(400, "bad_request", "cursor does not belong to this list")
    if cursor_since != since:
        raise ApiError(400, "bad_request", "cursor was issued for another updated_since")
    return tuple(position), issued_at


# --- faults and the request log ----------------------------------------------------

@dataclass
class Fault:
    """One armed fault (see the module docstring for kinds and options)."""

    kind: str
    path: str = "/v1/"
    exact: bool = False
    nth: int = 1
    times: int | None = 1
    status: int | None = None
    retry_after: int = 1
    seconds: float = 5.0
    keep: float = 0.5
    body: Any = None
    headers: dict | None = None
    records: list | None = None
    seen: int = 0  # matching requests since the fault was added
    fired: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; one of {', '.join(FAULT_KINDS)}")
        if self.nth < 1 or (self.times is not None and self.times < 1) or not 0 <= self.keep < 1:
            raise ValueError("need nth >= 1, times >= 1 (or null) and 0 <= keep < 1")

    def matches(self, path: str) -> bool:
        return path == self.path if self.exact else path.startswith(self.path)

    def to_dict(self) -> dict:
        return asdict(self)


class FaultQueue:
    """Armed faults, matched by path and request number; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[Fault] = []
        self.fired: list[tuple[str, str]] = []  # (kind, path) of every fault that fired

    def add(self, kind: str, **options: Any) -> Fault:
        """Arm a fault, e.g. `add("rate_limit", retry_after=2, path="/v1/products", nth=3)`."""
        fault = Fault(kind, **options)
        with self._lock:
            self._pending.append(fault)
        return fault

    def add_spec(self, spec: dict) -> Fault:
        """Arm a fault from its JSON spec (ValueError/TypeError when malformed)."""
        if not isinstance(spec, dict):
            raise ValueError("a fault spec is a JSON object")
        spec = {k: v for k, v in spec.items() if k not in ("seen", "fired")}
        return self.add(**spec)

    def take(self, path: str) -> Fault | None:
        """Count this request against every matching fault; return the one that fires."""
        with self._lock:
            chosen = None
            for fault in list(self._pending):
                if not fault.matches(path):
                    continue
                fault.seen += 1
                if chosen is None and fault.seen >= fault.nth:
                    chosen = fault
                    fault.fired += 1
                    if fault.times is not None and fault.fired >= fault.times:
                        self._pending.remove(fault)
            if chosen is not None:
                self.fired.append((chosen.kind, path))
            return chosen

    def pending(self) -> list[Fault]:
        with self._lock:
            return list(self._pending)

    def clear(self) -> None:
        with self._lock:
            self._pending.clear()
            self.fired.clear()


@dataclass
class LoggedRequest:
    """One API request as the demo upstream saw it."""

    method: str
    path: str
    query: dict
    headers: dict
    at: float = field(default_factory=time.time)
    status: int | None = None  # None: no response (a reset)
    fault: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


class RequestLog:
    """The most recent API requests (admin requests are not logged) and a counter."""

    def __init__(self, maxlen: int = 10_000):
        self._lock = threading.Lock()
        self._entries: deque[LoggedRequest] = deque(maxlen=maxlen)
        self.count = 0  # every API request since start or clear(), beyond maxlen too

    def record(self, request: Request) -> LoggedRequest:
        entry = LoggedRequest(request.method, request.path, request.args.to_dict(),
                              dict(request.headers))
        with self._lock:
            self._entries.append(entry)
            self.count += 1
        return entry

    def for_path(self, prefix: str) -> list[LoggedRequest]:
        """Logged requests whose path starts with `prefix`."""
        return [entry for entry in self if entry.path.startswith(prefix)]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.count = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        with self._lock:
            return iter(list(self._entries))

    def __getitem__(self, index: int) -> LoggedRequest:
        with self._lock:
            return list(self._entries)[index]


# --- the WSGI application -------------------------------------------------------------

API_ROUTES = Map([
    Rule("/v1/companies", endpoint="companies", methods=["GET"]),
    Rule("/v1/products", endpoint="products", methods=["GET"]),
    Rule("/v1/companies/<plugin_key>/products", endpoint="company_products", methods=["GET"]),
])
ADMIN_ROUTES = Map([
    Rule("/_demo/stats", endpoint="stats", methods=["GET"]),
    Rule("/_demo/mutate", endpoint="mutate", methods=["POST"]),
    Rule("/_demo/companies", endpoint="add_company", methods=["POST"]),
    Rule("/_demo/companies/<plugin_key>", endpoint="company", methods=["GET", "PATCH", "DELETE"]),
    Rule("/_demo/companies/<plugin_key>/products/<sku>", endpoint="product",
         methods=["GET", "PATCH", "PUT", "DELETE"]),
    Rule("/_demo/faults", endpoint="faults", methods=["GET", "POST", "DELETE"]),
    Rule("/_demo/requests", endpoint="requests", methods=["GET", "DELETE"]),
])
NOT_JSON_BODY = "<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"


def json_response(status: int, payload: Any, headers: dict | None = None) -> Response:
    body = json.dumps(payload, separators=(",", ":")).encode()
    return Response(body, status=status, headers=headers, content_type="application/json")


def _parse_since(args) -> int | None:
    text = args.get("updated_since")
    if text is None:
        return None
    try:
        # Inclusive, and stored stamps are whole seconds: ts >= since <=> ts >= ceil(since).
        return math.ceil(parse_rfc3339(text))
    except ValueError:
        raise ApiError(400, "bad_request", "updated_since must be RFC 3339 with an offset") from None


def _parse_limit(args) -> int:
    text = args.get("limit")
    if text is None:
        return DEFAULT_LIMIT
    if not _DIGITS.match(text) or not 1 <= int(text) <= MAX_LIMIT:
        raise ApiError(400, "bad_request", f"limit must be an integer from 1 to {MAX_LIMIT}")
    return int(text)


def _default_malformed(data: list) -> list:
    """Broken records shaped like the page's own: each is invalid under the contract."""
    base = next((r for r in data if isinstance(r, dict)), {"plugin_key": "x", "updated_at": "x"})
    keys = ("plugin_key", "sku", "name")
    broken = [dict(base, updated_at="not-a-date"), {k: v for k, v in base.items() if k not in keys}]
    if "sku" in base and not base.get("deleted"):
        broken += [dict(base, price=price) for price in ("abc", "-5", "99.999")]
    return broken + ["not-an-object", None]


class UpstreamApp:
    """The WSGI app: the UPSTREAM.md list API plus the /_demo admin API."""

    def __init__(self, catalog: DemoCatalog, token: str, faults: FaultQueue,
                 requests: RequestLog, stopping: threading.Event,
                 cursor_ttl_seconds: float | None = None):
        self.catalog, self.token, self.faults, self.requests = catalog, token, faults, requests
        self.stopping = stopping
        self.cursor_ttl_seconds = cursor_ttl_seconds

    def __call__(self, environ: dict, start_response: Callable) -> Any:
        request = Request(environ)
        if request.path.startswith("/_demo/"):
            return self._admin(request)(environ, start_response)
        entry = self.requests.record(request)
        fault = self.faults.take(request.path)
        entry.fault = fault.kind if fault else None
        if fault is not None and fault.kind == "reset":
            _reset_connection(environ)
        response = self._faulted(request, fault) if fault else self._api_response(request)
        entry.status = response.status_code
        return response(environ, start_response)

    def _authorized(self, request: Request) -> bool:
        given = request.headers.get("Authorization", "").encode()
        return hmac.compare_digest(given, f"Bearer {self.token}".encode())

    def _api(self, request: Request) -> tuple[int, Any]:
        """Status and JSON payload of an API request (errors included)."""
        try:
            if not self._authorized(request):
                raise ApiError(401, "unauthorized", "missing or wrong bearer token")
            endpoint, values = API_ROUTES.bind_to_environ(request.environ).match()
            return 200, self._list(request, endpoint, **values)
        except ApiError as error:
            return error.status, error.payload()
        except HTTPException as error:  # NotFound, MethodNotAllowed from routing
            return error.code or 500, {"error": _error_name(error.code)}

    def _api_response(self, request: Request) -> Response:
        status, payload = self._api(request)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return json_response(status, payload, headers)

    def _list(self, request: Request, endpoint: str, plugin_key: str | None = None) -> dict:
        since, limit = _parse_since(request.args), _parse_limit(request.args)
        if endpoint == "companies":
            list_id, arity, fetch = "companies", 1, self.catalog.company_page
        elif endpoint == "products":
            list_id, arity, fetch = "products", 2, self.catalog.product_page
        else:
            list_id, arity = f"companies/{plugin_key}/products", 1

            def fetch(since: int | None, after: tuple | None, limit: int) -> Page:
                try:
                    return self.catalog.company_product_page(plugin_key, since, after, limit)
                except KeyError:
                    raise ApiError(404, "not_found", "unknown plugin_key") from None
        # The clock is read before the data, so a write after this page is
        # stamped no earlier than server_time and a watermark cannot skip it.
        now = self.catalog.now()
        after = self._cursor_position(request.args.get("cursor"), list_id, since, arity, now)
        page = fetch(since, after, limit)
        next_cursor = encode_cursor(list_id, since, page.last_position, now) if page.has_more else None
        return {"data": page.records, "next_cursor": next_cursor, "server_time": iso_utc(now)}

    def _cursor_position(self, text: str | None, list_id: str, since: int | None, arity: int,
                         now: int) -> tuple | None:
        if text is None:
            return None
        position, issued_at = decode_cursor(text, list_id, since, arity)
        if self.cursor_ttl_seconds is not None and now - issued_at > self.cursor_ttl_seconds:
            raise ApiError(410, "cursor_expired")
        return position

    # --- faults ---------------------------------------------------------------------

    def _faulted(self, request: Request, fault: Fault) -> Response:
        canned = {"rate_limit": (429, "rate_limited"), "cursor_expired": (410, "cursor_expired"),
                  "unauthorized": (401, "unauthorized"), "bad_request": (400, "bad_request")}
        if fault.kind in canned:
            status, error = canned[fault.kind]
            headers = {"Retry-After": str(fault.retry_after)} if status == 429 else None
            return json_response(status, {"error": error}, headers)
        if fault.kind == "status":
            return _status_response(fault)
        if fault.kind == "not_json":
            return Response(fault.body or NOT_JSON_BODY, status=fault.status or 200,
                            content_type="text/html; charset=utf-8")
        if fault.kind == "slow":
            self.stopping.wait(fault.seconds)  # stop() cuts the wait short
            return self._api_response(request)
        return self._damaged_page(request, fault)

    def _damaged_page(self, request: Request, fault: Fault) -> Response:
        """truncated, short_body, malformed_records: the real page, damaged."""
        status, payload = self._api(request)
        if fault.kind == "malformed_records":
            if isinstance(payload.get("data"), list):
                extra = fault.records if fault.records is not None else _default_malformed(payload["data"])
                payload["data"] = payload["data"] + list(extra)
            return json_response(status, payload)
        body = json_response(status, payload).get_data()
        cut = body[:max(1, int(len(body) * fault.keep))]
        # short_body promises the whole length; the server then closes the
        # connection (werkzeug sends Connection: close), so the client reads short.
        response = Response(cut, status=status, content_type="application/json")
        if fault.kind == "short_body":  # set after the body, which sets its own length
            response.headers["Content-Length"] = str(len(body))
        return response

    # --- admin -------------------------------------------------------------------------

    def _admin(self, request: Request) -> Response:
        if not self._authorized(request):
            return json_response(401, {"error": "unauthorized"}, {"WWW-Authenticate": "Bearer"})
        try:
            endpoint, values = ADMIN_ROUTES.bind_to_environ(request.environ).match()
            body = _json_body(request)
            status, payload = getattr(self, f"_admin_{endpoint}")(request, body, **values)
            return json_response(status, payload)
        except (NotFound, KeyError):
            return json_response(404, {"error": "not_found"})
        except MethodNotAllowed:
            return json_response(405, {"error": "method_not_allowed"})
        except (ValueError, TypeError) as error:
            return json_response(400, {"error": "bad_request", "message": str(error)})

    def _admin_stats(self, request: Request, body: Any) -> tuple[int, Any]:
        stats = self.catalog.stats()
        return 200, {**stats, "requests": self.requests.count, "pending_faults": len(self.faults.pending())}

    def _admin_mutate(self, request: Request, body: Any) -> tuple[int, Any]:
        options = _object(body)
        changed = self.catalog.mutate(float(options.get("fraction", 0.01)), options.get("seed"),
                                      float(options.get("company_fraction", 0.0)))
        return 200, {"changed_count": len(changed), "changed": [list(pair) for pair in changed]}

    def _admin_add_company(self, request: Request, body: Any) -> tuple[int, Any]:
        return 201, self.catalog.add_company(**_fields(body))

    def _admin_company(self, request: Request, body: Any, plugin_key: str) -> tuple[int, Any]:
        if request.method == "GET":
            company = self.catalog.get_company(plugin_key)
            return (200, company) if company else (404, {"error": "not_found"})
        if request.method == "DELETE":
            self.catalog.remove_company(plugin_key)
            return 200, {"removed": plugin_key}
        return 200, self.catalog.touch_company(plugin_key, **_fields(body))

    def _admin_product(self, request: Request, body: Any, plugin_key: str, sku: str) -> tuple[int, Any]:
        if request.method == "GET":
            product = self.catalog.get_product(plugin_key, sku)
            return (200, product) if product else (404, {"error": "not_found"})
        if request.method == "DELETE":
            return 200, self.catalog.delete_product(plugin_key, sku)
        return 200, self.catalog.set_product(plugin_key, sku, **_fields(body))

    def _admin_faults(self, request: Request, body: Any) -> tuple[int, Any]:
        if request.method == "POST":
            specs = body if isinstance(body, list) else [_object(body)]
            return 201, {"added": [self.faults.add_spec(spec).to_dict() for spec in specs]}
        if request.method == "DELETE":
            self.faults.clear()
        return 200, {"pending": [f.to_dict() for f in self.faults.pending()],
                     "fired": [list(pair) for pair in self.faults.fired]}

    def _admin_requests(self, request: Request, body: Any) -> tuple[int, Any]:
        if request.method == "DELETE":
            self.requests.clear()
        return 200, {"count": self.requests.count, "requests": [e.to_dict() for e in self.requests]}


def _json_body(request: Request) -> Any:
    """The request's JSON body (whatever its Content-Type: curl -d sends a form type)."""
    if not request.get_data():
        return None
    body = request.get_json(force=True, silent=True)
    if body is None:
        raise ValueError("the body must be JSON")
    return body


def _object(body: Any) -> dict:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    return body


def _fields(body: Any) -> dict:
    """Admin body to keyword fields; names listed in "_unset" become MISSING."""
    fields = dict(_object(body))
    unset = fields.pop("_unset", [])
    if not isinstance(unset, list):
        raise ValueError("_unset must be a list of field names")
    return {**fields, **{name: MISSING for name in unset}}


def _error_name(status: int | None) -> str:
    return HTTP_STATUS_CODES.get(status or 500, "error").lower().replace(" ", "_")


def _status_response(fault: Fault) -> Response:
    status = fault.status or 500
    if isinstance(fault.body, str):
        return Response(fault.body, status=status, headers=fault.headers, content_type="text/plain")
    payload = fault.body if fault.body is not None else {"error": _error_name(status)}
    return json_response(status, payload, fault.headers)


def _reset_connection(environ: dict) -> None:
    """Drop the connection with no response at all (the client sees a reset)."""
    sock = environ.get("werkzeug.socket")
    if sock is not None:
        # Linger 0 makes the close an RST; shutdown wakes the client now, even
        # though werkzeug still holds file objects on this socket.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)
    # werkzeug treats ConnectionError as "client went away": it writes nothing.
    raise ConnectionResetError("demo upstream fault: reset")


# --- the server ------------------------------------------------------------------------

class _QuietHandler(WSGIRequestHandler):
    """No access log line per request (tests and benchmarks make thousands)."""

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        pass


class DemoUpstream:
    """A running demo upstream: `.url`, `.catalog`, `.faults`, `.requests`, `.stop()`."""

    def __init__(self, catalog: DemoCatalog, host: str = "127.0.0.1", port: int = 0,
                 token: str = "demo-token", *, cursor_ttl_seconds: float | None = None,
                 quiet: bool = True):
        self.catalog, self.token = catalog, token
        self.faults, self.requests = FaultQueue(), RequestLog()
        self._stopping = threading.Event()
        self.app = UpstreamApp(catalog, token, self.faults, self.requests, self._stopping,
                               cursor_ttl_seconds)
        self._server = make_server(host, port, self.app, threaded=True,
                                   request_handler=_QuietHandler if quiet else None)
        self.host, self.port = host, self._server.socket.getsockname()[1]
        url_host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)
        self.url = f"http://{url_host}:{self.port}"
        self._thread: threading.Thread | None = None

    @property
    def cursor_ttl_seconds(self) -> float | None:
        """Cursors older than this answer 410 cursor_expired (None: never)."""
        return self.app.cursor_ttl_seconds

    @cursor_ttl_seconds.setter
    def cursor_ttl_seconds(self, seconds: float | None) -> None:
        self.app.cursor_ttl_seconds = seconds

    def start(self) -> DemoUpstream:
        """Serve from a daemon thread; returns self."""
        # A short poll interval keeps stop() fast (tests start many servers).
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        name="demo-upstream", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on this thread until stop() (or Ctrl-C)."""
        self._server.serve_forever()

    def stop(self) -> None:
        """Stop serving and release the port; slow faults in flight end early."""
        self._stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> DemoUpstream:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


def start_in_thread(catalog: DemoCatalog | None = None, host: str = "127.0.0.1", port: int = 0,
                    token: str = "demo-token", *, cursor_ttl_seconds: float | None = None,
                    quiet: bool = True, **gen_kwargs: Any) -> DemoUpstream:
    """Start a demo upstream on a background thread (port 0: a free port).

    Without `catalog`, one is generated from `gen_kwargs` (DemoCatalog's
    arguments: companies, products, seed, empty_companies, messiness, ...).
    """
    catalog = catalog if catalog is not None else DemoCatalog(**gen_kwargs)
    upstream = DemoUpstream(catalog, host, port, token, cursor_ttl_seconds=cursor_ttl_seconds,
                            quiet=quiet)
    return upstream.start()


def serve(host: str = "127.0.0.1", port: int = 8765, companies: int = 50, products: int = 100,
          seed: int = 1, token: str = "demo-token", *, empty_companies: int = 0,
          messiness: float = 1.0, quiet: bool = False) -> None:
    """Generate a catalog and serve it on this thread until interrupted."""
    started = time.monotonic()
    catalog = DemoCatalog(companies, products, seed, empty_companies=empty_companies,
                          messiness=messiness)
    upstream = DemoUpstream(catalog, host, port, token, quiet=quiet)
    click.echo(f"Demo upstream: {companies + empty_companies} companies, {products} products each "
               f"(seed {seed}), generated in {time.monotonic() - started:.1f}s")
    click.echo(f"  UPSTREAM_URL={upstream.url} UPSTREAM_TOKEN={token}")
    try:
        upstream.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        upstream.stop()


@click.command("demo-upstream")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int)
@click.option("--companies", default=50, show_default=True, type=click.IntRange(min=0),
              help="Companies with a catalog.")
@click.option("--products", default=100, show_default=True, type=click.IntRange(min=0),
              help="Live products per company (tombstones come on top).")
@click.option("--empty-companies", default=0, show_default=True, type=click.IntRange(min=0),
              help="Extra companies with no products.")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--token", default="demo-token", show_default=True)
@click.option("--messiness", default=1.0, show_default=True, type=click.FloatRange(min=0),
              help="Multiplier on every irregularity rate; 0 gives clean data.")
@click.option("--quiet/--verbose", default=False, help="Hide the per-request access log.")
def demo_upstream_command(host: str, port: int, companies: int, products: int,
                          empty_companies: int, seed: int, token: str, messiness: float,
                          quiet: bool) -> None:
    """Serve a seeded demo catalog over the upstream API (UPSTREAM.md)."""
    serve(host, port, companies, products, seed, token, empty_companies=empty_companies,
          messiness=messiness, quiet=quiet)


if __name__ == "__main__":
    demo_upstream_command()
