"""The demo upstream's admin API (/_demo/...): read and change the catalog, queue faults, read the log.

Same bearer token as the platform API; never logged, never faulted; JSON
bodies. The routes are listed in demo.server's docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from demo.catalog import DemoCatalog
from demo.faults import FaultQueue, RequestLog
from demo.records import MISSING
from demo.responses import json_response

ADMIN_ROUTES = Map(
    [
        Rule("/_demo/stats", endpoint="stats", methods=["GET"]),
        Rule("/_demo/mutate", endpoint="mutate", methods=["POST"]),
        Rule("/_demo/companies", endpoint="add_company", methods=["POST"]),
        Rule("/_demo/companies/<plugin_key>", endpoint="company", methods=["GET", "PATCH", "DELETE"]),
        Rule(
            "/_demo/companies/<plugin_key>/products/<sku>",
            endpoint="product",
            methods=["GET", "PATCH", "PUT", "DELETE"],
        ),
        Rule("/_demo/faults", endpoint="faults", methods=["GET", "POST", "DELETE"]),
        Rule("/_demo/requests", endpoint="requests", methods=["GET", "DELETE"]),
    ]
)


class AdminApi:
    """The /_demo/ endpoints over one catalog, fault queue and request log."""

    def __init__(
        self, catalog: DemoCatalog, faults: FaultQueue, requests: RequestLog, authorized: Callable[[Request], bool]
    ):
        self.catalog, self.faults, self.requests = catalog, faults, requests
        self.authorized = authorized

    def __call__(self, request: Request) -> Response:
        """The admin answer to a /_demo/ request."""
        return self._admin(request)

    def _admin(self, request: Request) -> Response:
        if not self.authorized(request):
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
        changed = self.catalog.mutate(
            float(options.get("fraction", 0.01)), options.get("seed"), float(options.get("company_fraction", 0.0))
        )
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
        return 200, {
            "pending": [f.to_dict() for f in self.faults.pending()],
            "fired": [list(pair) for pair in self.faults.fired],
        }

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
    return {**fields, **dict.fromkeys(unset, MISSING)}
