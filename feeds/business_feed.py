"""`GET /v1/businesses`: the business feed for ChatGPT's local-services "Get Quote".

What a page lists, and its rows, come from the read layer (mirror/read/feed.py:
membership decided by the sync, pages by keyed range, one snapshot per page).
This module parses the request, renders records and assembles the page.

Records. Each record's serialised bytes are kept (`RecordBytes`, per
process) with the exact column values they were rendered from: the facts
the feed hash covers (mirror/catalog/feed_facts.py), as the page's range read
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
from contextlib import suppress
from math import ceil
from types import SimpleNamespace

from cachetools import LRUCache
from flask import current_app, request
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from feeds.blueprint import bp
from mirror.catalog.feed_facts import funnel_url
from mirror.catalog.public_view import AddressView, GeoView, company_urls
from mirror.catalog.urls import BUSINESS_FEED, flask_rule, redirect_target, stamp_referrer
from mirror.read.feed import FeedIndex, FeedRecord, read_feed_page
from mirror.runtime.config import Settings
from mirror.store.models import KEY_LENGTH
from mirror.values.jsontext import dumps
from web.db import db, settings
from web.gate import gate_state
from web.limits import charge_client
from web.responses import conditional, json_error, strong_etag

log = logging.getLogger(__name__)

FEED_CONTRACT_VERSION = 1
PAGE_SIZE_DEFAULT = 50
PAGE_SIZE_MAX = 500
PAGE_MAX = 2**31 - 1  # far past any real feed; keeps the arithmetic and the error message honest
# Clients revalidate every time (the feed moves with each sync); the ETag makes that a cheap 304.
CACHE_CONTROL = "public, no-cache"
RECORD_BYTES_CAPACITY = 50_000  # records kept per process (about 0.6 KB each); least recently used evicted
PAGE_BYTES_CAPACITY = 32 * 1024 * 1024  # assembled pages kept per process, in bytes (a 50-record page is ~39 KB)
_DIGITS = re.compile(r"[0-9]{1,10}", re.ASCII)
_ZIP = re.compile(r"[0-9]{5}", re.ASCII)
_TOKEN = re.compile(r"chg_([0-9]{1,9})_([0-9]{1,19})", re.ASCII)
# Absolute http(s) with a host and no whitespace or control characters (the
# shape mirror.catalog.urls.redirect_target accepts, checked without parsing).
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

    id: str = Field(min_length=1, max_length=KEY_LENGTH)
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


def feed_record(company, config: Settings) -> dict:
    """The feed record of a company in the feed, validated (ValidationError if incomplete)."""
    address = AddressView.from_stored(company.address)
    stored = company.address or {}
    quote_page = company_urls(config, company.plugin_key)["quote_page_url"]
    funnel = redirect_target(funnel_url(company))
    record = {
        "id": company.plugin_key,
        "name": company.name,
        "address": address.model_dump() if address else None,
        "location": {"latitude": stored.get("latitude"), "longitude": stored.get("longitude")},
        "phone_number": company.phone,
        "website_url": company.website,
        "platform_url": stamp_referrer(funnel, config.referrer_stamp) if funnel else quote_page,
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


def token_time(token: str | None) -> int | None:
    """The time of a well-formed token of this contract version (`chg_1_<ms>`); None for anything else.

    Absent, malformed, legacy `chg_<time>` and other contract versions all
    ask for the full walk (mirror.read.feed.plan_walk decides the rest).
    """
    match = _TOKEN.fullmatch(token or "")
    if not match or int(match.group(1)) != FEED_CONTRACT_VERSION:
        return None
    return int(match.group(2))


class RecordBytes:
    """Per-process LRU: a business's serialised record and the column values it was rendered from."""

    def __init__(self, capacity: int = RECORD_BYTES_CAPACITY) -> None:
        self._entries: LRUCache = LRUCache(maxsize=capacity)
        self._lock = threading.Lock()
        self.renders = 0  # observable in tests: records rendered (and validated) again

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, row: FeedRecord, config: Settings) -> bytes | None:
        """The record's bytes for this row (None: it failed validation and is left out)."""
        key = row.plugin_key
        with self._lock:
            found = self._entries.get(key)
        if found is not None and found[0] == row:
            return found[1]
        rendered = _render_record(row, config)
        with self._lock:
            self.renders += 1
            self._entries[key] = (row, rendered)
        return rendered


