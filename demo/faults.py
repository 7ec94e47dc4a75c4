"""Faults the demo upstream injects on request, and the log of what it was asked.

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

import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any

from werkzeug.wrappers import Request

FAULT_KINDS = (
    "status",
    "rate_limit",
    "cursor_expired",
    "unauthorized",
    "bad_request",
    "slow",
    "truncated",
    "short_body",
    "not_json",
    "reset",
    "malformed_records",
)


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
        entry = LoggedRequest(request.method, request.path, request.args.to_dict(), dict(request.headers))
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
