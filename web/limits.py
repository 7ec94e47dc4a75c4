"""Rate limits, counted by the `limits` library, applied by the gate (web/gate.py).

The budgets (docs/operations.md, "The gate chain and rate limits"):

- per company, fairly: every keyed public request for one company, whatever
  the surface, draws on that company's budget RATE_LIMIT_PER_COMPANY
  (1000/hour), but one client (address) may spend only its own share of it,
  RATE_LIMIT_COMPANY_CLIENT_SHARE (0.25: 250/hour for that company), counted
  per company and client; all clients of the company together stop at the
  ceiling, RATE_LIMIT_COMPANY_CEILING times the budget (2: 2000/hour), which
  only many clients together reach. So no single client can black a
  contractor out for everyone. A 304 costs nothing: a conditional request is
  charged at the gate like any other (the check and the count are one
  step in the storage, so concurrent requests cannot all pass one free
  slot) and given its unit back when it ends in 304 (`refund`);
- per client, RATE_LIMIT_PER_CLIENT (600/minute): the install-wide
  endpoints (the provider MCP server `POST /mcp` and the business feed
  `/v1/businesses`), keyed by the client's address;
- per client, UCP_PROFILE_FETCHES_PER_CLIENT (30/minute): UCP calls whose
  agent profile must be fetched (a cache miss); cached profiles cost nothing.

A request is one unit of every budget it meets, charged all or nothing: a
budget that refuses gives the earlier ones their unit back, so a refused
request costs nothing.

A slow request costs more (`charge_slow_request`, after it is answered): for
every full RATE_LIMIT_SLOW_REQUEST_SHARE (0.25) of REQUEST_DEADLINE_SECONDS
(10 s) it held a worker, RATE_LIMIT_SLOW_REQUEST_UNITS (10) more units of the
client's own budgets (its share of the company, or its per-client budget):
a request stopped at its deadline costs 1 + 4 x 10 = 41. So a client cannot
hold the workers with questions that each fit the count limit; the company's
ceiling is not charged extra (other clients' requests there are not theirs
to spend). Extra units stop at what the window has left: the next request is
refused, never the budget overdrawn into the next window. A JSON-RPC batch is one unit per message: the gate
charges the first, and the transport charges each further message the same
budgets again (`charge_again`), answering the messages past a limit with
the limit's JSON-RPC error.

The limits are never declared on routes: a route decorator would run before
the view, so an unknown key would be counted, and could be refused with a 429
where it must get the same 404 as any other unknown key. Instead the gate
calls `charge_company()` only after the key resolved to a public company with
its channel open. Unknown keys therefore never reach the limiter's storage.
The hit goes straight to the `limits` library's moving-window strategy and
its storage (no Flask extension: nothing here is declared on a route, so one
would only add request hooks with nothing to do).

Storage is RATE_LIMIT_STORAGE_URI: `memory://` counts per process (the
`limits` library's memory storage, with its expiry sweep run every few
seconds rather than 10 ms after every hit, see `SweptMemoryStorage`); a
`redis://` URI shares the counts across gunicorn workers and hosts (keys
carry RATE_LIMIT_KEY_PREFIX so installs can share a Redis). The strategy is
the moving window: "1000/hour" means at most 1000 in any hour, with no
double burst at a window edge. If the storage fails, requests are served
unlimited (fail open): an outage of the counter must not become an outage of
the site. A circuit breaker keeps the outage cheap: the first failure logs
one warning and opens the breaker, and for RATE_LIMIT_STORAGE_RETRY_SECONDS
no request touches the storage; then one request tries again. A down or
hanging Redis therefore costs one warning and at most one socket time-out
per interval (per process), not a traceback and a delay per request.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import ClassVar

from flask import Flask, Response, after_this_request, current_app, g, request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, RedisStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from mirror.runtime import deadline
from mirror.runtime.config import Settings
from web.jsonrpc import RATE_LIMITED, RpcError, serialise
from web.proxies import UNKNOWN_CLIENT, parse_address
from web.responses import json_response

log = logging.getLogger(__name__)
EXTENSION = "rate_limits"
# A hung Redis must cost a request well under a second, never a worker.
REDIS_OPTIONS = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}


class RateLimited(Exception):
    """Raised by the charge functions; carries the finished 429 response, its message and Retry-After."""

    def __init__(self, response: Response, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.response, self.message, self.retry_after = response, message, retry_after

    def rpc_error(self, request_id=None) -> RpcError:
        """The limit as a JSON-RPC error (a batch's message past the limit; the body of the MCP 429)."""
        return RpcError(RATE_LIMITED, self.message, data={"retry_after": self.retry_after}, id=request_id)


class SweptMemoryStorage(MemoryStorage):
    """`memory://` exactly as the `limits` library counts it, swept for expired entries every SWEEP_SECONDS.

    The library's memory storage starts a timer thread 10 ms after any hit
    whose timer is not running, and each run walks every key: under steady
    traffic that is a new thread a hundred times a second, and a walk over
    every company's counters each time (measured: ~15% of a warm
    pricing.json request). The sweep only frees memory: a moving-window hit
    compares its own timestamps and a fixed window checks its own expiry,
    so counting is the same whenever the sweep runs. Here it runs at most
    once per SWEEP_SECONDS, on a daemon thread, so a process can always exit.
    Registered under its own scheme; `RateLimits` maps `memory://` to it.
    """

    STORAGE_SCHEME: ClassVar[list[str]] = ["mirror-memory"]  # the library registers storages by this
    SWEEP_SECONDS = 5.0
    _sweep_lock = threading.Lock()  # shared by every instance: taken at most once per sweep interval

    _next_sweep = 0.0  # monotonic time before which a sweep is already scheduled

    # The base class calls this private hook (its name is mangled) from every hit.
    def _MemoryStorage__schedule_expiry(self) -> None:
        # A clock comparison per hit; asking the timer thread whether it is
        # alive takes a lock and was most of this hook's cost.
        now = time.monotonic()
        if now < self._next_sweep:
            return
        with self._sweep_lock:
            if now < self._next_sweep or self.timer.is_alive():
                return
            self._next_sweep = now + self.SWEEP_SECONDS
            self.timer = threading.Timer(self.SWEEP_SECONDS, self._MemoryStorage__expire_events)
            self.timer.daemon = True
            self.timer.start()


def storage_uri(configured: str) -> str:
    """The storage's URI for the `limits` library: `memory://` becomes the swept memory storage; others as they are."""
    return "mirror-memory://" if configured.rstrip("/") in ("memory:", "memory") else configured


class StorageBreaker:
    """Fail-open circuit breaker around the counter's storage (one per app, shared by its budgets).

    Closed: every charge uses the storage. A failure opens it for
    `retry_seconds` (one warning, no traceback); while open, charges skip the
    storage and serve unlimited. After the interval one charge probes the
    storage again (the others keep skipping until it answers).
    """

    def __init__(self, retry_seconds: float, clock=time.monotonic) -> None:
        self.retry_seconds, self._clock = retry_seconds, clock
        self._open_until = 0.0
        self._warned_at: float | None = None
        self._lock = threading.Lock()

    def allow(self) -> bool:
        """Whether this charge may use the storage (claims the probe when the interval is over)."""
        if self._open_until == 0.0:
            return True
        with self._lock:
            now = self._clock()
            if now < self._open_until:
                return False
            self._open_until = now + self.retry_seconds  # this caller probes; the others wait for its verdict
            return True

    def failed(self, error: Exception) -> None:
        """The storage failed: open (or keep open) the breaker; one warning per interval at most."""
        with self._lock:
            now = self._clock()
            self._open_until = now + self.retry_seconds
            warn = self._warned_at is None or now - self._warned_at >= self.retry_seconds
            if warn:
                self._warned_at = now
        if warn:
            log.warning(
                "rate limit storage failed (%s: %s); serving unlimited, retrying in %g s",
                type(error).__name__,
                str(error)[:200],
                self.retry_seconds,
            )

    def succeeded(self) -> None:
        """The storage answered: close the breaker."""
        if self._open_until != 0.0:
            with self._lock:
                if self._open_until != 0.0:
                    self._open_until, self._warned_at = 0.0, None
                    log.info("rate limit storage answers again; limits apply")


def client_address() -> str:
    """The client's identity: its address (web/proxies.py decides which one that is), an IPv6 client by its /64."""
    return _client_of(request.remote_addr or "")


@functools.lru_cache(maxsize=4096)  # clients repeat: each distinct address is parsed once
def _client_of(raw: str) -> str:
    """An IP address (ports stripped, IPv4-mapped IPv6 as IPv4), an IPv6 one by its /64; anything else is one bucket."""
    address = parse_address(raw)
    if address is None:
        return UNKNOWN_CLIENT
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def scaled(limit: str, factor: float) -> list[RateLimitItem]:
    """`limit` ("1000/hour") with its amount multiplied by `factor`, at least 1 ("250/hour" for 0.25)."""
    return [
        type(item)(max(1, math.floor(item.amount * factor + 1e-9)), item.multiples, namespace=item.namespace)
        for item in parse_many(limit)
    ]


class Budget:
    """One configured limit ("1000/hour"), counted by the moving-window strategy under one scope."""

    def __init__(
        self,
        strategy: MovingWindowRateLimiter,
        prefix: str,
        items: list[RateLimitItem],
        scope: str,
        whom: str,
        breaker: StorageBreaker,
    ) -> None:
        self.strategy, self.prefix, self.scope, self.whom = strategy, prefix, scope, whom
        self.items, self.breaker = items, breaker

    def charge(self, identity: str, *, mcp: bool) -> bool:
        """Count one hit for `identity`; RateLimited (with the 429) past the limit.

        The check and the count are one step of the storage (the moving
        window's acquire: a lock in memory, a Lua script on Redis), so two
        requests can never both take the last slot. A limit of several
        items ("10/minute;100/hour") is charged all or nothing. Returns
        whether the hit was counted: False while the storage is failing
        (the breaker is open and the request is served unlimited).
        """
        if not self.breaker.allow():
            return False
        args = (self.prefix, identity, self.scope)
        strategy = self.strategy
        try:
            for index, item in enumerate(self.items):
                if not strategy.hit(item, *args):
                    reset_at = strategy.get_window_stats(item, *args).reset_time
                    _give_back(strategy.storage, [counted.key_for(*args) for counted in self.items[:index]])
                    raise RateLimited(*too_many_requests(item, reset_at, self.whom, mcp=mcp))
        except RateLimited:
            self.breaker.succeeded()
            raise
        except Exception as error:  # the counter's outage must not become the site's
            self.breaker.failed(error)
            return False
        self.breaker.succeeded()
        return True

    def charge_extra(self, identity: str, units: int) -> None:
        """Count `units` more hits for `identity`, as many as the window has room for; never refuses or raises."""
        if not self.breaker.allow():
            return
        args = (self.prefix, identity, self.scope)
        try:
            for item in self.items:
                room = min(units, self.strategy.get_window_stats(item, *args).remaining)
                if room > 0:
                    self.strategy.hit(item, *args, cost=room)
        except Exception as error:  # the counter's outage must not become the site's
            self.breaker.failed(error)
            return
        self.breaker.succeeded()

    def keys(self, identity: str) -> list[str]:
        """The storage keys one hit of `identity` counts under (one per item of the limit)."""
        return [item.key_for(self.prefix, identity, self.scope) for item in self.items]


def refund(counted: list[tuple[Budget, str]]) -> None:
    """Give back one counted hit of each (budget, identity): a 304, or a later budget's refusal; never raises.

    All of them in one step of the storage (one round trip on Redis).
    """
    if not counted:
        return
    breaker, storage = counted[0][0].breaker, counted[0][0].strategy.storage
    if not breaker.allow():
        return
    try:
        _give_back(storage, [key for budget, identity in counted for key in budget.keys(identity)])
    except Exception as error:
        breaker.failed(error)
        return
    breaker.succeeded()


def _give_back(storage, keys: list[str]) -> None:
    """Drop the newest entry of each moving-window key.

    The newest, not necessarily the caller's own: entries differ only by
    their time, so the count is exact at once, and for the rest of the
    window it is at most one lower than it would be (a slot frees when the
    older entry expires). Other storages keep the hit (a 304 then costs one:
    never more than the limit, only less generous).
    """
    if not keys:
        return
    if isinstance(storage, RedisStorage):
        pipeline = storage.get_connection().pipeline(transaction=False)
        for key in keys:
            pipeline.lpop(storage.prefixed_key(key))
        pipeline.execute()
    elif isinstance(storage, MemoryStorage):
        for key in keys:
            with storage.locks[key]:
                entries = storage.events.get(key)
                if entries:
                    del entries[0]  # the list is newest first


@dataclass(frozen=True)
class Charged:
    """The budgets one request was charged (each with the identity counted), for a batch's further messages."""

    budgets: tuple[tuple[Budget, str], ...]
    mcp: bool


def _charge_unit(budgets: tuple[tuple[Budget, str], ...], *, mcp: bool) -> list[tuple[Budget, str]]:
    """One unit of every budget, in order, all or nothing; the (budget, identity) pairs counted."""
    counted: list[tuple[Budget, str]] = []
    try:
        for budget, identity in budgets:
            if budget.charge(identity, mcp=mcp):
                counted.append((budget, identity))
    except RateLimited:
        refund(counted)
        raise
    return counted


class RateLimits:
    """One app's counters (the `limits` library's storage and moving-window strategy) and its budgets."""

    def __init__(self, settings: Settings) -> None:
        redis = settings.rate_limit_storage_uri.startswith(("redis", "rediss"))
        self.storage: Storage = storage_from_string(
            storage_uri(settings.rate_limit_storage_uri), **(dict(REDIS_OPTIONS) if redis else {})
        )
        self.strategy = MovingWindowRateLimiter(self.storage)
        prefix = settings.rate_limit_key_prefix
        self.breaker = StorageBreaker(settings.rate_limit_storage_retry_seconds)
        self.slow_share = settings.rate_limit_slow_request_share
        self.slow_units = settings.rate_limit_slow_request_units

        def budget(items: list[RateLimitItem], scope: str, whom: str) -> Budget:
            return Budget(self.strategy, prefix, items, scope, whom, self.breaker)

        company = settings.rate_limit_per_company
        self.per_company_client = budget(
            scaled(company, settings.rate_limit_company_client_share), "company-client", "this client at this company"
        )
        self.per_company = budget(scaled(company, settings.rate_limit_company_ceiling), "company", "this company")
        self.per_client = budget(parse_many(settings.rate_limit_per_client), "client", "this client")
        self.profile_fetches = budget(
            parse_many(settings.ucp_profile_fetches_per_client), "profile-fetch", "this client's agent-profile fetches"
        )

    def charge_company(self, plugin_key: str, *, mcp: bool = False) -> None:
        """Count one request against a (public) company's budgets; RateLimited past either.

        First the client's own share of the company (per company and
        client), then the company-wide ceiling, all or nothing: a client
        refused for its share spends nothing of the ceiling, and one refused
        at the ceiling gets its share back. A conditional request (a
        revalidation) is charged like any other and refunded when it ends in
        304, which costs nothing.
        """
        identity = f"{plugin_key}/{client_address()}"
        budgets = ((self.per_company_client, identity), (self.per_company, plugin_key))
        counted = self._charge(budgets, mcp=mcp)
        self._note_client_budget(self.per_company_client, identity)
        environ = request.environ  # the two headers straight from the environ: one lookup each
        conditional = not mcp and bool(environ.get("HTTP_IF_NONE_MATCH") or environ.get("HTTP_IF_MODIFIED_SINCE"))
        if conditional and counted:

            @after_this_request
            def refund_if_not_modified(response: Response) -> Response:
                if response.status_code == 304:  # before it is sent: the client's next request sees the unit back
                    refund(counted)
                return response

    def charge_client(self, *, mcp: bool = False) -> None:
        """Count one request against this client's budget; RateLimited past it."""
        identity = client_address()
        self._charge(((self.per_client, identity),), mcp=mcp)
        self._note_client_budget(self.per_client, identity)

    def charge_profile_fetch(self) -> None:
        """Count one agent-profile fetch against this client's budget; RateLimited past it."""
        _charge_unit(((self.profile_fetches, client_address()),), mcp=True)

    def charge_again(self) -> None:
        """One more unit of every budget this request was charged (a batch's next message); RateLimited past one."""
        charged = g.get(_CHARGED)
        if charged is not None:
            _charge_unit(charged.budgets, mcp=charged.mcp)

    def _charge(self, budgets: tuple[tuple[Budget, str], ...], *, mcp: bool) -> list[tuple[Budget, str]]:
        counted = _charge_unit(budgets, mcp=mcp)
        if mcp:  # only JSON-RPC has batches: the request's own budgets, for charge_again
            g.setdefault(_CHARGED, Charged(budgets, mcp))
        return counted

    def _note_client_budget(self, budget: Budget, identity: str) -> None:
        """Remember a client budget this request was charged; the first one arranges the slow-request charge.

        Only requests that met a client budget pay for the hook (no app-wide
        after-request pass), and a refused request never reaches it.
        """
        charged = g.get(_CLIENT_BUDGETS)
        if charged is None:
            charged = g.setdefault(_CLIENT_BUDGETS, [])
            if self.slow_units > 0:
                after_this_request(self._charge_slow_request)
        charged.append((budget, identity))

    def _charge_slow_request(self, response: Response) -> Response:
        try:
            self.charge_slow_request()
        except Exception:  # charging must never change the answer
            log.warning("slow request not charged", exc_info=True)
        return response

    def charge_slow_request(self) -> None:
        """After the answer: the client's own budgets this request met, charged for the time it held a worker.

        RATE_LIMIT_SLOW_REQUEST_UNITS units for every full
        RATE_LIMIT_SLOW_REQUEST_SHARE of the request's deadline it spent
        (nothing for a quick one, or outside a deadline).
        """
        charged = g.get(_CLIENT_BUDGETS)
        running = deadline.current()
        if not charged or running is None:
            return
        share, units_per_share = self.slow_share, self.slow_units
        spent = min(running.elapsed(), running.seconds)  # stopped at the deadline: it holds no worker past it
        shares = math.floor(spent / (share * running.seconds) + 1e-9)
        if shares <= 0:
            return
        for budget, identity in dict.fromkeys(charged):  # a budget met twice (a batch) is charged once for the time
            budget.charge_extra(identity, shares * units_per_share)


_CHARGED = "rate_limit_charged"
_CLIENT_BUDGETS = "rate_limit_client_budgets"


def too_many_requests(item: RateLimitItem, reset_at: float, whom: str, *, mcp: bool) -> tuple[Response, str, int]:
    """The 429 (JSON, a JSON-RPC error on MCP endpoints, with Retry-After in seconds), its message and Retry-After."""
    retry_after = max(1, math.ceil(reset_at - time.time()))  # seconds until a slot frees
    message = f"Rate limit exceeded for {whom} ({item}); retry after {retry_after} s."
    if mcp:
        error = RpcError(RATE_LIMITED, message, data={"retry_after": retry_after})
        response = json_response(serialise(error.body()), 429)
    else:
        response = json_response({"error": "rate_limited", "message": message, "retry_after": retry_after}, 429)
    response.headers["Retry-After"] = str(retry_after)
    response.headers["Cache-Control"] = "no-store"
    return response, message, retry_after


def init_rate_limits(app: Flask, settings: Settings) -> RateLimits:
    """Create the app's counters and budgets (call once, in create_app)."""
    limits = RateLimits(settings)
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


def charge_again() -> None:
    """A batch's next message: this request's budgets once more; RateLimited (not an abort) past one."""
    rate_limits().charge_again()
