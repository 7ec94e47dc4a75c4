"""The one public view of a company, built from the mirror.

Every surface renders this: pricing.json is `CompanyView.pricing_document()`,
and the JSON-LD, hosted pages and MCP tools read the same objects, so two
surfaces never compute the same number twice; the business feed's record
takes its address, coordinates and URLs from here.

The models below are also the single declaration of every public shape: the
address, service area, tiers, category and provenance objects exist once,
here. Tool results are built from (and subclass) them, the OpenAPI schemas of
pricing.json and the JSON error are generated from them, and the feed record
validates with them. Only public facts exist here; nothing in this module
knows about HTTP (URLs come from mirror.urls' route table).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, TypeAdapter, WithJsonSchema
from sqlalchemy import bindparam, event, select
from sqlalchemy.orm import Session, configure_mappers

from mirror import channels, urls
from mirror import state as st
from mirror.businesses import funnel_url
from mirror.config import Settings
from mirror.db import autocommit_rows
from mirror.models import Company, OfferGroup, SyncState
from mirror.storable import storable
from mirror.upstream import parse_time
from mirror.urls import stamp_referrer

DATA_PROVENANCE = (
    "These are the contractor's own first-party installed prices, published by the contractor "
    "and mirrored from its catalog without change."
)
BUSINESS_TYPES = {
    "hvac": "HVACBusiness",
    "plumbing": "Plumber",
    "electrical": "Electrician",
    "roofing": "RoofingContractor",
}
FreshnessState = Literal["fresh", "stale", "unavailable"]
_MEMO_KEY = "mirror.public_view.memo"


def cents_to_decimal(cents: int | None) -> Decimal | None:
    """Exact money from integer cents."""
    return None if cents is None else Decimal(cents).scaleb(-2)


def money_json(value: Decimal | None) -> int | float | None:
    """A JSON number with the exact decimal value (11006, 60.05).

    Two-decimal amounts below 10**13 round-trip exactly through a double's
    shortest repr, so the emitted digits are the decimal's own digits.
    """
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


class _View(BaseModel):
    # Closed: a view holds exactly its declared public facts, and its JSON
    # Schema (OpenAPI, MCP outputSchema) says so.
    model_config = ConfigDict(frozen=True, extra="forbid")


# Money is exact Decimal in the view and a JSON number with the decimal's own
# digits wherever it is published (pricing.json, tool results).
Money = Annotated[
    Decimal,
    PlainSerializer(money_json),
    WithJsonSchema({"type": "number", "description": "An amount in `currency`, exact (e.g. 11006 or 60.05)."}),
]
# A time in the view; RFC 3339 UTC with a Z (or null) wherever it is published.
Timestamp = Annotated[
    datetime | None,
    PlainSerializer(lambda value: iso(value)),
    WithJsonSchema({"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}),
]


class AddressView(_View):
    """The address object every surface uses (docs/contracts/surfaces.md)."""

    line1: str | None
    line2: str | None
    locality: str | None
    region: str | None
    postal_code: str | None
    country: str | None
    formatted: str

    @classmethod
    def from_stored(cls, stored: dict | None) -> AddressView | None:
        """None when the company has no address at all."""
        if not stored or not any(stored.get(k) for k in ("line1", "line2", "locality", "region", "postal_code")):
            return None
        parts = [stored.get("line1"), stored.get("line2"), stored.get("locality")]
        region_zip = " ".join(p for p in (stored.get("region"), stored.get("postal_code")) if p)
        formatted = ", ".join(p for p in [*parts, region_zip] if p)
        return cls(
            line1=stored.get("line1"),
            line2=stored.get("line2"),
            locality=stored.get("locality"),
            region=stored.get("region"),
            postal_code=stored.get("postal_code"),
            country=stored.get("country"),
            formatted=formatted,
        )


class GeoView(_View):
    """Coordinates, only when both are present and in range."""

    latitude: float
    longitude: float


class ServiceAreaView(_View):
    """The normalised service-area postal codes."""

    postal_code_count: int
    postal_codes: list[str]


class TierPrices(_View):
    """Lowest published price per tier; null where a tier has no product."""

    good: Money | None
    better: Money | None
    best: Money | None


class PricingCategory(_View):
    """One offer group, as pricing.json shows it."""

    name: str
    slug: str
    price_low: Money
    price_high: Money
    offer_count: int
    tiers: TierPrices | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Good/Better/Best prices; present on installed-system categories only.",
    )


class CategoryView(PricingCategory):
    """One offer group: pricing.json's category plus its kind."""

    kind: Literal["system", "accessory"]
    # Read by the JSON-LD (Product image); not part of the published category object.
    image_url: str | None = Field(default=None, exclude=True)


