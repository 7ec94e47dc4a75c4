"""`GET /v1/businesses`: the business feed for ChatGPT's local-services "Get Quote".

Who is in the feed is decided by the sync, not here: `Company.in_feed`,
`feed_hash` and `feed_changed_ms` are maintained in the sync's transaction
(mirror/businesses.py, mirror/sync/), together with two clocks in
`sync_state`: FEED_CLOCK_MS (the last change of any kind to the feed) and
FEED_DEPARTED_MS (the last time a business left it). This module only reads.

Paging. Pages are requested by number, not by cursor, yet page N must cost
what page 1 costs, so no OFFSET. The sync moves FEED_CLOCK_MS in the same
transaction as every change to membership, so the clock names one feed state
exactly. For each state (and, for changes walks, each token time) the ordered
key list is read once, from the `(in_feed, plugin_key)` index, and kept in a
small in-process LRU. A page is then a slice of that list, and its rows come
from one keyed range query, `plugin_key BETWEEN first AND last`. Every
request, whatever the page number, does the same two small queries (state +
page); only the first request after a sync pays the O(n) key read. On
Postgres a warm page is one autocommit statement that reads the state and
the page's range together (`read_page_in_one_statement`): when the state it
reads is the one the keys were cached for, that one snapshot is the answer. A request
reads state, keys and rows in one snapshot transaction, and a page whose rows
disagree with the cached slice rebuilds the index (a safety net; the clock
makes it unnecessary in normal operation).

Records. Each record's serialised bytes are kept (`RecordBytes`, per
process) with the exact column values they were rendered from: the facts
the feed hash covers (mirror/businesses.py), as the page's range read
returns them, JSON left undecoded. A record is rendered and validated again
only when those values differ; the comparison is exact rather than by the
hash, so even a row edited behind the sync's back is rendered from what the
table holds. A page is the envelope around the records' bytes joined with
commas: the same bytes `dumps(payload)` would give, assembled from one range
read in the request's snapshot, so a page still says exactly what the table
holds at the feed clock it reports.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from math import ceil
from types import SimpleNamespace

from flask import current_app, request
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlalchemy import Text, cast, select, true
from sqlalchemy.orm import Session

from feeds import bp
from mirror import state as st
from mirror.businesses import funnel_url
from mirror.config import Settings
from mirror.db import autocommit_rows
from mirror.models import Company
from mirror.public_view import AddressView, GeoView, company_urls
from mirror.urls import BUSINESS_FEED, flask_rule, is_safe_redirect, stamp_referrer
from web.db import db, settings
from web.limits import charge_client
from web.responses import conditional, dumps, json_error, strong_etag

log = logging.getLogger(__name__)

FEED_CONTRACT_VERSION = 1
PAGE_SIZE_DEFAULT = 50
PAGE_SIZE_MAX = 500
PAGE_MAX = 2**31 - 1  # far past any real feed; keeps the arithmetic and the error message honest
# Clients revalidate every time (the feed moves with each sync); the ETag makes that a cheap 304.
CACHE_CONTROL = "public, no-cache"
# Only what a feed record shows is loaded, and the address as its stored
# text: it is decoded only when the record has to be rendered again.
RECORD_COLUMNS = (
    Company.plugin_key,
    Company.name,
    cast(Company.address, Text),
    Company.phone,
    Company.website,
    Company.estimate_url,
    Company.shop_url,
)
RECORD_FIELDS = ("plugin_key", "name", "address", "phone", "website", "estimate_url", "shop_url")
RECORD_BYTES_CAPACITY = 50_000  # records kept per process (about 0.6 KB each); least recently used evicted
PAGE_BYTES_CAPACITY = 32 * 1024 * 1024  # assembled pages kept per process, in bytes (a 50-record page is ~39 KB)
_DIGITS = re.compile(r"[0-9]{1,10}", re.ASCII)
_ZIP = re.compile(r"[0-9]{5}", re.ASCII)
_TOKEN = re.compile(r"chg_([0-9]{1,9})_([0-9]{1,19})", re.ASCII)
# Absolute http(s) with a host and no whitespace or control characters (the
# shape mirror.urls.is_safe_redirect accepts, checked without parsing).
_HTTP_URL = re.compile(r"[hH][tT][tT][pP][sS]?://[^\x00-\x20\x7f/?#]+(?:[/?#][^\x00-\x20\x7f]*)?")


# --- the record, validated ------------------------------------------------------


class _Strict(BaseModel):
    # Strict: the validated dict is what is served, so no value may pass by coercion.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ServiceProvider(_Strict):
    """The request-a-quote action ChatGPT shows as a "Get Quote" button."""

    provider: str = Field(min_length=1)
    provider_business_id: str = Field(min_length=1)
    action_type: str = Field(pattern=r"^request_a_quote$")
    provider_action_url: str
    display_name: str = Field(pattern=r"^Get Quote$")

    @field_validator("provider_action_url")
    @classmethod
    def _absolute(cls, value: str) -> str:
        return _http_url(value)


class FeedBusiness(_Strict):
    """One business of the feed."""

    id: str = Field(min_length=1, max_length=128)
    name: str = Field(min_length=1)
    address: AddressView = Field(
        description="Always complete here: line1, locality, region, a 5-digit postal_code and country."
    )
    location: GeoView = Field(description="WGS84 coordinates.")
    phone_number: str = Field(pattern=r"^\+1[2-9][0-9]{2}[2-9][0-9]{6}$")
    website_url: str
    platform_url: str
    service_providers: list[ServiceProvider] = Field(min_length=1)

    @field_validator("website_url", "platform_url")
    @classmethod
    def _absolute(cls, value: str) -> str:
        return _http_url(value)

    @field_validator("address")
    @classmethod
    def _complete(cls, value: AddressView) -> AddressView:
        # The feed lists complete addresses only (docs/contracts/surfaces.md); the
        # shape is the view's, the rule is the feed's.
        if not (
            value.line1
            and value.locality
            and value.region
            and value.country
            and value.postal_code
            and _ZIP.fullmatch(value.postal_code)
        ):
            raise ValueError("incomplete address")
        return value

    @field_validator("location")
    @classmethod
    def _in_range(cls, value: GeoView) -> GeoView:
        if not (-90 <= value.latitude <= 90 and -180 <= value.longitude <= 180):
            raise ValueError("coordinates out of range")
        return value


class FeedPage(_Strict):
    """One page of the business feed (its OpenAPI schema is generated from this model)."""

    checksum: bool = Field(description="false exactly when the token is current and nothing changed")
    page: int = Field(ge=1)
    page_size: int = Field(ge=1, le=PAGE_SIZE_MAX)
    total_pages: int = Field(ge=0)
    changes_token: str = Field(pattern=r"^chg_[0-9]+_[0-9]+$")
    businesses: list[FeedBusiness]


def _http_url(value: str) -> str:
    if not _HTTP_URL.fullmatch(value):
        raise ValueError("not an absolute http(s) URL")
    return value


def feed_record(company: Company, config: Settings) -> dict:
    """The feed record of a company in the feed, validated (ValidationError if incomplete)."""
    address = AddressView.from_stored(company.address)
    stored = company.address or {}
    quote_page = company_urls(config, company.plugin_key)["quote_page_url"]
    funnel = funnel_url(company)
    record = {
        "id": company.plugin_key,
        "name": company.name,
        "address": address.model_dump() if address else None,
        "location": {"latitude": stored.get("latitude"), "longitude": stored.get("longitude")},
        "phone_number": company.phone,
        "website_url": company.website,
        "platform_url": stamp_referrer(funnel, config.referrer_stamp) if is_safe_redirect(funnel) else quote_page,
        "service_providers": [
            {
                "provider": config.provider_name,
                "provider_business_id": company.plugin_key,
                "action_type": "request_a_quote",
                "provider_action_url": quote_page,
                "display_name": "Get Quote",
            }
        ],
    }
    FeedBusiness.model_validate(record)  # one validation pass; the dict itself is what is served
    return record


# --- request parameters ---------------------------------------------------------


class BadParameter(ValueError):
    """A query parameter out of range; the message names it."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def _arg(name: str) -> str | None:
    """The query parameter's first value, or None.

    `request.args.get()` of an absent name makes and catches an HTTP
    exception inside Werkzeug; `getlist()` only a KeyError.
    """
    values = request.args.getlist(name)
    return values[0] if values else None


