"""The gate state: which companies are open, held in memory by every process, following each sync's commit.

Every keyed public request first asks whether its company is public with the
surface's channel open (mirror/catalog/channels.py). Asking the database each time
made that the warm path's one round trip. Instead each process holds a
`MirrorState`: one `GateEntry` per public company (its switches and the
stamp its renderings are keyed by) and the time of the last whole run,
all read in ONE snapshot at one *state version*. The version is a
`sync_state` row that every successful run writes in its own transaction
(mirror/sync/rebuild.py): it moves exactly when a commit may have changed
what the gate or a rendering answers.

`GateWatcher` keeps the state current: a background thread asks for the
version every `poll_seconds` (one indexed single-row read, on the same
database requests read, so a streaming replica works as well as the
primary: no LISTEN/NOTIFY, which a standby never delivers), and when it
moved, reads the whole state again and swaps it in at once. The guarantee is
bounded, not instant (docs/contracts/surfaces.md, "Gate freshness"):

- **Within one second.** A request is answered only from a state whose
  version was confirmed by a poll that *began* less than `max_age` (1 s)
  ago; when the thread falls behind (a stalled process, a database that
  does not answer), the request polls itself, and if that fails it fails
  like any request whose database is down (web/errors.py: 503). So a switch
  turned off is a 404 on every worker within a second of the sync's commit
  (plus a replica's replay delay).
- **Never a mix.** The whole state comes from one snapshot and is replaced
  whole. What a request renders from the database (a render cache miss, a
  tool's query) is checked against the state's stamp for that company
  (`StateMoved` when the database is already past it), so no answer is
  newer or older than the version the worker holds.

In one process, `invalidate()` (called by `Mirror.sync` after its commit)
makes the next request poll at once, so a sync and the requests after it in
the same process (the tests, an in-process scheduler) agree immediately.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.engine import Engine

from mirror.catalog.channels import Channel, company_open
from mirror.store import state as st
from mirror.store.models import Company, SyncState
from mirror.values.timestamps import aware

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2
MAX_AGE_SECONDS = 1.0


class StateMoved(Exception):
    """What the database holds for a company is not what this process's gate state says: refresh, then ask again."""

    def __init__(self, plugin_key: str) -> None:
        super().__init__(f"the mirror moved past this process's state for {plugin_key}")
        self.plugin_key = plugin_key


class Stamp(NamedTuple):
    """A company's rendering stamp: what its renderings are keyed by (mirror/render/cache.py), changed by every
    sync that changed them. In a statement, its columns are labelled `stamp_<field>` (mirror/read/company.py)."""

    generation: int
    record_hash: str | None
    content_version: str | None


def content_of(row) -> Stamp:
    """A company row's (or gate entry's) rendering stamp."""
    return Stamp._make(getattr(row, name) for name in Stamp._fields)


@dataclass(frozen=True, slots=True)
class GateEntry:
    """One public company as the gate knows it: enough to decide, and the stamp of its renderings."""

    plugin_key: str
    name: str
    channels: Mapping[str, bool]
    generation: int
    record_hash: str
    content_version: str | None
    last_synced_at: datetime | None  # its own single-company run, if any
    # Its quote funnel's sources (mirror.catalog.public_view.quote_funnel): the quote redirect reads nothing else.
    estimate_url: str | None = None
    shop_url: str | None = None
    # Its public products (`companies.offer_count`): how its catalog is searched (mirror/read/catalog.py).
    offer_count: int | None = None
    is_public: bool = True  # only public companies have an entry (mirror.catalog.channels.company_open reads it)

    @property
    def content(self) -> Stamp:
        """What its renderings are keyed by (mirror/render/cache.py): changed by every sync that changed them."""
        return content_of(self)


# The columns a gate entry is read from (all but `is_public`, which the query filters on).
_ENTRY_COLUMNS = (
    "plugin_key",
    "name",
    "channels",
    "generation",
    "record_hash",
    "content_version",
    "last_synced_at",
    "estimate_url",
    "shop_url",
    "offer_count",
)


@dataclass(frozen=True)
class MirrorState:
    """The gate's view of the mirror at one state version, read in one snapshot."""

    version: int
    last_success_at: datetime | None  # the last successful whole run (freshness, last_synced_at)
    entries: Mapping[str, GateEntry] = field(default_factory=dict)

    def open_company(self, plugin_key: str, channel: Channel | str | None = None) -> GateEntry | None:
        """The company's entry when it is public with `channel` open (None: public at all); else None."""
        entry = self.entries.get(plugin_key)
        return entry if company_open(entry, channel) else None


