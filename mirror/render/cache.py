"""The render cache: each company's public renderings, computed once per content state.

Between two syncs every public answer about a company is a pure function of
the mirror, so the view, the serialised bodies (pricing.json, JSON-LD, the
hosted pages), their ETags and the catalog-only tool results are built once
and reused until something they depend on moves.

What a rendering depends on, and so what it is keyed by, all of it read from
the process's gate state (mirror/read/gate.py), never from the database:

- the *content* stamp (`GateEntry.content`): `Company.generation`, which the
  sync sets, in the run's own transaction, on every company whose public
  rendering that run changed (record, catalog or offer groups; see
  mirror/sync/; values come from the run's id, so they only ever grow, even
  for a company removed and added again), plus `record_hash` and
  `content_version` as a second guard (a database restored from an older
  dump could repeat a generation);
- the *timing*: the effective `last_synced_at` (the company's own
  single-company runs, or the state's last successful whole run), which
  every body shows, and `freshness_state`, which turns from fresh to stale
  with the clock alone.

A warm request therefore costs no query at all. A company's entry (its view,
built from one statement) lives as long as its content stamp; when only the
timing moves, the view is re-timed in memory and the bodies are serialised
again once.

On a content miss the row, the sync time and the offer groups are read
together by one statement (mirror.read.company), and the view is kept only
when that snapshot's stamp is the gate entry's: when the database is
already past the process's state, `StateMoved` says so and the caller
refreshes the state and asks again (web/gate.py), so a cached view can never
be newer or older than the state the process answers from. A body is stored
together with the ETag computed from those very bytes.

Memory is bounded: at most `max_companies` entries (least recently used
evicted first), each holding its few bodies and at most `max_results` tool
results (an LRU keyed by the tool's normalised arguments).

A caller says whether it needs the company's options (`options=True`:
pricing.json and the hosted pages list every public product). The others —
every tool, the JSON-LD, the answers — are served from a *summary* entry,
read without the products, so their miss costs the same on a catalog of 20
products and of 100,000 (a 100,000-product view takes seconds to build; a
search must not pay for it whenever cold companies pushed that entry out).
A complete entry serves both kinds of caller; a summary entry is replaced by
the complete one when a caller needs the options.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, NamedTuple

from cachetools import LRUCache
from sqlalchemy.orm import Session

from mirror.catalog.public_view import CompanyView, effective_synced_at, freshness
from mirror.read.company import load_company_snapshot
from mirror.read.gate import GateEntry, MirrorState, StateMoved, content_of
from mirror.render.documents import Document, DocumentSet, Timing, load_template
from mirror.runtime import deadline
from mirror.runtime.config import Settings

MAX_COMPANIES = 1000
MAX_DOCUMENT_KINDS = 4  # the stored documents held per company: pricing.json, JSON-LD and the two hosted pages
MAX_RESULTS_PER_COMPANY = 256
# Tool arguments longer than this (as canonical JSON) are answered uncached:
# they are not what agents repeat, and they would crowd the LRU out.
MAX_ARGUMENTS_KEY_CHARS = 1024
_MISSING = object()


@dataclass(frozen=True)
class Rendered:
    """One serialised body and the strong ETag of exactly these bytes."""

    body: bytes
    etag: str


class _HeldDocument(NamedTuple):
    """A stored document as filled in at one content stamp and timing (its bytes only: a page is tens of kB, and
    its template would hold them twice); or, `rendered` None, that none served at the gate's state `version`."""

    content: tuple
    timing: Timing
    rendered: Rendered | None
    version: int


