"""The per-request deadline: one clock every read and loop of a request obeys.

A request's work is bounded by REQUEST_DEADLINE_SECONDS (mirror/runtime/config.py).
The web layer starts the clock when a request arrives (`started`) and stops
it when the request ends; everything below reads it through this module,
which knows nothing of HTTP:

- `check_deadline()`: the cheap Python check (a context-variable read and a
  clock read) called where a request loops over data (answer building, the
  search loops, each message of a JSON-RPC batch) and before each database
  statement; past the deadline it raises `DeadlineExceeded`;
- the database statement itself is cut at the deadline by the database
  (`bound_statements(engine)`, installed on the readers' engine):
  `statement_timeout` set from the request's remaining time (per
  transaction with `SET LOCAL`, per autocommit reader connection with `SET`,
  reset when no deadline runs). The cancelled statement (psycopg's
  QueryCanceled) becomes `DeadlineExceeded` too.

Outside a request (the sync, the CLI, the scheduler) no deadline runs:
every check passes and no statement is bounded.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from psycopg import errors as psycopg_errors
from sqlalchemy import event
from sqlalchemy.engine import Engine


class DeadlineExceeded(Exception):
    """The request ran past its deadline: its work stops here (the web layer answers 503 with Retry-After)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request ran past its deadline of {seconds:g} s")
        self.seconds = seconds


@dataclass
class Deadline:
    """One request's clock: when it started, how long it may take, and whether it ran out."""

    seconds: float
    started: float = field(default_factory=time.monotonic)
    exceeded: bool = False

    @property
    def expires(self) -> float:
        """The monotonic time the request must be done by."""
        return self.started + self.seconds

    def remaining(self) -> float:
        """Seconds left (negative once past)."""
        return self.expires - time.monotonic()

    def elapsed(self) -> float:
        """Seconds spent so far."""
        return time.monotonic() - self.started

    def expired(self) -> DeadlineExceeded:
        """Mark the deadline as reached; the exception to raise."""
        self.exceeded = True
        return DeadlineExceeded(self.seconds)


_CURRENT: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("mirror_request_deadline", default=None)


def start(seconds: float) -> contextvars.Token:
    """Start a deadline for the work of this thread (a request); `finish(token)` when it ends."""
    return _CURRENT.set(Deadline(seconds))


def finish(token: contextvars.Token) -> None:
    """End the deadline `start` returned the token of."""
    _CURRENT.reset(token)


@contextmanager
def deadline(seconds: float) -> Iterator[Deadline]:
    """`start` and `finish` around a block (tests, and work run outside a request that wants a bound)."""
    token = start(seconds)
    try:
        yield _CURRENT.get()
    finally:
        finish(token)


def current() -> Deadline | None:
    """The running deadline, or None (no request: the sync, the CLI)."""
    return _CURRENT.get()


def check_deadline() -> None:
    """Raise DeadlineExceeded when the running deadline has passed; nothing otherwise (and outside a request)."""
    running = _CURRENT.get()
    if running is not None and time.monotonic() >= running.started + running.seconds:
        raise running.expired()


# --- the database's side -----------------------------------------------------------------------

# statement_timeout is set in steps of this many milliseconds, rounded up: the
# statements of requests that start within one step of each other share a
# value, so an autocommit reader connection re-sets it only when a statement
# starts late in its request (or the previous one did), not for every request.
TIMEOUT_STEP_MS = 100


def statement_timeout_ms() -> int | None:
    """The statement_timeout a statement starting now gets (ms, at least one step); None without a deadline.

    Raises DeadlineExceeded when the deadline has already passed: no statement starts after it.
    """
    running = _CURRENT.get()
    if running is None:
        return None
    left = running.remaining()
    if left <= 0:
        raise running.expired()
    return max(1, math.ceil(left * 1000 / TIMEOUT_STEP_MS)) * TIMEOUT_STEP_MS


def cancelled_for_deadline(error: BaseException) -> bool:
    """Whether a database error is a statement cut by the running deadline (statement_timeout)."""
    return _CURRENT.get() is not None and isinstance(error, psycopg_errors.QueryCanceled)


def deadline_error(error: BaseException) -> DeadlineExceeded:
    """The DeadlineExceeded a cancelled statement stands for (call when `cancelled_for_deadline(error)`)."""
    running = _CURRENT.get()
    return running.expired() if running is not None else DeadlineExceeded(0)


def bound_statements(engine: Engine) -> None:
    """Bound every statement the engine runs for a request by the request's remaining time.

    `SET LOCAL statement_timeout` at the start of each transaction a
    request opens, and again before a statement when the request's
    remaining time has fallen more than a step below it; the setting ends
    with the transaction, so the pool hands out connections as they were.
    A statement never starts past the deadline, and a cancelled one raises
    DeadlineExceeded instead of the driver's error.
    """
    event.listen(engine, "begin", _bound_transaction)
    event.listen(engine, "before_cursor_execute", _bound_statement)
    event.listen(engine, "handle_error", _deadline_instead)


_TIMEOUT_KEY = "mirror_statement_timeout_ms"


def _bound_transaction(connection) -> None:
    timeout = statement_timeout_ms()
    connection.info.pop(_TIMEOUT_KEY, None)
    if timeout is not None:
        _set_local(connection.connection.driver_connection, connection.info, timeout)


def _bound_statement(connection, cursor, _statement, _parameters, _context, _executemany) -> None:
    timeout = statement_timeout_ms()
    if timeout is None:
        return
    current_timeout = connection.info.get(_TIMEOUT_KEY)
    if current_timeout is not None and current_timeout - timeout > TIMEOUT_STEP_MS:
        _set_local(cursor.connection, connection.info, timeout)


def _set_local(driver_connection, info: dict, timeout: int) -> None:
    driver_connection.execute(f"SET LOCAL statement_timeout = {int(timeout)}")
    info[_TIMEOUT_KEY] = timeout


def _deadline_instead(context) -> None:
    if cancelled_for_deadline(context.original_exception):
        raise deadline_error(context.original_exception) from context.original_exception