def _int_param(name: str, default: int, low: int, high: int) -> int:
    raw = _arg(name)
    if raw is None:
        return default
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        raise BadParameter(name, f"{name} must be an integer from {low} to {high}")
    return int(raw)


def paging() -> tuple[int, int]:
    """(page, page_size) from the query string; BadParameter names the culprit."""
    return _int_param("page", 1, 1, PAGE_MAX), _int_param("page_size", PAGE_SIZE_DEFAULT, 1, PAGE_SIZE_MAX)


def make_token(clock_ms: int) -> str:
    """`chg_<contract version>_<feed clock in ms>`."""
    return f"chg_{FEED_CONTRACT_VERSION}_{clock_ms}"


@dataclass(frozen=True)
class Walk:
    """What to list: everything (since_ms None) or the changes after since_ms."""

    since_ms: int | None


def plan_walk(token: str | None, clock_ms: int, departed_ms: int) -> Walk:
    """A current token gives a changes walk; anything stale gives the full walk.

    Stale: absent, malformed, legacy `chg_<time>`, another contract version,
    a time in the future of this feed, or a business left the feed since
    (a list of changes cannot say "removed").
    """
    match = _TOKEN.fullmatch(token or "")
    if not match or int(match.group(1)) != FEED_CONTRACT_VERSION:
        return Walk(None)
    since_ms = int(match.group(2))
    if since_ms > clock_ms or departed_ms > since_ms:
        return Walk(None)
    return Walk(since_ms)