class Provenance(_View):
    """The provenance trio every tool result and pricing.json carry: where to quote, how fresh the data is."""

    quote_url: str | None = Field(description="Where the user requests a quote; null when quoting is switched off.")
    last_synced_at: Timestamp = Field(
        description="When the mirror last confirmed this data (RFC 3339, UTC); null if never."
    )
    freshness_state: FreshnessState


class PricingBusiness(_View):
    """The business as pricing.json shows it."""

    name: str
    address: AddressView | None
    service_area: ServiceAreaView


class BusinessView(PricingBusiness):
    """The contractor's public identity and contact data."""

    plugin_key: str
    trades: list[str]
    business_types: list[str]
    geo: GeoView | None
    phone: str | None
    website: str | None


def _published_order(schema: dict, _model: type) -> None:
    """List pricing.json's properties in its published key order in the JSON Schema too."""
    properties = schema.get("properties", {})
    order = [name for name in PRICING_ORDER if name in properties]
    schema["properties"] = {name: properties[name] for name in [*order, *(n for n in properties if n not in order)]}


class PricingDocument(Provenance):
    """pricing.json (docs/contracts/surfaces.md): the published part of a company's view."""

    model_config = ConfigDict(json_schema_extra=_published_order)

    business: PricingBusiness
    categories: list[PricingCategory]
    currency: str
    price_description: str | None
    data_provenance: str
    content_updated_at: Timestamp
    content_version: str | None


class ErrorBody(_View):
    """The small JSON error every JSON surface answers with (404, 400, 429, 5xx)."""

    error: str = Field(description="A stable machine-readable code, e.g. not_found, invalid_parameter.")
    message: str
    parameter: str | None = Field(default=None, description="The query parameter at fault (400 only).")
    retry_after: int | None = Field(default=None, ge=1, description="Seconds to wait (429 only).")


# pricing.json's published key order (fields inherited from Provenance would
# otherwise come first).
PRICING_ORDER = (
    "business",
    "categories",
    "currency",
    "price_description",
    "data_provenance",
    "quote_url",
    "last_synced_at",
    "content_updated_at",
    "freshness_state",
    "content_version",
)
_PRICING = TypeAdapter(PricingDocument)


class CompanyView(PricingDocument):
    """Everything public about one company at one moment of the mirror."""

    business: BusinessView
    categories: list[CategoryView]
    channels: dict[str, bool]
    quote_page_url: str
    funnel_url: str | None
    pricing_url: str
    mcp_url: str
    generation: int

    def category(self, slug_or_name: str) -> CategoryView | None:
        """A category by slug, or by name (case-insensitive)."""
        wanted = slug_or_name.strip().lower()
        for category in self.categories:
            if category.slug == wanted or category.name.lower() == wanted:
                return category
        return None

    def serves(self, postal_code: str) -> bool:
        """Whether a normalised 5-digit postal code is in the service area."""
        return postal_code in self.business.service_area.postal_codes

    def pricing_document(self) -> dict:
        """pricing.json: this view serialised as a PricingDocument, in the published key order."""
        dumped = _PRICING.dump_python(self, mode="json")
        return {name: dumped[name] for name in PRICING_ORDER}

    def provenance(self) -> dict:
        """The provenance fields every tool result carries besides its quote_url."""
        return {"last_synced_at": self.last_synced_at, "freshness_state": self.freshness_state}