EMPTY = MirrorState(version=-1, last_success_at=None)


def entry_of(row) -> GateEntry:
    """A public company's gate entry from a row holding `_ENTRY_COLUMNS` (the gate's read, or a server's own)."""
    return GateEntry(
        plugin_key=row.plugin_key,
        name=row.name,
        channels=MappingProxyType(dict(row.channels or {})),
        generation=row.generation,
        record_hash=row.record_hash,
        content_version=row.content_version,
        last_synced_at=aware(row.last_synced_at),
        estimate_url=row.estimate_url,
        shop_url=row.shop_url,
        offer_count=row.offer_count,
    )


def read_version(engine: Engine) -> int:
    """The state version the database holds now (0 before the first run), in one autocommit read."""
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        value = connection.scalar(select(SyncState.value).where(SyncState.name == st.STATE_VERSION))
    return int(value) if value is not None else 0


def read_state(engine: Engine) -> MirrorState:
    """The whole gate state, in one snapshot (the version, the last success time, every public company)."""
    table = Company.__table__
    with engine.connect() as connection, connection.begin():
        named = dict(
            connection.execute(
                select(SyncState.name, SyncState.value).where(
                    SyncState.name.in_((st.STATE_VERSION, st.LAST_SUCCESS_AT))
                )
            ).all()
        )
        rows = connection.execute(
            select(*(table.c[name] for name in _ENTRY_COLUMNS)).where(table.c.is_public.is_(True))
        ).all()
    entries = {row.plugin_key: entry_of(row) for row in rows}
    return MirrorState(
        version=int(named.get(st.STATE_VERSION, 0)),
        last_success_at=st.get_time(named, st.LAST_SUCCESS_AT),
        entries=MappingProxyType(entries),
    )


class GateWatcher:
    """One process's current `MirrorState`, kept within `max_age` of the database by a polling thread."""

    def __init__(
        self,
        engine: Engine,
        *,
        poll_seconds: float = POLL_SECONDS,
        max_age: float = MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine, self.poll_seconds, self.max_age, self.clock = engine, poll_seconds, max_age, clock
        self._state = EMPTY
        self._confirmed_at = float("-inf")  # when the poll that confirmed `_state` began
        self._invalidated_at = float("-inf")  # when this process last committed a sync (`invalidate`)
        self._refresh_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self.reloads = 0  # whole states read (tests count them)

    def current(self) -> MirrorState:
        """The state to answer from: confirmed less than `max_age` ago, polling here if it is not."""
        self._ensure_thread()
        if self.clock() - self._confirmed_at < self.max_age:
            return self._state
        return self.refresh()

    def refresh(self, *, after: float | None = None) -> MirrorState:
        """Poll now (one caller at a time) and read the whole state again if its version moved.

        Skipped when a poll that began after `after` already confirmed the
        state (default: one within `max_age`, another thread's), so a crowd of
        requests finding the state old causes one poll, not one each.
        """
        with self._refresh_lock:
            started = self.clock()
            if self._confirmed_at > (after if after is not None else started - self.max_age):
                return self._state
            version = read_version(self.engine)
            if version != self._state.version:
                self._state = read_state(self.engine)
                self.reloads += 1
            # A poll that began before this process's last commit may have read the version before it: it
            # confirms nothing (the thread's poll, finishing after `invalidate`, handed the next request the
            # state from before the sync).
            self._confirmed_at = started if started > self._invalidated_at else float("-inf")
            return self._state

    def invalidate(self) -> None:
        """Make the next request poll before it answers (this process just committed a sync)."""
        self._invalidated_at = self.clock()
        self._confirmed_at = float("-inf")

    def stop(self) -> None:
        """Stop the polling thread (the app is disposed)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    def _ensure_thread(self) -> None:
        # Started in the process that serves (after a fork, again in each worker).
        if self._pid == os.getpid() or self._stop.is_set():
            return
        with self._refresh_lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="gate-watcher", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        failing = False
        while not self._stop.wait(self.poll_seconds):
            try:
                self.refresh(after=self.clock())
            except Exception as error:  # requests poll themselves meanwhile, and answer 503 while it fails
                if not failing:
                    log.warning("gate state poll failed (%s: %s); retrying", type(error).__name__, str(error)[:200])
                failing = True
            else:
                if failing:
                    log.info("gate state poll answers again")
                failing = False
