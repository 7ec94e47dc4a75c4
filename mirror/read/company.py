"""One company as the database holds it: its row, its offer groups (each with its public products) and the last
whole run, in one statement.

Two reads of it, by what the reader shows: the *complete* snapshot carries
every public product as its category's options (pricing.json and the hosted
pages list them), the *summary* leaves them out (every tool, the JSON-LD and
the answers show categories, never options). A summary costs the same on a
catalog of 20 products and of 100,000; the complete one grows with it.

The render cache's miss path (mirror/render/cache.py) builds a company's view
from this snapshot, and so do the few callers that need a view without a
cache (the provider tools, which answer for any feed business; the peer in
bench/). The statement is its own consistent snapshot (mirror.store.db.statement_rows),
so a view can never mix two states. It stays one statement whatever the
catalog's size: offer groups are one row per category (summarised by the
sync), and each carries its public products as one JSON array (the options
the pricing page lists), read by a correlated subquery over the products'
(plugin_key, category_slug) index.
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import JSON, ColumnElement, FunctionElement, String, any_, bindparam, null, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session

from mirror.catalog.channels import company_open
from mirror.catalog.public_products import public_products_filter
from mirror.catalog.public_view import CompanyView, company_view, effective_synced_at
from mirror.read.gate import GateEntry, Stamp, StateMoved
from mirror.runtime.config import Settings
from mirror.store import state as st
from mirror.store.db import rows_by_name, statement_rows
from mirror.store.models import KEY_LENGTH, Company, OfferGroup, Product, SyncState
from mirror.values.storable import storable
from mirror.values.timestamps import parse_rfc3339

_COMPANY = Company.__table__
_GROUPS = OfferGroup.__table__
# Plain rows, never ORM entities: a view reads attributes, and nothing here is ever written.
CompanyRow = namedtuple("CompanyRow", [column.name for column in _COMPANY.columns])
# An offer group's columns, then its public products (`options`: a list of dicts, OPTION_COLUMNS each).
GroupRow = namedtuple("GroupRow", [*(column.name for column in _GROUPS.columns), "options"])
# What the view shows of each product (mirror.catalog.public_view.option_views).
OPTION_COLUMNS = (
    Product.sku,
    Product.name,
    Product.brand,
    Product.tier,
    Product.price_cents,
    Product.labels,  # its size, ratings and warranty as the sync read them (not its specs: read once per change)
    Product.image_url,
)


@dataclass(frozen=True)
class CompanySnapshot:
    """A company row, the last whole-run success time and its offer groups, read by ONE statement."""

    company: CompanyRow
    last_success_at: datetime | None
    groups: tuple[GroupRow, ...]
    with_options: bool  # whether each group carries its public products (the complete read) or None (the summary)

    @property
    def last_synced_at(self) -> datetime | None:
        """The end of the last successful run that covered this company."""
        return effective_synced_at(self.company, self.last_success_at)

    def view(self, settings: Settings, now: datetime | None = None) -> CompanyView:
        """The company's public view, from this snapshot alone (a summary view when read without options)."""
        return company_view(
            self.company, self.groups, self.last_synced_at, settings, now, with_options=self.with_options
        )


class json_objects(FunctionElement):
    """The aggregate of one JSON object per row, `(name, value)` pairs in: a JSON array (NULL over no rows).

    json_agg(json_build_object(...)).
    """

    type = JSON()
    inherit_cache = True
    name = "json_objects"

    def __init__(self, *columns: ColumnElement) -> None:
        self.column_names = tuple(column.key for column in columns)
        super().__init__(*columns)


@compiles(json_objects)
def _json_objects(element: json_objects, compiler, **kw) -> str:
    pairs = ", ".join(
        f"'{name}', {compiler.process(column, **kw)}"
        for name, column in zip(element.column_names, element.clauses, strict=True)
    )
    return f"json_agg(json_build_object({pairs}))"


def _options(key):
    """Each offer group's public products (mirror.catalog.public_products's rule, nothing else), as one JSON
    array: a correlated scalar subquery over the (plugin_key, category_slug) index, so the snapshot stays ONE
    statement whatever the catalog's size. `key`: the company's key (a parameter, or the group's column)."""
    return (
        select(json_objects(*OPTION_COLUMNS))
        .where(public_products_filter(key), Product.category_slug == _GROUPS.c.category_slug)
        .correlate(_GROUPS)
        .scalar_subquery()
    )


# The last whole run's success, beside a company's row.
_LAST_SUCCESS = (
    select(SyncState.value).where(SyncState.name == st.LAST_SUCCESS_AT).scalar_subquery().label("last_success_at")
)
# The offer group's columns are labelled `group_<name>` (a group and its company share some names).
_GROUP = "group_"


def _snapshot_statement(options: bool, *, many: bool = False):
    """The snapshot of the company `key`, or (`many`) of every company in the array `keys`, by company."""
    key = _GROUPS.c.plugin_key if many else bindparam("key")
    statement = select(
        *_COMPANY.columns,
        _LAST_SUCCESS,
        *(column.label(_GROUP + column.name) for column in _GROUPS.columns),
        (_options(key) if options else null()).label(_GROUP + "options"),  # the summary: NULL, read as None
    ).select_from(_COMPANY.outerjoin(_GROUPS, _GROUPS.c.plugin_key == _COMPANY.c.plugin_key))
    if not many:
        return statement.where(_COMPANY.c.plugin_key == key)
    keys = bindparam("keys", type_=ARRAY(String))
    return statement.where(_COMPANY.c.plugin_key == any_(keys)).order_by(_COMPANY.c.plugin_key)