@functools.lru_cache(maxsize=8)  # every request reads it; it changes once per sync
def _success_time(text: str) -> datetime:
    """The stored LAST_SUCCESS_AT text as an aware datetime (`mirror.upstream.parse_time`)."""
    return parse_time(text)


@functools.lru_cache(maxsize=1024)  # the same few stamps (a run's end, a product's update) on every request
def iso(value: datetime | None) -> str | None:
    """RFC 3339 UTC with a Z, or None."""
    if value is None:
        return None
    value = value if value.tzinfo else value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _aware(value: datetime | None) -> datetime | None:
    return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)


def channel_open(company: Company | None, channel: str | None) -> bool:
    """Public, and the surface's switch on (a missing switch means on)."""
    if company is None or not company.is_public:
        return False
    return channel is None or channels.channel_open(company, channel)


def find_public_company(
    session: Session, plugin_key: str, channel: str | None, *also: str, with_offer_groups: bool = False
) -> Company | None:
    """The gate: the company when it is public and `channel` (and every one in `also`) is open, else None.

    Unknown, churned, not-live and switched-off all look the same: None, at
    the same cost. The lookup itself asks for a public company with those
    channels open, so every closed case is the unknown case: the same
    statement, no row, nothing decoded or built.

    `with_offer_groups` (a request whose process holds no view of the
    company): on Postgres the same statement also reads the offer groups,
    and the snapshot it makes is remembered for `load_company_snapshot`, so a
    cold request is one statement, not two.
    """
    if not plugin_key or len(plugin_key) > 128 or not storable(plugin_key):
        return None
    open_for = tuple(c for c in (channel, *also) if c is not None)
    return load_company(session, plugin_key, open_for=open_for, with_offer_groups=with_offer_groups)


def load_company(
    session: Session,
    plugin_key: str,
    *,
    in_transaction: bool = False,
    open_for: tuple[str, ...] | None = None,
    with_offer_groups: bool = False,
) -> Company | None:
    """The company row and the last whole-run success time, in ONE round trip.

    Both are remembered (until the session's next transaction), so the gate,
    the render cache's stamp (mirror.render_cache) and the view need no
    further query: a warm request costs this single indexed lookup.

    On Postgres, a session that has not begun a transaction yet (a request's,
    at its gate) reads the row with one autocommit statement, which is itself
    a consistent snapshot: no BEGIN and ROLLBACK round trips and no ORM
    machinery, which were most of a warm request's cost. Whatever the
    request reads later runs in the session's own snapshot, so code that
    renders from the database must reload the company there first
    (`in_transaction=True`, as the render cache does on a miss).

    With `open_for` (the gate: a tuple of channels, possibly empty), only a
    public company with those channels open is read; any other is None.
    """
    if in_transaction:
        session.connection()  # begin the session's snapshot (and a fresh memo)
    memo = _transaction_memo(session)
    if plugin_key in memo["companies"]:
        company = memo["companies"][plugin_key]
        if open_for is None or (channel_open(company, None) and all(channel_open(company, c) for c in open_for)):
            return company
        return None
    params = {"key": plugin_key, "name": st.LAST_SUCCESS_AT}
    if with_offer_groups:
        rows = autocommit_rows(session, _snapshot_sql(open_for), params)
        if rows is not None:
            snapshot = _snapshot_from_rows(rows)
            if snapshot is None:
                return None
            memo["last_success_at"] = snapshot.last_success_at
            memo["companies"][plugin_key] = snapshot.company
            memo.setdefault("snapshots", {})[plugin_key] = snapshot
            return snapshot.company
    rows = autocommit_rows(session, _autocommit_sql(open_for), params)
    if rows is not None:
        values = rows[0] if rows else None
    else:
        row = session.execute(_lookup_statement(open_for), params).first()
        values = tuple(row) if row is not None else None
        memo = _transaction_memo(session)  # the query began the transaction
    if values is None:
        return None
    company = transient(Company, dict(zip(_COMPANY_COLUMNS, values[:-1], strict=True)))  # last: the success time
    last_success = values[-1]
    memo["last_success_at"] = _success_time(last_success) if last_success is not None else None
    memo["companies"][plugin_key] = company
    return company


