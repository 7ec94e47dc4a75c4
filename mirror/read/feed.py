"""The business feed's reads: which businesses a walk lists, and one page's rows, by keyed range (never OFFSET).

Who is in the feed is decided by the sync, not here: `Company.in_feed`,
`feed_hash` and `feed_changed_ms` are maintained in the sync's transaction
(mirror/catalog/feed_facts.py, mirror/sync/), together with two clocks in
`sync_state`: FEED_CLOCK_MS (the last change of any kind to the feed) and
FEED_DEPARTED_MS (the last time a business left it). This module only reads.

Paging. Pages are requested by number, not by cursor, yet page N must cost
what page 1 costs, so no OFFSET. The sync moves FEED_CLOCK_MS in the same
transaction as every change to membership, so the clock names one feed state
exactly. For each state (and, for changes walks, each token time) the ordered
key list is read once, from the `(in_feed, plugin_key)` index, and kept in a
small per-process LRU (`FeedIndex`). A page is then a slice of that list, and
its rows come from one keyed range query, `plugin_key BETWEEN first AND last`.

One statement reads the feed state and the page's range together
(`_STATE_AND_ROWS`): when the state it reads is the one the keys were cached
for (the process's last guess), that one snapshot is the answer, one round
trip. Otherwise the page is read in the session's snapshot
transaction: the state, then the keys and rows it names; a page whose rows
disagree with the cached slice rebuilds the index (a safety net; the clock
makes it unnecessary in normal operation).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import NamedTuple

from cachetools import LRUCache
from sqlalchemy import Text, and_, bindparam, cast, select, true
from sqlalchemy.orm import Session

from mirror.store import state as st
from mirror.store.db import rows_by_name, statement_rows
from mirror.store.models import Company, SyncState

log = logging.getLogger(__name__)

_COMPANIES = Company.__table__


class FeedRecord(NamedTuple):
    """One business of a page: only what a feed record shows, and the address as its stored text (it is
    decoded only when the record has to be rendered again: feeds/business_feed.py)."""

    plugin_key: str
    name: str
    address: str | None
    phone: str | None
    website: str | None
    estimate_url: str | None
    shop_url: str | None


class _FeedState(NamedTuple):
    """The feed clocks a one-statement page reads beside its rows (as sync_state stores them)."""

    clock: str | None
    departed: str | None


INDEX_CAPACITY = 8  # feed states (and token times) whose key lists a process keeps


@dataclass(frozen=True)
class Walk:
    """What to list: everything (since_ms None) or the changes after since_ms."""

    since_ms: int | None


def plan_walk(since_ms: int | None, clock_ms: int, departed_ms: int) -> Walk:
    """The changes walk a client's token asks for, or the full walk when it cannot be answered as one.

    `since_ms` is the time of a well-formed, current-version token (None:
    no such token). The full walk when that time is in the future of this
    feed, or a business left the feed since (a list of changes cannot say
    "removed").
    """
    if since_ms is None or since_ms > clock_ms or departed_ms > since_ms:
        return Walk(None)
    return Walk(since_ms)


@dataclass(frozen=True)
class FeedRead:
    """What a page is made of: the feed state it was read at, the walk, the walk's size and the page's rows."""

    clock_ms: int
    walk: Walk
    total: int
    rows: list[FeedRecord]


def _record_columns(table) -> list:
    return [cast(table.c.address, Text) if name == "address" else table.c[name] for name in FeedRecord._fields]


def _in_walk(table, since: bool) -> list:
    conditions = [table.c.in_feed == true()]
    if since:
        conditions.append(table.c.feed_changed_ms > bindparam("since"))
    return conditions


def _state_and_rows(since: bool):
    """One statement: the two feed clocks beside the page's keyed range (one row with NULLs when it is empty)."""
    clock = select(SyncState.value).where(SyncState.name == st.FEED_CLOCK_MS).scalar_subquery()
    departed = select(SyncState.value).where(SyncState.name == st.FEED_DEPARTED_MS).scalar_subquery()
    state = select(clock.label("clock"), departed.label("departed")).subquery("s")
    c = _COMPANIES.alias("c")
    in_range = and_(*_in_walk(c, since), c.c.plugin_key >= bindparam("first"), c.c.plugin_key <= bindparam("last"))
    return (
        select(state.c.clock, state.c.departed, *_record_columns(c))
        .select_from(state.outerjoin(c, in_range))
        .order_by(c.c.plugin_key)
    )


def _page_rows_statement(since: bool):
    # Both ends of the range come from the index, so it holds exactly the page: no LIMIT needed.
    return (
        select(*_record_columns(_COMPANIES))
        .where(*_in_walk(_COMPANIES, since))
        .where(_COMPANIES.c.plugin_key >= bindparam("first"), _COMPANIES.c.plugin_key <= bindparam("last"))
        .order_by(_COMPANIES.c.plugin_key)
    )


