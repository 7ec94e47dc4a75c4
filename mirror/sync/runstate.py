"""One run's bookkeeping: its counts, its result, and the records it skipped or repaired."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from mirror.catalog.records import CompanyRecord

log = logging.getLogger("mirror.sync")

# How many keys of invalid records the once-per-run summary names (each is at DEBUG too).
INVALID_EXAMPLES = 5


Progress = Callable[[str, int], None]


@dataclass
class SyncCounts:
    """What a run saw and changed."""

    companies_seen: int = 0
    companies_written: int = 0
    companies_removed: int = 0
    products_seen: int = 0
    products_written: int = 0
    products_removed: int = 0
    invalid_records: int = 0
    repaired_records: int = 0  # stored with unstorable characters replaced (mirror/values/storable.py)
    capped_records: int = 0  # stored with a field held to its cap (mirror/catalog/records.py)
    orphan_products: int = 0
    offer_groups_rebuilt: int = 0
    upstream_requests: int = 0

    def as_dict(self) -> dict:
        """Plain dict for the sync_runs history."""
        return dict(self.__dict__)


@dataclass
class SyncResult:
    """The outcome of one run."""

    run_id: int
    status: str
    mode: str
    counts: SyncCounts
    started_at: datetime
    finished_at: datetime
    error: str | None = None
    # The exception that failed the run, for callers that explain it (the CLI); never stored.
    cause: Exception | None = field(default=None, repr=False, compare=False)


def utcnow() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


@dataclass
class RunState:
    """Bookkeeping of one run, all of it bounded by the number of changes."""

    mode: str
    # The generation this run gives every company whose public rendering it
    # changes: the run's id, so values only grow, even for a company removed
    # and later added again (render caches key on it; see mirror/render/cache.py).
    generation: int = 1
    counts: SyncCounts = field(default_factory=SyncCounts)
    new_companies: set[str] = field(default_factory=set)
    changed_companies: set[str] = field(default_factory=set)  # company record changed
    touched_catalogs: set[str] = field(default_factory=set)  # products changed
    # Of those, the categories whose products were written (old and new
    # slug), and the companies that lost products (every category): a rebuild
    # summarises only these groups again and keeps the company's others.
    touched_groups: dict[str, set[str]] = field(default_factory=dict)
    whole_catalogs: set[str] = field(default_factory=set)
    # Of the touched, the companies whose products came, went or changed in what their spelling list reads
    # (mirror/sync/words.py; a repricing does not): only their lists are made again.
    reworded: set[str] = field(default_factory=set)
    seen_companies: set[str] = field(default_factory=set)  # full runs only
    # Whether the mirror holds a company, for the keys this run has looked up
    # (products of companies it does not hold are orphans).
    held_companies: dict[str, bool] = field(default_factory=dict)
    # The trades of the companies whose products this run reads (mirror/sync/facts.py), and the companies
    # whose trades it changed (their products are read again when it finishes).
    company_trades: dict[str, tuple[str, ...]] = field(default_factory=dict)
    retraded: set[str] = field(default_factory=set)
    first_server_time: datetime | None = None
    feed_moved: bool = False  # some feed record changed, joined or left
    feed_departure: bool = False  # some business left the feed
    invalid_reasons: Counter = field(default_factory=Counter)  # reason -> count, for the summary
    invalid_examples: list[str] = field(default_factory=list)  # the first few keys
    repaired_fields: Counter = field(default_factory=Counter)  # field -> records, for the summary
    repaired_examples: list[str] = field(default_factory=list)
    # UPSTREAM_MAX_CLOCK_SKEW_SECONDS: how far ahead of this clock an upstream stamp may be (latest_stamp).
    max_clock_skew: timedelta = timedelta(0)
    capped_fields: Counter = field(default_factory=Counter)  # field -> records, for the summary
    capped_examples: list[str] = field(default_factory=list)

    def latest_stamp(self) -> datetime:
        """The latest `updated_at` or `server_time` the run keeps from the upstream: now plus the allowed skew."""
        return utcnow() + self.max_clock_skew

    def record_checks(self) -> dict:
        """The keyword arguments of parse_company/parse_product for this run: its repair and cap notes, its clock."""
        return {"on_repair": self.note_repair, "on_cap": self.note_cap, "latest_stamp": self.latest_stamp()}

    def note_cap(self, record, fields: list[str]) -> None:
        """A record stored with fields held to their caps (or its stamp to the clock): counted, named in the summary."""
        self.counts.capped_records += 1
        key = _note(record, fields, self.capped_fields, self.capped_examples)
        log.debug("held %s to the mirror's caps (%s)", key, ", ".join(fields))

    def note_repair(self, record, fields: list[str]) -> None:
        """A record stored with its unstorable characters replaced: counted, and named in the summary."""
        self.counts.repaired_records += 1
        key = _note(record, fields, self.repaired_fields, self.repaired_examples)
        log.debug("replaced unstorable characters in %s (%s)", key, ", ".join(fields))


def _note(record, fields: list[str], counted: Counter, examples: list[str]) -> str:
    """Count a kept record's changed fields, remember it among the first few; its key."""
    counted.update(fields)
    key = record.plugin_key if isinstance(record, CompanyRecord) else f"{record.plugin_key}/{record.sku}"
    if len(examples) < INVALID_EXAMPLES:
        examples.append(key)
    return key


def skip_invalid(run: RunState, kind: str, key: str, reason: str) -> None:
    """Count one unusable record: DEBUG now, in the run's one summary line later."""
    run.counts.invalid_records += 1
    run.invalid_reasons[reason] += 1
    if len(run.invalid_examples) < INVALID_EXAMPLES:
        run.invalid_examples.append(key)
    log.debug("skipped invalid %s record %s: %s", kind, key, reason)


def log_record_summary(run_id: int, run: RunState) -> None:
    """One WARNING per run for each kind of record it noted (invalid, repaired, capped): counts, the first few keys."""
    counts = run.counts
    _summary(
        "sync run %s skipped %d invalid records (%s); first: %s",
        run_id,
        counts.invalid_records,
        run.invalid_reasons,
        run.invalid_examples,
    )
    _summary(
        "sync run %s replaced unstorable characters (NUL, lone surrogates) with U+FFFD in %d records (%s); first: %s",
        run_id,
        counts.repaired_records,
        run.repaired_fields,
        run.repaired_examples,
    )
    _summary(
        "sync run %s held %d records to the size caps or the clock (text cut, list or specs dropped, "
        "future updated_at clamped: %s); first: %s",
        run_id,
        counts.capped_records,
        run.capped_fields,
        run.capped_examples,
    )


def _summary(message: str, run_id: int, count: int, counted: Counter, examples: list[str]) -> None:
    if counted:
        what = ", ".join(f"{name}: {n}" for name, n in counted.most_common())
        log.warning(message, run_id, count, what, ", ".join(examples))