# Plain column values, never an ORM entity (a transient Company is all any
# caller needs). Built once per channel set: a statement's cache key is
# memoised, so a warm request skips building and hashing it again.
_COMPANY_COLUMNS = tuple(column.name for column in Company.__table__.columns)
_LOOKUPS: dict[tuple[str, ...] | None, object] = {}


def _lookup_statement(open_for: tuple[str, ...] | None):
    statement = _LOOKUPS.get(open_for)
    if statement is None:
        table = Company.__table__
        statement = select(
            *table.columns,
            select(SyncState.value).where(SyncState.name == bindparam("name")).scalar_subquery(),
        ).where(table.c.plugin_key == bindparam("key"))
        if open_for is not None:  # a missing switch means on (channel_open's rule, in SQL)
            statement = statement.where(
                table.c.is_public.is_(True), *(channels.channel_open_clause(table.c.channels, c) for c in open_for)
            )
        _LOOKUPS[open_for] = statement
    return statement


def _gate_sql(open_for: tuple[str, ...], table: str | None = None) -> str:
    """The gate's conditions as literal SQL: a public company with every channel in `open_for` open."""
    prefix = f"{table}." if table else ""
    return f" AND {prefix}is_public" + "".join(f" AND {channels.channel_open_sql(c, table)}" for c in open_for)


@functools.lru_cache(maxsize=64)  # one per channel set
def _autocommit_sql(open_for: tuple[str, ...] | None) -> str:
    sql = (
        f"SELECT {', '.join(_COMPANY_COLUMNS)}, (SELECT value FROM sync_state WHERE name = %(name)s) "
        "FROM companies WHERE plugin_key = %(key)s"
    )
    if open_for is not None:
        sql += _gate_sql(open_for)
    return sql


@dataclass(frozen=True)
class CompanySnapshot:
    """A company row, the last whole-run success time and its offer groups, read by ONE statement."""

    company: Company
    last_success_at: datetime | None
    groups: tuple[OfferGroup, ...]


def load_company_snapshot(session: Session, plugin_key: str) -> CompanySnapshot | None:
    """Everything a company's view is built from, in one indexed statement whatever the catalog size.

    The render cache's miss path (mirror/render_cache.py): the row, the sync
    time and the offer groups (a LEFT JOIN on the offer groups' primary key,
    whose first column is the company's key) come from one statement, which
    is itself a consistent snapshot, so the view can never mix two states.
    Offer groups are one row per category, already aggregated by the sync:
    the cost does not grow with the number of products. On Postgres, before
    the session has begun a transaction, it runs as one autocommit statement
    on a pooled connection, like the gate's lookup (no BEGIN, no ROLLBACK).
    None when the company is gone.
    """
    remembered = _transaction_memo(session).get("snapshots", {}).get(plugin_key)
    if remembered is not None:  # the gate's own statement read it (find_public_company, with_offer_groups)
        return remembered
    rows = autocommit_rows(session, _snapshot_sql(None), {"name": st.LAST_SUCCESS_AT, "key": plugin_key})
    if rows is None:
        rows = session.execute(_SNAPSHOT, {"key": plugin_key}).all()
    return _snapshot_from_rows(rows)