# --- the page-boundary index ------------------------------------------------------


class FeedIndex:
    """Per-process LRU of ordered key lists, one per (feed clock, walk), and the last feed state read."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.builds = 0  # observable in tests: how often the O(n) key read ran
        # (feed clock, departure clock) as a request last read them: the
        # one-statement path's guess, checked by that very statement.
        self.last_state: tuple[int, int] | None = None

    def cached(self, clock_ms: int, walk: Walk) -> tuple[str, ...] | None:
        """The walk's keys at this feed state if this process has them, else None (nothing is read)."""
        with self._lock:
            return self._entries.get((clock_ms, walk.since_ms))

    def keys(self, session: Session, clock_ms: int, walk: Walk, *, rebuild: bool = False) -> tuple[str, ...]:
        """The ordered plugin keys of the walk at this feed state."""
        cache_key = (clock_ms, walk.since_ms)
        with self._lock:
            cached = None if rebuild else self._entries.get(cache_key)
            if cached is not None:
                self._entries.move_to_end(cache_key)
                return cached
        keys = tuple(session.scalars(_in_walk(select(Company.plugin_key), walk).order_by(Company.plugin_key)))
        with self._lock:
            self.builds += 1
            self._entries[cache_key] = keys
            self._entries.move_to_end(cache_key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return keys


def _in_walk(query, walk: Walk):
    query = query.where(Company.in_feed == true())
    if walk.since_ms is not None:
        query = query.where(Company.feed_changed_ms > walk.since_ms)
    return query


class RecordBytes:
    """Per-process LRU: a business's serialised record and the column values it was rendered from."""

    def __init__(self, capacity: int = RECORD_BYTES_CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, tuple[tuple, bytes | None]] = OrderedDict()
        self._lock = threading.Lock()
        self.renders = 0  # observable in tests: records rendered (and validated) again

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, row: tuple, config: Settings) -> bytes | None:
        """The record's bytes for this row (None: it failed validation and is left out)."""
        key = row[0]
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0] == row:
                self._entries.move_to_end(key)
                return found[1]
        rendered = _render_record(row, config)
        with self._lock:
            self.renders += 1
            self._entries[key] = (row, rendered)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return rendered


def _render_record(row: tuple, config: Settings) -> bytes | None:
    company = SimpleNamespace(**dict(zip(RECORD_FIELDS, row, strict=True)))
    company.address = json.loads(company.address) if company.address is not None else None
    try:
        return dumps(feed_record(company, config)).encode("utf-8")
    except ValidationError as error:
        # The sync's eligibility and this model agree by construction; if
        # they ever do not, one business is left out rather than the page.
        log.error("business %s left out of the feed: %s", company.plugin_key, error)
        return None