_SNAPSHOTS = {options: _snapshot_statement(options) for options in (True, False)}
_MANY_SNAPSHOTS = {options: _snapshot_statement(options, many=True) for options in (True, False)}


def load_company_snapshot(session: Session, plugin_key: str, *, options: bool) -> CompanySnapshot | None:
    """Everything a company's view is built from, in one indexed statement; None when the mirror holds no such company.

    `options`: read every public product as its category's options (the
    complete view pricing.json and the hosted pages need); False reads the
    summary (categories without options: what tools, JSON-LD and answers show).
    """
    if not valid_key(plugin_key):
        return None
    statement = _SNAPSHOTS[options]
    return _snapshot_from_rows(statement, statement_rows(session, statement, {"key": plugin_key}), options)


def load_company_snapshots(session: Session, plugin_keys: list[str], *, options: bool) -> dict[str, CompanySnapshot]:
    """`load_company_snapshot` for many companies in one statement (the sync's rendering of what it changed):
    {key: snapshot} for those the mirror holds."""
    statement = _MANY_SNAPSHOTS[options]
    rows = statement_rows(session, statement, {"keys": [key for key in plugin_keys if valid_key(key)]})
    snapshots = {}
    by_company = zip(rows_by_name(statement, rows, _CompanyKey), rows, strict=True)
    for key, company_rows in itertools.groupby(by_company, key=lambda pair: pair[0].plugin_key):
        snapshots[key] = _snapshot_from_rows(statement, [row for _, row in company_rows], options)
    return snapshots


class _CompanyKey(NamedTuple):
    plugin_key: str


def _snapshot_from_rows(statement, rows: list, options: bool) -> CompanySnapshot | None:
    """The snapshot in the statement's rows (one per offer group; none: no company)."""
    if not rows:
        return None
    (company,) = rows_by_name(statement, rows[:1], CompanyRow)
    (first,) = rows_by_name(statement, rows[:1], _LastSuccess)
    groups = tuple(
        group
        for group in rows_by_name(statement, rows, GroupRow, prefix=_GROUP)
        if group.plugin_key is not None  # NULL when the company has no group
    )
    return CompanySnapshot(company, _time(first.last_success_at), groups, options)


class _LastSuccess(NamedTuple):
    last_success_at: str | None  # as sync_state stores it (RFC 3339)


def _time(stored: str | None) -> datetime | None:
    return parse_rfc3339(stored) if stored is not None else None


_OPEN_ROW = select(*_COMPANY.columns, _LAST_SUCCESS).where(_COMPANY.c.plugin_key == bindparam("key"))


def open_company_row(
    session: Session, plugin_key: str, channel: str | None
) -> tuple[CompanyRow, datetime | None] | None:
    """A company's row and its effective last_synced_at, when it is public with `channel` open; one statement.

    The gate for a process without a gate state (the benchmark's peer server
    asks the database on every call, as a plain MCP server would).
    """
    if not valid_key(plugin_key):
        return None
    rows = statement_rows(session, _OPEN_ROW, {"key": plugin_key})[:1]
    if not rows:
        return None
    (company,) = rows_by_name(_OPEN_ROW, rows, CompanyRow)
    if not company_open(company, channel):
        return None
    (first,) = rows_by_name(_OPEN_ROW, rows, _LastSuccess)
    return company, effective_synced_at(company, _time(first.last_success_at))


# --- reads checked against the gate state -------------------------------------------


_STAMP_LABEL = "stamp_"


def stamp_columns(key: ColumnElement) -> list[ColumnElement]:
    """The company's rendering stamp as three columns of another statement (scalar subqueries, read once).

    A per-company read (a search, a category's tiers) carries them, so the
    same snapshot that answers says which state it answered from.
    """
    return [
        select(_COMPANY.c[name]).where(_COMPANY.c.plugin_key == key).scalar_subquery().label(_STAMP_LABEL + name)
        for name in Stamp._fields
    ]


def check_stamp(session: Session, company: GateEntry | None, statement, rows: list) -> None:
    """StateMoved unless `statement`'s rows (its columns include `stamp_columns`) answered from `company`'s state.

    With no rows the stamp is read on its own; `company` None (a caller
    without a gate state: the benchmark's peer, tests) checks nothing.
    """
    if company is None:
        return
    if rows:
        (stamp,) = rows_by_name(statement, rows[:1], Stamp, prefix=_STAMP_LABEL)
    else:
        found = rows_by_name(_STAMP, statement_rows(session, _STAMP, {"key": company.plugin_key}), Stamp)
        stamp = found[0] if found else None
    if stamp != company.content:
        raise StateMoved(company.plugin_key)


def check_stamp_alone(session: Session, company: GateEntry | None) -> None:
    """StateMoved unless the session reads `company`'s state: its stamp, read on its own."""
    check_stamp(session, company, _STAMP, [])


_STAMP = select(*(_COMPANY.c[name] for name in Stamp._fields)).where(_COMPANY.c.plugin_key == bindparam("key"))


def valid_key(plugin_key: str) -> bool:
    """Whether a string can be a stored pluginKey at all (what every lookup checks before asking)."""
    return bool(plugin_key) and len(plugin_key) <= KEY_LENGTH and storable(plugin_key)