def _snapshot_from_rows(rows: list) -> CompanySnapshot | None:
    """The snapshot in a company-and-offer-groups statement's rows (one per group; none: no company)."""
    if not rows:
        return None
    width = len(_COMPANY_COLUMNS)
    first = rows[0]
    company = transient(Company, dict(zip(_COMPANY_COLUMNS, first[:width], strict=True)))
    last_success = first[width]
    groups = tuple(
        transient(OfferGroup, dict(zip(_GROUP_COLUMNS, row[width + 1 :], strict=True)))
        for row in rows
        if row[width + 1] is not None  # the group's key: NULL when there is no group
    )
    return CompanySnapshot(company, _success_time(last_success) if last_success is not None else None, groups)


_GROUP_COLUMNS = tuple(column.name for column in OfferGroup.__table__.columns)
_SNAPSHOT = (
    select(
        *Company.__table__.columns,
        select(SyncState.value).where(SyncState.name == st.LAST_SUCCESS_AT).scalar_subquery(),
        *OfferGroup.__table__.columns,
    )
    .select_from(Company.__table__.outerjoin(OfferGroup.__table__, OfferGroup.plugin_key == Company.plugin_key))
    .where(Company.plugin_key == bindparam("key"))
)


@functools.lru_cache(maxsize=64)  # one per channel set
def _snapshot_sql(open_for: tuple[str, ...] | None) -> str:
    """`_SNAPSHOT` as literal Postgres SQL; with `open_for`, only a public company with those channels open."""
    sql = (
        f"SELECT {', '.join('c.' + name for name in _COMPANY_COLUMNS)}, "
        "(SELECT value FROM sync_state WHERE name = %(name)s), "
        f"{', '.join('o.' + name for name in _GROUP_COLUMNS)} "
        "FROM companies c LEFT JOIN offer_groups o ON o.plugin_key = c.plugin_key WHERE c.plugin_key = %(key)s"
    )
    if open_for is not None:
        sql += _gate_sql(open_for, "c")
    return sql


def transient(model, values: dict):
    """A transient, read-only instance of `model` holding `values` (every column).

    Set straight into the instance's dict: the ORM constructor records each
    attribute as a change with events and history, which is most of the cost
    of a warm request's lookup and none of its use (these objects are never
    added to a session).
    """
    if not _MAPPERS_CONFIGURED:
        _configure_mappers()
    instance = model._sa_class_manager.new_instance()
    instance.__dict__.update(values)
    return instance


_MAPPERS_CONFIGURED = False


def _configure_mappers() -> None:
    # The ORM's constructor configures the mappers on first use; new_instance()
    # does not, and an unconfigured attribute cannot be read.
    global _MAPPERS_CONFIGURED
    configure_mappers()
    _MAPPERS_CONFIGURED = True


def _transaction_memo(session: Session) -> dict:
    # Valid for one transaction only (or, before any, for the autocommit
    # lookups): a new snapshot must read again.
    transaction = session.get_transaction()
    memo = session.info.get(_MEMO_KEY)
    if memo is None or memo["transaction"] is not transaction:
        memo = {"transaction": transaction, "companies": {}}
        session.info[_MEMO_KEY] = memo
    return memo


@event.listens_for(Session, "after_transaction_end")
def _forget_at_transaction_end(session: Session, _transaction) -> None:
    # A long-lived session must never answer from what an earlier snapshot saw.
    session.info.pop(_MEMO_KEY, None)


def freshness(last_synced_at: datetime | None, threshold_seconds: int, now: datetime) -> FreshnessState:
    """fresh, stale (older than the threshold) or unavailable (never synced)."""
    if last_synced_at is None:
        return "unavailable"
    age = (now - last_synced_at).total_seconds()
    return "stale" if age > threshold_seconds else "fresh"


