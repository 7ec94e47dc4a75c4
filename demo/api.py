"""The platform API as the demo upstream serves it: the three list walks, cursors, and faults applied.

`GET /v1/companies`, `GET /v1/products`, `GET /v1/companies/<plugin_key>/products`
with `updated_since`, `cursor` and `limit`, as docs/contracts/upstream.md
describes them. `UpstreamApp` is the WSGI app: it hands /_demo/ to the admin
API (demo.admin) and every other request to the list API, through the fault
queue (demo.faults).
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
from collections.abc import Callable
from typing import Any

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from demo.admin import AdminApi
from demo.catalog import DemoCatalog, Page
from demo.examples import AGENT_PROFILE_PATH, agent_profile
from demo.faults import Fault, FaultQueue, RequestLog
from demo.records import iso_utc, parse_rfc3339
from demo.responses import error_name, json_response
from demo.sites import SITES_PATH, stand_in_record, stand_in_response

DEFAULT_LIMIT, MAX_LIMIT = 100, 500
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
    shape_ok = (
        isinstance(position, list)
        and len(position) == key_arity + 1
        and isinstance(position[0], int)
        and all(isinstance(k, str) for k in position[1:])
        and isinstance(issued_at, int)
    )
    if not shape_ok or cursor_list != list_id:
        raise ApiError(400, "bad_request", "cursor does not belong to this list")
    if cursor_since != since:
        raise ApiError(400, "bad_request", "cursor was issued for another updated_since")
    return tuple(position), issued_at


# --- the WSGI application -------------------------------------------------------------

API_ROUTES = Map(
    [
        Rule("/v1/companies", endpoint="companies", methods=["GET"]),
        Rule("/v1/products", endpoint="products", methods=["GET"]),
        Rule("/v1/companies/<plugin_key>/products", endpoint="company_products", methods=["GET"]),
    ]
)
NOT_JSON_BODY = "<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"


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
    """The WSGI app: the platform list API (docs/contracts/upstream.md) plus the /_demo admin API."""

    def __init__(
        self,
        catalog: DemoCatalog,
        token: str,
        faults: FaultQueue,
        requests: RequestLog,
        stopping: threading.Event,
        cursor_ttl_seconds: float | None = None,
    ):
        self.catalog, self.token, self.faults, self.requests = catalog, token, faults, requests
        self.stopping = stopping
        self.cursor_ttl_seconds = cursor_ttl_seconds
        self.admin = AdminApi(catalog, faults, requests, self._authorized)
        # The upstream's own address when it serves stand-ins for its contractors' sites (demo.sites), else None.
        self.sites_base: str | None = None

    def __call__(self, environ: dict, start_response: Callable) -> Any:
        request = Request(environ)
        if request.path.startswith("/_demo/"):
            return self.admin(request)(environ, start_response)
        if request.path == AGENT_PROFILE_PATH:  # public, like an agent's own host (docs/ucp.md)
            return json_response(200, agent_profile())(environ, start_response)
        if self.sites_base and request.path.startswith(SITES_PATH):  # public, like a contractor's own site
            return stand_in_response(request)(environ, start_response)
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
            return error.code or 500, {"error": error_name(error.code)}

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
        records = page.records
        if self.sites_base:
            records = [stand_in_record(record, self.sites_base) for record in records]
        return {"data": records, "next_cursor": next_cursor, "server_time": iso_utc(now)}

    def _cursor_position(self, text: str | None, list_id: str, since: int | None, arity: int, now: int) -> tuple | None:
        if text is None:
            return None
        position, issued_at = decode_cursor(text, list_id, since, arity)
        if self.cursor_ttl_seconds is not None and now - issued_at > self.cursor_ttl_seconds:
            raise ApiError(410, "cursor_expired")
        return position

    # --- faults ---------------------------------------------------------------------

    def _faulted(self, request: Request, fault: Fault) -> Response:
        canned = {
            "rate_limit": (429, "rate_limited"),
            "cursor_expired": (410, "cursor_expired"),
            "unauthorized": (401, "unauthorized"),
            "bad_request": (400, "bad_request"),
        }
        if fault.kind in canned:
            status, error = canned[fault.kind]
            headers = {"Retry-After": str(fault.retry_after)} if status == 429 else None
            return json_response(status, {"error": error}, headers)
        if fault.kind == "status":
            return _status_response(fault)
        if fault.kind == "not_json":
            return Response(
                fault.body or NOT_JSON_BODY, status=fault.status or 200, content_type="text/html; charset=utf-8"
            )
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
        cut = body[: max(1, int(len(body) * fault.keep))]
        # short_body promises the whole length; the server then closes the
        # connection (werkzeug sends Connection: close), so the client reads short.
        response = Response(cut, status=status, content_type="application/json")
        if fault.kind == "short_body":  # set after the body, which sets its own length
            response.headers["Content-Length"] = str(len(body))
        return response


def _status_response(fault: Fault) -> Response:
    status = fault.status or 500
    if isinstance(fault.body, str):
        return Response(fault.body, status=status, headers=fault.headers, content_type="text/plain")
    payload = fault.body if fault.body is not None else {"error": error_name(status)}
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