def _render_record(row: FeedRecord, config: Settings) -> bytes | None:
    company = SimpleNamespace(**row._asdict())
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

    And before any read, by the state version the gate follows
    (`at_state`): only a committed sync run changes what a feed page says,
    and every run moves that version. A request asking again what was
    answered at the gate's current version is served those bytes without a
    statement, as fresh as every other public answer (within a second of a
    sync's commit, web/gate.py).
    """

    def __init__(self, max_bytes: int = PAGE_BYTES_CAPACITY) -> None:
        self._entries: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=lambda entry: len(entry[1]))
        # (state version, changes token, page, page size) -> (body, ETag); the bodies are the entries' own
        self._answered: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=lambda entry: len(entry[0]))
        self._lock = threading.Lock()
        self.assembled = 0  # observable in tests: pages assembled from their records

    def at_state(self, version: int, asked: tuple) -> tuple[bytes, str] | None:
        """The (body, ETag) answered to `asked` (token, page, page size) at state `version`; None if not kept."""
        with self._lock:
            return self._answered.get((version, *asked))

    def answered(self, version: int, asked: tuple, found: tuple[bytes, str]) -> None:
        """Keep what was answered to `asked` at state `version` (a page read at that version or later)."""
        with self._lock, suppress(ValueError):  # ValueError: larger than the whole budget, not kept
            self._answered[(version, *asked)] = found

    def page(self, envelope: dict, rows: list[tuple], assemble) -> tuple[bytes, str]:
        """(body, ETag) of the page of these rows under this envelope; `assemble()` makes the body on a miss."""
        key = tuple(envelope.items())
        with self._lock:
            found = self._entries.get(key)
        if found is not None and found[0] == rows:
            return found[1], found[2]
        body = assemble()
        etag = strong_etag(body)
        with self._lock:
            self.assembled += 1
            try:
                self._entries[key] = (rows, body, etag)
            except ValueError:  # one page larger than the whole budget: served, not kept
                self._entries.pop(key, None)
        return body, etag

    def clear(self) -> None:
        """Drop every page (never needed for correctness; for tests and operators)."""
        with self._lock:
            self._entries.clear()
            self._answered.clear()


def init_feed_index(app) -> None:
    """Give the app its own index and record and page stores (one per app: test apps on other databases share none)."""
    app.extensions["business_feed_index"] = FeedIndex()
    app.extensions["business_feed_records"] = RecordBytes()
    app.extensions["business_feed_pages"] = PageBytes()


def record_bytes() -> RecordBytes:
    """This app's store of serialised records."""
    return current_app.extensions["business_feed_records"]


def feed_pages() -> PageBytes:
    """This app's store of assembled pages."""
    return current_app.extensions["business_feed_pages"]


def feed_index() -> FeedIndex:
    """This app's index."""
    return current_app.extensions["business_feed_index"]


# --- the endpoint ---------------------------------------------------------------------


def page_body(envelope: dict, records: list[bytes]) -> bytes:
    """The page's JSON: the envelope, then `businesses` (last) as the records' bytes joined.

    Byte for byte what `dumps({**envelope, "businesses": [...]})` gives.
    """
    head = dumps({**envelope, "businesses": []}).encode("utf-8")
    return head[:-2] + b",".join(records) + b"]}"  # head ends with `[]}`


@bp.get(flask_rule(BUSINESS_FEED))
def business_feed():
    """One page of the business feed (full walk or changes since a token)."""
    charge_client()
    try:
        page, page_size = paging()
    except BadParameter as error:
        return json_error(400, "invalid_parameter", str(error), parameter=error.name)
    token = _arg("changes_token")
    pages, asked = feed_pages(), (token, page, page_size)
    # The gate's version before the read: the page read is of that state or a later one, never an earlier.
    version = gate_state().version
    found = pages.at_state(version, asked)
    if found is None:
        found = _read_page(pages, token, page, page_size)
        pages.answered(version, asked, found)
    body, etag = found
    return conditional(body, mimetype="application/json", cache_control=CACHE_CONTROL, etag=etag)


def _read_page(pages: PageBytes, token: str | None, page: int, page_size: int) -> tuple[bytes, str]:
    """(body, ETag) of the page as the database holds it now (`pages`: the app's store of assembled pages)."""
    read = read_feed_page(db(), feed_index(), token_time(token), page, page_size)
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

    return pages.page(envelope, rows, assemble)