class PageBytes:
    """Per-process LRU of assembled pages: the envelope and rows each was made of, its bytes and ETag.

    A page is served from here only when the rows the request just read are
    exactly (every column value) the rows the stored page was assembled
    from, under the same envelope: the bytes are then what assembling it
    again would give, so the page still says what the table holds. Bounded
    by bytes, not pages (a page of 500 records is ten of 50).
    """

    def __init__(self, max_bytes: int = PAGE_BYTES_CAPACITY) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple, tuple[list[tuple], bytes, str]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.assembled = 0  # observable in tests: pages assembled from their records

    def page(self, envelope: dict, rows: list[tuple], assemble) -> tuple[bytes, str]:
        """(body, ETag) of the page of these rows under this envelope; `assemble()` makes the body on a miss."""
        key = tuple(envelope.items())
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0] == rows:
                self._entries.move_to_end(key)
                return found[1], found[2]
        body = assemble()
        etag = strong_etag(body)
        with self._lock:
            self.assembled += 1
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= len(old[1])
            if len(body) <= self.max_bytes:
                self._entries[key] = (rows, body, etag)
                self._bytes += len(body)
            while self._bytes > self.max_bytes:
                _, (_, evicted, _) = self._entries.popitem(last=False)
                self._bytes -= len(evicted)
        return body, etag

    def clear(self) -> None:
        """Drop every page (never needed for correctness; for tests and operators)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0


def init_feed_index(app) -> None:
    """Give the app its own index and record and page stores (one per app: test apps on other databases share none)."""
    app.extensions["business_feed_index"] = FeedIndex()
    app.extensions["business_feed_records"] = RecordBytes()
    app.extensions["business_feed_pages"] = PageBytes()


def record_bytes() -> RecordBytes:
    """This app's store of serialised records."""
    return current_app.extensions["business_feed_records"]


def feed_index() -> FeedIndex:
    """This app's index."""
    return current_app.extensions["business_feed_index"]


def _page_rows(session: Session, walk: Walk, wanted: tuple[str, ...]) -> list[tuple]:
    # Both ends of the range come from the index, so it holds exactly the
    # page: no LIMIT needed (SQLAlchemy renders LIMIT on SQLite as "LIMIT ? OFFSET 0").
    query = (
        _in_walk(select(*RECORD_COLUMNS), walk)
        .where(Company.plugin_key >= wanted[0], Company.plugin_key <= wanted[-1])
        .order_by(Company.plugin_key)
    )
    return [tuple(row) for row in session.execute(query)]


_STATE_AND_ROWS = (
    "SELECT s.clock, s.departed, "
    + ", ".join("CAST(c.address AS TEXT)" if field == "address" else f"c.{field}" for field in RECORD_FIELDS)
    + " FROM (SELECT (SELECT value FROM sync_state WHERE name = %(clock)s) AS clock,"
    " (SELECT value FROM sync_state WHERE name = %(departed)s) AS departed) AS s"
    " LEFT JOIN companies AS c ON c.in_feed AND c.plugin_key >= %(first)s AND c.plugin_key <= %(last)s{since}"
    " ORDER BY c.plugin_key"
)


@dataclass(frozen=True)
class FeedRead:
    """What a page is made of: the feed state it was read at, the walk, the walk's size and the page's rows."""

    clock_ms: int
    walk: Walk
    total: int
    rows: list[tuple]