def _keys_statement(since: bool):
    return select(_COMPANIES.c.plugin_key).where(*_in_walk(_COMPANIES, since)).order_by(_COMPANIES.c.plugin_key)


# Built once per shape (with or without a token time): a statement is compiled once.
_STATE_AND_ROWS = {since: _state_and_rows(since) for since in (False, True)}
_PAGE_ROWS = {since: _page_rows_statement(since) for since in (False, True)}
_KEYS = {since: _keys_statement(since) for since in (False, True)}


class FeedIndex:
    """Per-process LRU of ordered key lists, one per (feed clock, walk), and the last feed state read."""

    def __init__(self, capacity: int = INDEX_CAPACITY) -> None:
        self._entries: LRUCache = LRUCache(maxsize=capacity)
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
        """The ordered plugin keys of the walk at this feed state (read in the session's snapshot on a miss)."""
        cache_key = (clock_ms, walk.since_ms)
        if not rebuild:
            found = self.cached(clock_ms, walk)
            if found is not None:
                return found
        params = {"since": walk.since_ms}
        keys = tuple(session.scalars(_KEYS[walk.since_ms is not None], params))
        with self._lock:
            self.builds += 1
            self._entries[cache_key] = keys
        return keys


def read_feed_page(session: Session, index: FeedIndex, since_ms: int | None, page: int, page_size: int) -> FeedRead:
    """One page of the walk a token asks for (`since_ms`, see `plan_walk`), as one consistent snapshot."""
    return _page_in_one_statement(session, index, since_ms, page, page_size) or _page_in_a_transaction(
        session, index, since_ms, page, page_size
    )


def _page_in_one_statement(
    session: Session, index: FeedIndex, since_ms: int | None, page: int, page_size: int
) -> FeedRead | None:
    """The page by one statement that also reads the feed state; None when that cannot answer.

    The keys come from the index for the feed state a request last read,
    and the statement returns the current state beside the rows: if the
    state is that one, the keys are its keys and the rows are what the
    table holds in the same snapshot, exactly what the transactional path
    would serve. Otherwise (a sync moved the clock, nothing cached yet, rows
    that disagree with the index) the caller takes that path. A warm page
    is one round trip instead of four (BEGIN, state, rows, ROLLBACK).
    """
    guess = index.last_state
    if guess is None:
        return None
    walk = plan_walk(since_ms, *guess)
    keys = index.cached(guess[0], walk)
    if keys is None:
        return None
    wanted = keys[(page - 1) * page_size : page * page_size]
    params = {"first": wanted[0] if wanted else None, "last": wanted[-1] if wanted else None, "since": walk.since_ms}
    statement = _STATE_AND_ROWS[walk.since_ms is not None]
    found = statement_rows(session, statement, params)
    if not found:
        return None
    (state,) = rows_by_name(statement, found[:1], _FeedState)
    if (int(state.clock or 0), int(state.departed or 0)) != guess:
        return None
    # An empty range is one row of NULLs beside the clocks.
    rows = [row for row in rows_by_name(statement, found, FeedRecord) if row.plugin_key is not None]
    if tuple(row.plugin_key for row in rows) != wanted:
        return None
    return FeedRead(guess[0], walk, len(keys), rows)


def _page_in_a_transaction(
    session: Session, index: FeedIndex, since_ms: int | None, page: int, page_size: int
) -> FeedRead:
    """The page in the session's snapshot transaction: the feed state, then the keys and rows it names."""
    saved = st.read_state(session)
    clock_ms, departed_ms = st.get_int(saved, st.FEED_CLOCK_MS), st.get_int(saved, st.FEED_DEPARTED_MS)
    walk = plan_walk(since_ms, clock_ms, departed_ms)
    keys = index.keys(session, clock_ms, walk)
    wanted = keys[(page - 1) * page_size : page * page_size]
    rows = _rows_of(session, walk, wanted)
    if tuple(row.plugin_key for row in rows) != wanted:
        # Only possible if something other than the sync changed the feed
        # without moving its clock: re-read the keys in this snapshot.
        log.warning("business feed index disagreed with the table at clock %s; rebuilding", clock_ms)
        keys = index.keys(session, clock_ms, walk, rebuild=True)
        rows = _rows_of(session, walk, keys[(page - 1) * page_size : page * page_size])
    index.last_state = (clock_ms, departed_ms)
    return FeedRead(clock_ms, walk, len(keys), rows)


def _rows_of(session: Session, walk: Walk, wanted: tuple[str, ...]) -> list[FeedRecord]:
    if not wanted:
        return []
    params = {"first": wanted[0], "last": wanted[-1], "since": walk.since_ms}
    statement = _PAGE_ROWS[walk.since_ms is not None]
    return rows_by_name(statement, session.execute(statement, params), FeedRecord)
