"""Rate limits, counted by Flask-Limiter, applied by the gate (web/gate.py).

Two budgets (names and defaults: docs/contracts/surfaces.md):

- per company, RATE_LIMIT_PER_COMPANY (1000/hour): every keyed public
  request for one company, whatever the surface, draws on one budget;
- per client, RATE_LIMIT_PER_CLIENT (600/minute): the install-wide
  endpoints (the provider MCP server `POST /mcp` and the business feed
  `/v1/businesses`), keyed by the client's address.

The limits are never declared on routes: a route decorator would run before
the view, so an unknown key would be counted, and could be refused with a 429
where it must get the same 404 as any other unknown key. Instead the gate
calls `charge_company()` only after the key resolved to a public company with
its channel open. Unknown keys therefore never reach the limiter's storage.
The hit goes straight to the Limiter's configured rate-limiting strategy
(`Limiter.limiter`, the `limits` library), under the keys Flask-Limiter's own
decorators would use: its context-manager form costs a stack walk and a full
limit resolution per request, several times the price of the hit itself.

Storage is RATE_LIMIT_STORAGE_URI: `memory://` counts per process; a
`redis://` URI shares the counts across gunicorn workers and hosts (keys
carry RATE_LIMIT_KEY_PREFIX so installs can share a Redis). The strategy is
the moving window: "1000/hour" means at most 1000 in any hour, with no
double burst at a window edge. If the storage fails, requests are served
unlimited and the failure is logged (fail open): an outage of the counter
must not become an outage of the site.
"""
from __future__ import annotations

import ipaddress
import logging
import math
import time

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter
from limits import RateLimitItem, parse_many

from mirror.config import Settings
from web.responses import dumps, json_response

log = logging.getLogger(__name__)
EXTENSION = "rate_limits"
# A hung Redis must cost a request well under a second, never a worker.
REDIS_OPTIONS = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
RATE_LIMITED_RPC_CODE = -32000  # JSON-RPC "server error" range: no standard code for this


class RateLimited(Exception):
    """Raised by the charge functions; carries the finished 429 response."""

    def __init__(self, response: Response) -> None:
        super().__init__("rate limited")
        self.response = response


def client_address() -> str:
    """The client's address, an IPv6 client by its /64 (one host's usual share)."""
    raw = request.remote_addr or "unknown"
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw[:64]
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Budget:
    """One configured limit ("1000/hour"), counted in the limiter's storage under one scope."""

    def __init__(self, limiter: Limiter, prefix: str, limit: str, scope: str, whom: str) -> None:
        self.limiter, self.prefix, self.scope, self.whom = limiter, prefix, scope, whom
        self.items = parse_many(limit)

    def charge(self, identity: str, *, mcp: bool) -> None:
        """Count one hit for `identity`; RateLimited (with the 429) past the limit.

        The counting is Flask-Limiter's: its configured strategy and storage,
        under the same keys its decorators would use. A storage failure is
        logged and the request served (fail open).
        """
        args = (self.prefix, identity, self.scope)
        try:
            for item in self.items:
                if not self.limiter.limiter.hit(item, *args):
                    reset_at = self.limiter.limiter.get_window_stats(item, *args).reset_time
                    raise RateLimited(too_many_requests(item, reset_at, self.whom, mcp=mcp))
        except RateLimited:
            raise
        except Exception:  # the counter's outage must not become the site's
            log.warning("rate limit storage failed; serving unlimited", exc_info=True)


class RateLimits:
    """One app's limiter (Flask-Limiter, configured from the settings) and its two budgets."""

    def __init__(self, app: Flask, settings: Settings) -> None:
        redis = settings.rate_limit_storage_uri.startswith(("redis", "rediss"))
        self.limiter = Limiter(
            key_func=client_address,
            storage_uri=settings.rate_limit_storage_uri,
            storage_options=dict(REDIS_OPTIONS) if redis else {},
            strategy="moving-window",
            key_prefix=settings.rate_limit_key_prefix,
            headers_enabled=False,  # varying headers would defeat CDN caching and ETag sameness
            swallow_errors=True,
        )
        self.limiter.init_app(app)
        _drop_request_hooks(app, self.limiter)
        prefix = settings.rate_limit_key_prefix
        self.per_company = Budget(self.limiter, prefix, settings.rate_limit_per_company, "company", "this company")
        self.per_client = Budget(self.limiter, prefix, settings.rate_limit_per_client, "client", "this client")

    def charge_company(self, plugin_key: str, *, mcp: bool = False) -> None:
        """Count one request against a (public) company's budget; RateLimited past it."""
        self.per_company.charge(plugin_key, mcp=mcp)

    def charge_client(self, *, mcp: bool = False) -> None:
        """Count one request against this client's budget; RateLimited past it."""
        self.per_client.charge(client_address(), mcp=mcp)


def _drop_request_hooks(app: Flask, limiter: Limiter) -> None:
    """Remove the extension's before/after/teardown request hooks from the app.

    They look for limits declared on routes, headers to add and deductions to
    make; there are none here (every count happens in the gate), yet the pass
    cost more per request than the counting itself (about 8% of a pricing.json
    answer). Matched by the bound instance, not by name, so a future
    Flask-Limiter only makes this a no-op.
    """
    def belongs(hook) -> bool:
        bound = getattr(hook, "__self__", None)
        partial_args = getattr(hook, "args", None) or (None,)
        return bound is limiter or partial_args[0] is limiter

    for registry in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs):
        registry[None] = [hook for hook in registry.get(None, []) if not belongs(hook)]


def too_many_requests(item: RateLimitItem, reset_at: float, whom: str, *, mcp: bool) -> Response:
    """The 429: JSON (JSON-RPC shaped on MCP endpoints) with Retry-After in seconds."""
    retry_after = max(1, math.ceil(reset_at - time.time()))  # seconds until a slot frees
    message = f"Rate limit exceeded for {whom} ({item}); retry after {retry_after} s."
    if mcp:
        body = {"jsonrpc": "2.0", "id": None,
                "error": {"code": RATE_LIMITED_RPC_CODE, "message": message, "data": {"retry_after": retry_after}}}
        response = json_response(dumps(body), 429)
    else:
        response = json_response({"error": "rate_limited", "message": message, "retry_after": retry_after}, 429)
    response.headers["Retry-After"] = str(retry_after)
    response.headers["Cache-Control"] = "no-store"
    return response


def init_rate_limits(app: Flask, settings: Settings) -> RateLimits:
    """Create the app's limiter (call once, in create_app)."""
    limits = RateLimits(app, settings)
    app.extensions[EXTENSION] = limits
    return limits


def rate_limits() -> RateLimits:
    """The current app's RateLimits."""
    return current_app.extensions[EXTENSION]


def charge_client(*, mcp: bool = False) -> None:
    """The install-wide endpoints' gate: count this client, abort with the 429 past its budget."""
    from flask import abort

    try:
        rate_limits().charge_client(mcp=mcp)
    except RateLimited as limited:
        abort(limited.response)