class CompanyRenderings:
    """Everything rendered for one company at one stamp (content and timing).

    Immutable in what it answers: a request holds the object that matches its
    own snapshot, so another request moving the cache on cannot change it.
    """

    def __init__(self, timing: tuple, view: CompanyView, etag: Callable[[bytes], str], max_results: int) -> None:
        self.timing = timing
        self.view = view
        self._etag = etag
        self._max_results = max_results
        self._bodies: dict[str, Rendered] = {}
        self._results: LRUCache = LRUCache(maxsize=max(max_results, 1))
        self._lock = threading.Lock()
        self.renders = 0  # bodies and results computed (tests count them)

    def body(self, kind: str, render: Callable[[CompanyView], bytes]) -> Rendered:
        """The `kind` body (e.g. "pricing.json"), rendered from the view on first use."""
        found = self._bodies.get(kind)
        if found is not None:
            return found
        body = render(self.view)
        rendered = Rendered(body=body, etag=self._etag(body))
        with self._lock:
            self.renders += 1
            return self._bodies.setdefault(kind, rendered)

    def result(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """A computed value (a tool result) by key, kept in a bounded LRU.

        The value is shared between requests and threads: callers must treat
        it as read-only.
        """
        with self._lock:
            found = self._results.get(key, _MISSING)
        if found is not _MISSING:
            return found
        value = compute()
        with self._lock:
            self.renders += 1
            if self._max_results:
                self._results[key] = value
        return value


class CompanyEntry:
    """One company's cached content: the view as built from the database.

    Kept as long as the content stamp holds. When only the timing moves (a
    whole sync that did not touch this company still moves last_synced_at,
    and the clock turns fresh into stale) the view is re-timed in memory,
    without a query, and the bodies are rendered again once.
    """

    def __init__(self, content: tuple, base_view: CompanyView) -> None:
        self.content = content
        self.base_view = base_view
        self.current: CompanyRenderings | None = None

    def serves(self, content: tuple, options: bool) -> bool:
        """Whether this entry answers a caller at `content` that does (or does not) need the options."""
        return self.content == content and (self.base_view.with_options or not options)


class RenderCache:
    """Per-process cache of company renderings (an LRU of `CompanyEntry`)."""

    def __init__(
        self,
        settings: Settings,
        etag: Callable[[bytes], str],
        *,
        documents: DocumentSet,
        max_companies: int = MAX_COMPANIES,
        max_results: int = MAX_RESULTS_PER_COMPANY,
    ) -> None:
        self.settings = settings
        self._etag = etag
        self.max_companies = max_companies
        self.max_results = max_results
        self._entries: LRUCache = LRUCache(maxsize=max_companies)
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # company -> the lock of its build under way
        self.views_built = 0  # views built from the database (each costs one snapshot statement)
        # The stored documents filled in (mirror/render/documents.py), per (company, kind).
        self._documents: LRUCache = LRUCache(maxsize=max(MAX_DOCUMENT_KINDS * max_companies, 1))
        self.document_set = documents  # the app's (Mirror.documents): its surfaces register theirs at start-up
        self.documents_read = 0  # stored documents read from the database (each costs one primary-key read)

    def __len__(self) -> int:
        return len(self._entries)

    def entry(
        self, session: Session, gated: GateEntry, state: MirrorState, now: datetime | None = None, *, options: bool
    ) -> CompanyRenderings:
        """The renderings of a gated company at the process's gate `state`.

        `options`: the caller renders the company's options (pricing.json,
        the hosted pages); False serves it from the summary. A hit costs no
        query. A content miss reads the company in one statement of
        `session` and raises `StateMoved` when the database is not at
        `state` for it (the caller refreshes the state and asks again).
        """
        timing = self._timing(gated, state, now)
        key = gated.plugin_key
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.serves(gated.content, options):
                current = entry.current
                if current is not None and current.timing == timing:
                    return current
        if entry is None or not entry.serves(gated.content, options):
            entry = self._rebuild_once(session, gated, now, options)
        return self._retime(entry, timing)

    def document(
        self, session: Session, gated: GateEntry, state: MirrorState, document: Document, now: datetime | None = None
    ) -> Rendered | None:
        """The company's `document` as the sync stored it, filled in at this moment; None when no stored row serves.

        Held in memory per company and kind, as bytes, at its content stamp
        and timing: a hit costs no query. A miss, or a held document whose
        timing moved (a whole sync, fresh turning stale: once per company and
        run), reads the one stored row by its primary key
        (mirror/render/documents.py), which
        serves only when it was rendered at the stamp the gate state holds for
        the company and in this release's format. None: the caller renders
        it from the catalog (`entry(...).body(...)`), as for a company the
        sync has not rendered yet; that none serves is held too, until the
        gate's state moves (the next run may store it: after an upgrade it
        renders every company again without changing their stamps).
        """
        timing = self._timing(gated, state, now)
        key = (gated.plugin_key, document.kind)
        with self._lock:
            held = self._documents.get(key)
        if held is not None and held.content == gated.content:
            if held.rendered is None and held.version == state.version:
                return None
            if held.rendered is not None and held.timing == timing:
                return held.rendered
        stored = load_template(session, gated.plugin_key, document, self.format)
        rendered = None
        if stored is not None and stored.stamp == gated.content:
            body = document.stored(stored.body).fill(timing)
            rendered = Rendered(body=body, etag=self._etag(body))
        with self._lock:
            self.documents_read += rendered is not None
            self._documents[key] = _HeldDocument(gated.content, timing, rendered, state.version)
        return rendered

    @cached_property
    def format(self) -> str:
        """The stored documents' format this process serves (read once the app's surfaces registered theirs)."""
        return self.document_set.format(self.settings)

    def _timing(self, gated: GateEntry, state: MirrorState, now: datetime | None) -> Timing:
        """A company's timing at the gate `state` and this moment: its last sync and whether that is fresh."""
        synced = effective_synced_at(gated, state.last_success_at)
        return Timing(synced, freshness(synced, self.settings.freshness_threshold_seconds, now or datetime.now(UTC)))

    def _rebuild_once(self, session: Session, gated: GateEntry, now: datetime, options: bool) -> CompanyEntry:
        """A content miss, built by one thread of the process at a time per company; the others wait for it.

        The view of a 100,000-product catalog takes seconds to build: built by
        every thread that asked at once, on a busy machine none of them
        finished within the request deadline, so it was never kept. A waiter
        waits no longer than its own request's deadline (DeadlineExceeded).
        """
        key = gated.plugin_key
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        running = deadline.current()
        if not building.acquire(timeout=max(running.remaining(), 0.001) if running is not None else -1):
            raise running.expired()
        try:
            with self._lock:
                entry = self._entries.get(key)
            if entry is not None and entry.serves(gated.content, options):
                return entry  # built by the thread this one waited for
            return self._rebuild(session, gated, now, options)
        finally:
            building.release()
            with self._lock:
                if not building.locked():
                    self._building.pop(key, None)  # bounded by the builds under way, not by the companies seen

    def _rebuild(self, session: Session, gated: GateEntry, now: datetime, options: bool) -> CompanyEntry:
        """A content miss: the view from ONE snapshot, kept when that snapshot is the gate's state."""
        snapshot = load_company_snapshot(session, gated.plugin_key, options=options)
        if snapshot is None or content_of(snapshot.company) != gated.content:
            raise StateMoved(gated.plugin_key)
        entry = CompanyEntry(gated.content, snapshot.view(self.settings, now))
        self._store(gated.plugin_key, entry)
        return entry

    def _store(self, key: str, entry: CompanyEntry) -> None:
        with self._lock:
            self.views_built += 1
            self._entries[key] = entry

    def _retime(self, entry: CompanyEntry, timing: tuple) -> CompanyRenderings:
        synced, state = timing
        view = entry.base_view
        if (view.last_synced_at, view.freshness_state) != timing:
            view = view.model_copy(update={"last_synced_at": synced, "freshness_state": state})
        renderings = CompanyRenderings(timing, view, self._etag, self.max_results)
        with self._lock:
            if entry.current is not None and entry.current.timing == timing:
                return entry.current  # another thread got there first
            entry.current = renderings  # the latest snapshot's timing is the one to keep
        return renderings

    def peek(self, plugin_key: str) -> CompanyEntry | None:
        """The entry held for a company, if any (tests and diagnostics)."""
        with self._lock:
            return self._entries.get(plugin_key)

    def clear(self) -> None:
        """Drop every entry (never needed for correctness; for tests and operators)."""
        with self._lock:
            self._entries.clear()
            self._documents.clear()


def arguments_key(name: str, arguments: dict) -> tuple[str, str] | None:
    """A hashable, normalised key for a tool call, or None when it should not be cached.

    Canonical JSON (sorted keys, no spacing) so the same arguments in any
    order share one entry; numbers keep their JSON type, so 5 and 5.0 (which
    strict validation treats differently) never share one.
    """
    try:
        text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return None
    if len(text) > MAX_ARGUMENTS_KEY_CHARS:
        return None
    return name, text
