"""HTTP client for the upstream catalog API (docs/contracts/upstream.md).

One pooled `requests.Session`; each list is walked page by page. Transient
failures are retried with backoff a bounded number of times, 429s wait as told,
an expired cursor restarts that walk, and anything that means "the client is
wrong" (400, 401) stops the run at once.

The retry rule, by what failed (docs/core.md, "Failures"):

- the connection could not be opened (refused: nothing listens there; the
  name does not resolve; no answer to the connect within the connect
  time-out) before the upstream has answered this client once: no retry,
  UpstreamUnreachable at once. A wrong UPSTREAM_URL, or the `.flaskenv` of a
  stopped `make run`, is then one line at once instead of 17 s of backoff,
  and a failed first request has cost the run nothing it would lose;
- the same after the upstream has answered once (a restart in the middle of
  a walk), resets, read time-outs, bodies cut short, 5xx and 408: retried
  with exponential backoff, `max_retries` times, then UpstreamUnreachable;
- 429: waits as told; 400, 401 and other 4xx: the run stops at once.

Every request and every walk is bounded (docs/operations.md, "The sync's
bounds"): a page must arrive whole within its deadline (read in bounded
reads, so a body dripped a byte at a time is a time-out, not a wait of
hours), a body past the page cap is refused as it streams in (never
buffered past the cap), a cursor the walk has already been given ends the
run (a loop would walk forever), and no request starts, and no wait runs,
past the run's deadline (`start_deadline`).

In urllib3's terms (should its Retry replace the loop below) the first rule
is `Retry(connect=0)` until the first response, `Retry(connect=max_retries)`
after it: its `connect` errors are exactly "the connection could not be opened".
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

import orjson
import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError

from mirror.runtime.config import default
from mirror.values.timestamps import parse_rfc3339, rfc3339

log = logging.getLogger(__name__)

PAGE_LIMIT = 500
BODY_READ_SIZE = 1 << 20
# Resets, time-outs and bodies cut short: all transient. (A body is read
# from urllib3 directly, whose errors requests does not wrap there.)
_NETWORK_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
    urllib3.exceptions.HTTPError,
)


class UpstreamError(RuntimeError):
    """The run cannot go on (after bounded retries, or a client error)."""


class UpstreamUnreachable(UpstreamError):
    """Nothing answered: the first connection could not be opened, or every retry failed."""


class UpstreamAuthError(UpstreamError):
    """401: the token was refused."""


class UpstreamNotFound(UpstreamError):
    """404 on a per-company list: the company is gone."""


class UpstreamBoundExceeded(UpstreamError):
    """The upstream broke one of the sync's bounds (a page too large, a cursor loop, the run's deadline)."""


class _Transient(Exception):
    """A failure worth retrying."""


class _CursorExpired(Exception):
    """410 cursor_expired: restart the walk."""


@dataclass(frozen=True)
class Page:
    """One page of a list walk."""

    data: list
    next_cursor: str | None
    server_time: datetime


class UpstreamClient:
    """Walks the upstream's list endpoints."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: tuple[float, float] = (5.0, 30.0),
        max_retries: int = 5,
        backoff_seconds: float = 0.5,
        max_wait_seconds: float = 60.0,
        max_cursor_restarts: int = 5,
        page_limit: int = PAGE_LIMIT,
        page_deadline_seconds: float = default("upstream_page_deadline_seconds"),
        max_page_bytes: int = default("upstream_max_page_bytes"),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        # A read time-out longer than the page's deadline could not be kept.
        self.timeout = (timeout[0], min(timeout[1], page_deadline_seconds))
        self.page_deadline_seconds = page_deadline_seconds
        self.max_page_bytes = max_page_bytes
        self.deadline: float | None = None  # time.monotonic() the run must end walking by (start_deadline)
        self.deadline_seconds: float | None = None
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.max_wait_seconds = max_wait_seconds
        self.max_cursor_restarts = max_cursor_restarts
        self.page_limit = page_limit
        self.sleep = sleep
        self.requests_made = 0
        self.answered = False  # has the upstream answered this client once (any status)?
        self.session = requests.Session()
        self.session.mount("http://", HTTPAdapter(pool_connections=2, pool_maxsize=4, max_retries=0))
        self.session.mount("https://", HTTPAdapter(pool_connections=2, pool_maxsize=4, max_retries=0))
        self.session.headers.update({"Authorization": f"Bearer {token}", "Accept": "application/json"})

    def close(self) -> None:
        """Release pooled connections."""
        self.session.close()

    def start_deadline(self, seconds: float) -> None:
        """From now, no request starts and no wait runs past `seconds` (the run's deadline)."""
        self.deadline_seconds = seconds
        self.deadline = time.monotonic() + seconds

    def _check_deadline(self, path: str, wait: float = 0.0) -> None:
        """Raise UpstreamBoundExceeded when the run's deadline has passed (or would, after `wait` seconds)."""
        if self.deadline is not None and time.monotonic() + wait > self.deadline:
            raise UpstreamBoundExceeded(
                f"{path}: the run passed its deadline of {self.deadline_seconds:g} s "
                "(SYNC_RUN_DEADLINE_SECONDS); the run stops"
            )

    def _sleep(self, path: str, seconds: float) -> None:
        self._check_deadline(path, seconds)
        self.sleep(seconds)

    def walk(self, path: str, updated_since: datetime | None = None) -> Iterator[Page]:
        """Yield every page of a list, restarting it when the cursor expires.

        Records of a restarted walk come again; the sync applies the last
        version it sees, so repeats are harmless.
        """
        for _attempt in range(self.max_cursor_restarts + 1):
            try:
                yield from self._walk_once(path, updated_since)
                return
            except _CursorExpired:
                log.warning("cursor expired on %s; restarting the walk", path)
        raise UpstreamError(f"{path}: cursor kept expiring after {self.max_cursor_restarts} restarts")

    def _walk_once(self, path: str, updated_since: datetime | None) -> Iterator[Page]:
        params: dict[str, str | int] = {"limit": self.page_limit}
        if updated_since is not None:
            params["updated_since"] = rfc3339(updated_since)
        # Every cursor of this walk: one given twice would lead round the same pages forever.
        cursors: set[str] = set()
        while True:
            page = self._get_page(path, params)
            yield page
            if page.next_cursor is None:
                return
            if page.next_cursor in cursors:
                raise UpstreamBoundExceeded(
                    f"{path}: the upstream gave a cursor it had already given in this walk "
                    f"(a cursor loop, after {len(cursors) + 1} pages); the run stops"
                )
            cursors.add(page.next_cursor)
            params = {**params, "cursor": page.next_cursor}

    def _get_page(self, path: str, params: dict) -> Page:
        failures = 0
        throttles = 0
        while True:
            try:
                return self._request_page(path, params)
            except _Transient as error:
                failures += 1
                if failures > self.max_retries:
                    raise UpstreamUnreachable(f"{path}: upstream kept failing ({error})") from None
                delay = self.backoff_seconds * (2 ** (failures - 1)) * (1 + random.random() / 4)
                log.warning("upstream %s failed (%s); retry %d in %.2fs", path, error, failures, delay)
                self._sleep(path, delay)
            except _Throttled as throttle:
                throttles += 1
                if throttles > self.max_retries * 4:
                    raise UpstreamError(f"{path}: upstream kept throttling") from None
                self._sleep(path, min(throttle.seconds, self.max_wait_seconds))

    def _request_page(self, path: str, params: dict) -> Page:
        self._check_deadline(path)
        self.requests_made += 1
        try:
            response = self.session.get(self.base_url + path, params=params, timeout=self.timeout, stream=True)
            try:
                status = response.status_code
                body = self._read_body(response, path, time.monotonic() + self.page_deadline_seconds)
            finally:
                response.close()  # a body left unread (refused, or too slow) must not go back to the pool
        except _NETWORK_ERRORS as error:
            never_opened = _connect_failure(error)
            if never_opened and not self.answered:
                raise UpstreamUnreachable(f"{path}: {never_opened}") from None
            raise _Transient(never_opened or type(error).__name__) from None
        self.answered = True
        if status == 200:
            return _parse_page(body)
        if status == 429:
            raise _Throttled(_retry_after(response.headers.get("Retry-After")))
        if status == 410 and _error_code(body) == "cursor_expired":
            raise _CursorExpired()
        if status == 401:
            raise UpstreamAuthError(f"{path}: 401 the upstream refused the token")
        if status == 404:
            raise UpstreamNotFound(f"{path}: 404 not found")
        if status >= 500 or status == 408:
            raise _Transient(f"HTTP {status}")
        raise UpstreamError(f"{path}: HTTP {status} (a client error; the run stops)")

    def _read_body(self, response: requests.Response, path: str, page_deadline: float) -> bytearray:
        """The whole body, read as a stream: refused past `max_page_bytes`, a time-out past `page_deadline`.

        Each read returns what one read of the socket gives (`read1`), at
        most BODY_READ_SIZE, so the deadline is checked between reads however
        slowly the bytes come; a large read gives up the GIL once, where
        requests' 10 KiB reads each had to win it back from the thread
        writing the previous page. Bytes are counted as decoded, so a
        compressed body cannot inflate past the cap either.
        """
        body = bytearray()
        while chunk := response.raw.read1(BODY_READ_SIZE):
            body += chunk
            if len(body) > self.max_page_bytes:
                raise UpstreamBoundExceeded(
                    f"{path}: a page larger than {self.max_page_bytes:,} bytes (UPSTREAM_MAX_PAGE_BYTES) was "
                    "refused; the run stops"
                )
            if time.monotonic() > page_deadline:
                raise _Transient(
                    f"a page not read whole within {self.page_deadline_seconds:g} s (UPSTREAM_PAGE_DEADLINE_SECONDS)"
                )
        return body