def last_synced_at(session: Session, company: Company) -> datetime | None:
    """The end of the last successful run that covered this company."""
    memo = _transaction_memo(session)
    if "last_success_at" in memo:
        whole_run = memo["last_success_at"]
    else:
        whole_run = st.get_time(st.read_state(session), st.LAST_SUCCESS_AT)
    return effective_synced_at(company, whole_run)


def effective_synced_at(company: Company, whole_run: datetime | None) -> datetime | None:
    """The later of the company's own single-company run and the last whole run."""
    candidates = [t for t in (_aware(company.last_synced_at), whole_run) if t is not None]
    return max(candidates) if candidates else None


def company_urls(settings: Settings, plugin_key: str) -> dict[str, str]:
    """The absolute public URLs of a company's surfaces."""
    return {
        "quote_page_url": settings.absolute(urls.company_path(urls.QUOTE_PAGE, plugin_key)),
        "pricing_url": settings.absolute(urls.company_path(urls.PRICING_PAGE, plugin_key)),
        "mcp_url": settings.absolute(urls.company_path(urls.COMPANY_MCP, plugin_key)),
    }


def build_company_view(
    session: Session, company: Company, settings: Settings, now: datetime | None = None
) -> CompanyView:
    """Assemble the public view of a company from its row and offer groups."""
    groups = session.scalars(select(OfferGroup).where(OfferGroup.plugin_key == company.plugin_key)).all()
    return company_view(company, groups, last_synced_at(session, company), settings, now)


def company_view(
    company: Company, groups, synced: datetime | None, settings: Settings, now: datetime | None = None
) -> CompanyView:
    """The public view from already-loaded facts: the row, its offer groups and the sync time (no query)."""
    now = now or datetime.now(UTC)
    categories = sorted((_category_view(g) for g in groups), key=lambda c: (c.kind != "system", c.name.lower(), c.slug))
    urls = company_urls(settings, company.plugin_key)
    quote_open = channels.channel_open(company, "quote")
    funnel = funnel_url(company)
    return CompanyView(
        business=_business_view(company),
        categories=categories,
        currency=company.currency,
        price_description=company.price_description,
        data_provenance=DATA_PROVENANCE,
        channels=dict(company.channels or {}),
        quote_url=urls["quote_page_url"] if quote_open else None,
        funnel_url=stamp_referrer(funnel, settings.referrer_stamp) if funnel else None,
        last_synced_at=synced,
        content_updated_at=_aware(company.content_updated_at),
        freshness_state=freshness(synced, settings.freshness_threshold_seconds, now),
        content_version=company.content_version,
        generation=company.generation,
        **urls,
    )


def _business_view(company: Company) -> BusinessView:
    stored = company.address or {}
    lat, lon = stored.get("latitude"), stored.get("longitude")
    codes = list(company.service_postal_codes or [])
    trades = list(company.trades or [])
    return BusinessView(
        plugin_key=company.plugin_key,
        name=company.name,
        trades=trades,
        business_types=[BUSINESS_TYPES[t] for t in trades if t in BUSINESS_TYPES] or ["HomeAndConstructionBusiness"],
        address=AddressView.from_stored(company.address),
        geo=GeoView(latitude=lat, longitude=lon) if lat is not None and lon is not None else None,
        phone=company.phone,
        website=company.website,
        service_area=ServiceAreaView(postal_code_count=len(codes), postal_codes=codes),
    )


def _category_view(group: OfferGroup) -> CategoryView:
    tiers = None
    if group.kind == "system":
        tiers = TierPrices(
            good=cents_to_decimal(group.good_cents),
            better=cents_to_decimal(group.better_cents),
            best=cents_to_decimal(group.best_cents),
        )
    return CategoryView(
        name=group.category_name,
        slug=group.category_slug,
        kind=group.kind,
        price_low=cents_to_decimal(group.price_low_cents),
        price_high=cents_to_decimal(group.price_high_cents),
        offer_count=group.offer_count,
        tiers=tiers,
        image_url=group.image_url,
    )