def read_page_in_one_statement(session: Session, token: str | None, page: int, page_size: int) -> FeedRead | None:
    """The page by one autocommit statement that also reads the feed state; None when that cannot answer.

    The keys come from this process's index for the feed state a request
    last read, and the statement returns the current state beside the
    rows: if the state is that one, the keys are its keys and the rows
    are what the table holds in the same snapshot, exactly what the
    transactional path would serve. Otherwise (a sync moved the clock,
    nothing cached yet, SQLite, rows that disagree with the index) the
    caller takes that path. A warm page is one round trip instead of four
    (BEGIN, state, rows, ROLLBACK).
    """
    index = feed_index()
    guess = index.last_state
    if guess is None:
        return None
    walk = plan_walk(token, *guess)
    keys = index.cached(guess[0], walk)
    if keys is None:
        return None
    wanted = keys[(page - 1) * page_size : page * page_size]
    params = {
        "clock": st.FEED_CLOCK_MS,
        "departed": st.FEED_DEPARTED_MS,
        "first": wanted[0] if wanted else None,
        "last": wanted[-1] if wanted else None,
        "since": walk.since_ms,
    }
    since = "" if walk.since_ms is None else " AND c.feed_changed_ms > %(since)s"
    found = autocommit_rows(session, _STATE_AND_ROWS.format(since=since), params)
    if not found or (int(found[0][0] or 0), int(found[0][1] or 0)) != guess:
        return None
    rows = [row[2:] for row in found if row[2] is not None]
    if tuple(row[0] for row in rows) != wanted:
        return None
    return FeedRead(guess[0], walk, len(keys), rows)


def load_page(session: Session, clock_ms: int, walk: Walk, page: int, page_size: int) -> tuple[int, list[tuple]]:
    """(total count, the page's record rows, as RECORD_FIELDS) by keyed range, never OFFSET."""
    index = feed_index()
    keys = index.keys(session, clock_ms, walk)
    wanted = keys[(page - 1) * page_size : page * page_size]
    if not wanted:
        return len(keys), []
    rows = _page_rows(session, walk, wanted)
    if tuple(r[0] for r in rows) != wanted:
        # Only possible if something other than the sync changed the feed
        # without moving its clock: re-read the keys in this snapshot.
        log.warning("business feed index disagreed with the table at clock %s; rebuilding", clock_ms)
        keys = index.keys(session, clock_ms, walk, rebuild=True)
        wanted = keys[(page - 1) * page_size : page * page_size]
        rows = _page_rows(session, walk, wanted) if wanted else []
    return len(keys), rows


# --- the endpoint ---------------------------------------------------------------------


def page_body(envelope: dict, records: list[bytes]) -> bytes:
    """The page's JSON: the envelope, then `businesses` (last) as the records' bytes joined.

    Byte for byte what `dumps({**envelope, "businesses": [...]})` gives.
    """
    head = dumps({**envelope, "businesses": []}).encode("utf-8")
    return head[:-2] + b",".join(records) + b"]}"  # head ends with `[]}`


def _read_page(session: Session, token: str | None, page: int, page_size: int) -> FeedRead:
    """The page in the request's snapshot transaction: the feed state, then the keys and rows it names."""
    saved = st.read_state(session)
    clock_ms, departed_ms = st.get_int(saved, st.FEED_CLOCK_MS), st.get_int(saved, st.FEED_DEPARTED_MS)
    walk = plan_walk(token, clock_ms, departed_ms)
    total, rows = load_page(session, clock_ms, walk, page, page_size)
    feed_index().last_state = (clock_ms, departed_ms)
    return FeedRead(clock_ms, walk, total, rows)


@bp.get(flask_rule(BUSINESS_FEED))
def business_feed():
    """One page of the business feed (full walk or changes since a token)."""
    charge_client()
    try:
        page, page_size = paging()
    except BadParameter as error:
        return json_error(400, "invalid_parameter", str(error), parameter=error.name)
    session = db()
    token = _arg("changes_token")
    read = read_page_in_one_statement(session, token, page, page_size) or _read_page(session, token, page, page_size)
    clock_ms, walk, total, rows = read.clock_ms, read.walk, read.total, read.rows
    unchanged = walk.since_ms is not None and total == 0
    envelope = {
        "checksum": not unchanged,
        "page": page,
        "page_size": page_size,
        "total_pages": ceil(total / page_size),
        "changes_token": token if unchanged else make_token(clock_ms),
    }
    store, config = record_bytes(), settings()

    def assemble() -> bytes:
        records = [body for body in (store.record(row, config) for row in rows) if body is not None]
        return page_body(envelope, records)

    body, etag = current_app.extensions["business_feed_pages"].page(envelope, rows, assemble)
    return conditional(body, mimetype="application/json", cache_control=CACHE_CONTROL, etag=etag)