def _connect_failure(error: Exception) -> str | None:
    """Why the connection was never opened (no byte of the request was sent), or None when it was."""
    reason = getattr(error.args[0], "reason", None) if error.args else None
    if isinstance(reason, NameResolutionError):
        return "the host name does not resolve"
    if not isinstance(reason, ConnectTimeoutError):  # urllib3's connect errors: NewConnectionError is one
        return None
    cause = reason.__cause__ or reason.__context__
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused: nothing listens there"
    return f"could not connect ({cause or reason})"


class _Throttled(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def _retry_after(header: str | None) -> float:
    try:
        return max(0.0, float(header)) if header is not None else 1.0
    except ValueError:
        return 1.0


def _error_code(body: bytes | bytearray) -> str | None:
    try:
        payload = loads(body)
    except (ValueError, RecursionError):
        return None
    return payload.get("error") if isinstance(payload, dict) else None


def loads(body: bytes | bytearray):
    """Decode a JSON body: orjson, with the standard library for what it refuses.

    orjson reads a 500-record page several times faster than `json`. It
    refuses a few things `json` accepts (NaN, Infinity, lone surrogates);
    those bodies are decoded by `json` exactly as before, so no body that
    parsed before is now malformed. A value nested deeper than either
    parser follows (orjson stops at 1,024 levels, `json` at Python's
    recursion limit) would make the whole page unreadable, so one record
    would stop every run: its too-deep parts become null instead
    (`_without_deep_values`), and the record models then judge the field.
    Raises ValueError when the body is not JSON.
    """
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        try:
            return json.loads(body)
        except RecursionError:
            return json.loads(_without_deep_values(body, MAX_DECODE_DEPTH))


# Deeper than this, a JSON value of a page is replaced by null (no field of the contract nests past a few levels).
MAX_DECODE_DEPTH = 256
_QUOTE, _BACKSLASH, _OPENERS, _CLOSERS = 0x22, 0x5C, (0x5B, 0x7B), (0x5D, 0x7D)


def _without_deep_values(body: bytes, limit: int) -> bytes:
    """The JSON text with every array or object that opens deeper than `limit` replaced by `null`.

    A byte scan (JSON's structural characters are ASCII, and no UTF-8
    sequence holds an ASCII byte), iterative so it has no depth limit of its
    own; a body that is not JSON stays not JSON. Used only on the rare page
    the parsers refuse for depth.
    """
    out, start, depth, cut_at, in_string, index = bytearray(), 0, 0, -1, False, 0
    while index < len(body):
        byte = body[index]
        if in_string:
            if byte == _BACKSLASH:
                index += 1  # the escaped character
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPENERS:
            depth += 1
            if depth == limit + 1:
                cut_at = index
        elif byte in _CLOSERS:
            if depth == limit + 1 and cut_at >= 0:
                out += body[start:cut_at] + b"null"
                start, cut_at = index + 1, -1
            depth -= 1
        index += 1
    return bytes(out + body[start:])


def _parse_page(content: bytes | bytearray) -> Page:
    """A body that is not the documented page shape is transient (truncated, proxied)."""
    try:
        body = loads(content)
        data, cursor = body["data"], body.get("next_cursor")
        server_time = parse_rfc3339(body["server_time"])
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError) as error:
        raise _Transient(f"malformed page body ({type(error).__name__})") from None
    if not isinstance(data, list) or not (cursor is None or isinstance(cursor, str)):
        raise _Transient("malformed page body (shape)")
    return Page(data=data, next_cursor=cursor, server_time=server_time)
