"""The incremental (and full) sync of the upstream catalog into the mirror.

A run happens in ONE database transaction: every company, product, offer
group, watermark and clock it writes becomes visible at its commit, or not at
all. Pages are streamed and applied in batches as they arrive, so memory stays
flat however large the catalog is; an incremental run touches only what changed.

Walk order (docs/contracts/upstream.md):
1. `/v1/companies` since the companies watermark (everything on a full run).
2. Incremental runs: each company new to the mirror gets its whole catalog
   from `/v1/companies/{key}/products`, then `/v1/products` is read since the
   products watermark. Full (and first) runs read `/v1/products` whole, which
   covers every company's catalog, then remove what the walks did not return.
3. Offer groups, content versions and feed state are rebuilt for the
   companies the run touched; watermarks and the success time are written.
"""

from __future__ import annotations

import functools
import gc
import logging
import queue
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import case, delete, func, select, text, tuple_, update
from sqlalchemy.orm import Session

from mirror import state as st
from mirror.bulk import await_copy, insert_rows, keys_in, refusal_reason, update_rows
from mirror.businesses import feed_hash
from mirror.lock import SyncRecent, sync_lock
from mirror.models import Company, OfferGroup, Product, SyncRun
from mirror.offers import (
    GROUP_COLUMNS,
    changed_offer_groups_query,
    content_version,
    groups_in,
    record_hash,
    sort_offer_groups,
)
from mirror.records import (
    CompanyRecord,
    InvalidRecord,
    ProductRecord,
    Tombstone,
    parse_company,
    parse_product,
)
from mirror.upstream import UpstreamClient, UpstreamNotFound

log = logging.getLogger(__name__)

# How many keys of invalid records the once-per-run summary names (each is at DEBUG too).
INVALID_EXAMPLES = 5

COMPANY_FIELDS = (
    "name",
    "trades",
    "status",
    "storefront_live",
    "phone",
    "website",
    "address",
    "service_postal_codes",
    "currency",
    "price_description",
    "estimate_url",
    "shop_url",
    "channels",
)
PRODUCT_FIELDS = (
    "name",
    "category_name",
    "category_slug",
    "category_kind",
    "tier",
    "brand",
    "model_numbers",
    "description",
    "price_cents",
    "published",
    "image_url",
    "specs",
)
# The columns products.search_vector is generated from (migration 0004; a
# test compares this with Postgres's own record of the dependencies).
# Postgres computes a stored generated column again, and indexes the new
# vector, on every UPDATE that assigns one of them: update_rows leaves them
# out for rows whose values there are the stored ones (a repricing).
PRODUCT_VECTOR_SOURCES = (
    "sku",
    "name",
    "model_numbers",
    "brand",
    "category_name",
    "category_slug",
    "tier",
    "description",
)
# Bulk inserts (COPY) apply no column defaults: a new company starts with these.
NEW_COMPANY_BOOKKEEPING = {
    "generation": 1,
    "in_feed": False,
    "feed_hash": None,
    "feed_changed_ms": None,
    "content_version": None,
    "content_updated_at": None,
    "last_synced_at": None,
}
# What computing a record's stored values can raise for an odd value (the
# record's problem, never the run's): its change hash, its JSON.
_RECORD_VALUE_ERRORS = (ValueError, TypeError, OverflowError, RecursionError)
# Companies per offer-group rebuild: the database summarises a batch's
# products in one pass (mirror.offers.offer_groups_query).
REBUILD_BATCH = 2000
# Product records a walk buffers before one round of database work (one
# lookup of what is held, one COPY): pages are 500 records, and a round per
# page spent more on round trips than on the rows. On Postgres the COPY runs
# on a writer thread while the next batch is parsed (_BackgroundCopy).
APPLY_BATCH = 5000
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
    repaired_records: int = 0  # stored with unstorable characters replaced (mirror/storable.py)
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
class _RunState:
    """Bookkeeping of one run, all of it bounded by the number of changes."""

    mode: str
    # The generation this run gives every company whose public rendering it
    # changes: the run's id, so values only grow, even for a company removed
    # and later added again (render caches key on it; see mirror/render_cache.py).
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
    seen_companies: set[str] = field(default_factory=set)  # full runs only
    # Whether the mirror holds a company, for the keys this run has looked up
    # (products of companies it does not hold are orphans).
    held_companies: dict[str, bool] = field(default_factory=dict)
    first_server_time: datetime | None = None
    feed_moved: bool = False  # some feed record changed, joined or left
    feed_departure: bool = False  # some business left the feed
    invalid_reasons: Counter = field(default_factory=Counter)  # reason -> count, for the summary
    invalid_examples: list[str] = field(default_factory=list)  # the first few keys
    repaired_fields: Counter = field(default_factory=Counter)  # field -> records, for the summary
    repaired_examples: list[str] = field(default_factory=list)

    def note_repair(self, record, fields: list[str]) -> None:
        """A record stored with its unstorable characters replaced: counted, and named in the summary."""
        self.counts.repaired_records += 1
        self.repaired_fields.update(fields)
        key = record.plugin_key if isinstance(record, CompanyRecord) else f"{record.plugin_key}/{record.sku}"
        if len(self.repaired_examples) < INVALID_EXAMPLES:
            self.repaired_examples.append(key)
        log.debug("replaced unstorable characters in %s (%s)", key, ", ".join(fields))


def _skip_invalid(run: _RunState, kind: str, key: str, reason: str) -> None:
    """Count one unusable record: DEBUG now, in the run's one summary line later."""
    run.counts.invalid_records += 1
    run.invalid_reasons[reason] += 1
    if len(run.invalid_examples) < INVALID_EXAMPLES:
        run.invalid_examples.append(key)
    log.debug("skipped invalid %s record %s: %s", kind, key, reason)


def _log_record_summary(run_id: int, run: _RunState) -> None:
    """One WARNING per run for its invalid records, one for its repaired ones: counts, and the first few keys."""
    if run.invalid_reasons:
        reasons = ", ".join(f"{reason}: {count}" for reason, count in run.invalid_reasons.most_common())
        log.warning(
            "sync run %s skipped %d invalid records (%s); first: %s",
            run_id,
            run.counts.invalid_records,
            reasons,
            ", ".join(run.invalid_examples),
        )
    if run.repaired_fields:
        fields = ", ".join(f"{name}: {count}" for name, count in run.repaired_fields.most_common())
        log.warning(
            "sync run %s replaced unstorable characters (NUL, lone surrogates) with U+FFFD in %d records "
            "(%s); first: %s",
            run_id,
            run.counts.repaired_records,
            fields,
            ", ".join(run.repaired_examples),
        )


def _seconds_since_last_whole_run(session_factory) -> float | None:
    """How long ago the last whole run (not a single company's) ended; None when none has."""
    with session_factory() as session:
        last_end = session.scalar(select(func.max(SyncRun.finished_at)).where(SyncRun.company_key.is_(None)))
    if last_end is None:
        return None
    last_end = last_end if last_end.tzinfo else last_end.replace(tzinfo=UTC)
    return (datetime.now(UTC) - last_end).total_seconds()


def run_sync(
    engine,
    session_factory,
    client: UpstreamClient,
    *,
    overlap_seconds: int = 60,
    full: bool = False,
    company_key: str | None = None,
    progress: Progress | None = None,
    skip_if_ended_within: float | None = None,
) -> SyncResult:
    """Run one sync under the cross-process lock and record it in sync_runs.

    Raises SyncBusy when another process is syncing. Upstream or database
    failures roll the run back and are recorded; the result says "failed".
    With `skip_if_ended_within` (seconds: the scheduler's ticks), raises
    SyncRecent instead of running when a whole run ended that recently. The
    check is made holding the lock: checked before taking it, two
    processes' ticks could both see no recent run, and the second would
    sync again as soon as the first released the lock.
    """
    mode = "company" if company_key else ("full" if full else "incremental")
    with sync_lock(engine), _fewer_collections():
        if skip_if_ended_within is not None:
            age = _seconds_since_last_whole_run(session_factory)
            if age is not None and age < skip_if_ended_within:
                raise SyncRecent(age)
        run_id, started_at = _open_run(session_factory, mode, company_key)
        run = _RunState(mode=mode, generation=run_id)
        session = session_factory()
        try:
            _sync(session, client, run, overlap_seconds, company_key, progress or (lambda *_: None))
            finished_at = utcnow()
            _finish(session, run, finished_at, company_key)
            run.counts.upstream_requests = client.requests_made
            _close_run(session, run_id, "success", run.counts, finished_at, None)
            session.commit()
            _log_record_summary(run_id, run)
            return SyncResult(run_id, "success", mode, run.counts, started_at, finished_at)
        except BaseException as error:
            session.rollback()
            finished_at = utcnow()
            run.counts.upstream_requests = client.requests_made
            message = f"{type(error).__name__}: {error}"[:1000]
            with session_factory() as failed:
                _close_run(failed, run_id, "failed", run.counts, finished_at, message)
                failed.commit()
            if not isinstance(error, Exception):
                raise
            _log_record_summary(run_id, run)
            log.error("sync run %s failed: %s", run_id, message)
            return SyncResult(run_id, "failed", mode, run.counts, started_at, finished_at, message, error)
        finally:
            session.close()


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often while a sync runs.

    A full sync allocates millions of short-lived objects (records, rows,
    dicts): with the default threshold the collector ran ~3,000 times and
    spent 2.8 s of the run's 9.6 s of CPU (measured with gc.callbacks on the
    benchmark's 200,000 products), though almost nothing it examines is
    cyclic garbage; at 50,000 it runs ~20 times for 0.7 s. It still runs,
    so cyclic garbage is still freed. The threshold is the process's, put
    back at the end (one sync at a time: the sync lock).
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 50_000), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _open_run(session_factory, mode: str, company_key: str | None) -> tuple[int, datetime]:
    started_at = utcnow()
    with session_factory() as session:
        row = SyncRun(mode=mode, company_key=company_key, started_at=started_at, status="running", counts={})
        session.add(row)
        session.commit()
        return row.id, started_at


def _close_run(session: Session, run_id: int, status: str, counts: SyncCounts, at: datetime, error: str | None):
    session.execute(
        update(SyncRun)
        .where(SyncRun.id == run_id)
        .values(status=status, finished_at=at, counts=counts.as_dict(), error=error)
    )


def _sync(session: Session, client, run: _RunState, overlap: int, company_key: str | None, progress: Progress):
    saved = st.read_state(session)
    incremental = run.mode == "incremental"
    since = st.get_time(saved, st.WATERMARK_COMPANIES) if incremental else None
    for page in prefetch(client.walk("/v1/companies", since)):
        run.first_server_time = run.first_server_time or page.server_time
        records = page.data
        if company_key:
            records = [r for r in records if isinstance(r, dict) and r.get("plugin_key") == company_key]
        _apply_companies(session, run, records)
        progress("companies", len(page.data))
    # Every company row settled (its COPY awaited, refused rows known) before
    # anything asks which companies are new or held.
    await_copy(session)
    if run.mode == "company":
        _sync_one_catalog(session, client, run, company_key)
        return
    products_since = st.get_time(saved, st.WATERMARK_PRODUCTS) if incremental else None
    if products_since is None:
        # A full (or first) run reads every product of every company in one
        # walk of /v1/products: that covers each company's whole catalog in
        # ~400 requests instead of one walk per company.
        _walk_products(session, client, run, None, progress, reconcile=run.mode == "full")
        if run.mode == "full":
            _remove_unseen_companies(session, run)
    else:
        # Companies new to the mirror: their older products will never come
        # again through /v1/products, so read their whole catalogs first.
        for key in sorted(run.new_companies):
            _read_whole_catalog(session, client, run, key)
            progress("catalogs", 1)
        _walk_products(session, client, run, products_since, progress, reconcile=False)
    watermark = run.first_server_time - timedelta(seconds=overlap)
    st.put(session, st.WATERMARK_COMPANIES, watermark)
    st.put(session, st.WATERMARK_PRODUCTS, watermark)


def _sync_one_catalog(session: Session, client, run: _RunState, company_key: str) -> None:
    """`sync --company KEY`: that company's record and whole catalog, reconciled."""
    if company_key in run.seen_companies:
        _read_whole_catalog(session, client, run, company_key)
    else:
        _remove_companies(session, run, [company_key])


def _walk_products(session: Session, client, run: _RunState, since, progress: Progress, *, reconcile: bool):
    """Apply a walk of /v1/products; with `reconcile`, drop every product it did not return."""
    seen: set[tuple[str, str]] | None = set() if reconcile else None
    batch: list = []
    # Read ahead at least a whole batch, so the walk goes on while one is written.
    for page in prefetch(client.walk("/v1/products", since), depth=APPLY_BATCH // 500 + 2):
        # Parsed as each page arrives, so parsing overlaps the next page's
        # fetch instead of following the batch's last page.
        batch.extend(parse_product(raw, run.note_repair) for raw in page.data)
        if len(batch) >= APPLY_BATCH:
            _apply_products(session, run, batch, seen=seen, are_parsed=True)
            batch = []
        progress("products", len(page.data))
    if batch:
        _apply_products(session, run, batch, seen=seen, are_parsed=True)
    if seen is not None:
        # Streamed, so the reconciliation holds one set of keys, not two.
        products = Product.__table__.c
        held = session.connection().execute(
            select(products.plugin_key, products.sku).execution_options(yield_per=10_000)
        )
        gone = [(key, sku) for key, sku in held if (key, sku) not in seen]
        _delete_products(session, run, gone)


def _delete_products(session: Session, run: _RunState, keys: list[tuple[str, str]]) -> None:
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        session.execute(delete(Product).where(tuple_(Product.plugin_key, Product.sku).in_(chunk)))
    run.counts.products_removed += len(keys)
    run.touched_catalogs.update(key for key, _ in keys)
    run.whole_catalogs.update(key for key, _ in keys)


# --- companies -----------------------------------------------------------------


def _company_values(record: CompanyRecord) -> dict:
    values = {name: getattr(record, name) for name in COMPANY_FIELDS}
    values["is_public"] = record.is_public
    values["upstream_updated_at"] = record.updated_at
    values["record_hash"] = record_hash(values | {"upstream_updated_at": None})
    return values


def _last_per_key(records: Iterable, key: Callable) -> dict:
    # A record that changed mid-walk comes again later: the last one wins.
    latest: dict = {}
    for record in records:
        latest[key(record)] = record
    return latest


def _apply_companies(session: Session, run: _RunState, raw_records: list) -> None:
    parsed = [parse_company(raw, run.note_repair) for raw in raw_records]
    run.counts.companies_seen += len(parsed)
    for bad in (p for p in parsed if isinstance(p, InvalidRecord)):
        _skip_invalid(run, "company", str(bad.plugin_key), bad.reason)
        if bad.plugin_key:
            run.seen_companies.add(bad.plugin_key)  # keep what the mirror holds
    latest = _last_per_key((p for p in parsed if isinstance(p, CompanyRecord)), lambda r: r.plugin_key)
    run.seen_companies.update(latest)
    if not latest:
        return
    held = {
        row.plugin_key: row
        for row in session.execute(
            select(Company.plugin_key, Company.record_hash, Company.upstream_updated_at, Company.generation).where(
                Company.plugin_key.in_(latest)
            )
        )
    }
    inserts, updates = [], []
    for key, record in latest.items():
        try:
            values = _company_values(record)
        except _RECORD_VALUE_ERRORS as error:
            _skip_invalid(run, "company", key, f"unusable ({type(error).__name__})")
            continue
        old = held.get(key)
        if old is None:
            inserts.append({"plugin_key": key, **NEW_COMPANY_BOOKKEEPING, "generation": run.generation, **values})
            run.new_companies.add(key)
        elif old.record_hash != values["record_hash"] and record.updated_at >= _aware(old.upstream_updated_at):
            updates.append({"plugin_key": key, "generation": next_generation(old.generation, run), **values})
        else:
            continue
        run.changed_companies.add(key)
    run.held_companies.update(dict.fromkeys(latest, True))
    run.counts.companies_written += len(inserts) + len(updates)
    insert_rows(session, Company, inserts, refused=lambda row, error: _company_refused(run, row, error, new=True))
    update_rows(session, Company, updates, refused=lambda row, error: _company_refused(run, row, error, new=False))


def _company_refused(run: _RunState, row: dict, error: BaseException, *, new: bool) -> None:
    """The database refused a company's row: that record is skipped (what the mirror held stays) and the run goes on."""
    key = row["plugin_key"]
    run.counts.companies_written -= 1
    run.changed_companies.discard(key)
    if new:  # the mirror does not hold it: its products are orphans, and no catalog walk is due
        run.new_companies.discard(key)
        run.held_companies[key] = False
    _skip_invalid(run, "company", key, refusal_reason(error))


def _aware(value: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _remove_unseen_companies(session: Session, run: _RunState) -> None:
    held = set(session.scalars(select(Company.plugin_key)))
    _remove_companies(session, run, sorted(held - run.seen_companies))


def _remove_companies(session: Session, run: _RunState, keys: list[str]) -> None:
    """Delete companies (and everything of theirs) that upstream no longer has."""
    if not keys:
        return
    departed = session.scalar(select(Company.plugin_key).where(Company.plugin_key.in_(keys), Company.in_feed).limit(1))
    for table in (Product, OfferGroup):
        session.execute(delete(table).where(table.plugin_key.in_(keys)))
    result = session.execute(delete(Company).where(Company.plugin_key.in_(keys)))
    run.held_companies.update(dict.fromkeys(keys, False))
    run.counts.companies_removed += result.rowcount or 0
    run.changed_companies.difference_update(keys)
    run.touched_catalogs.difference_update(keys)
    if departed:
        run.feed_departure = True


# --- products ------------------------------------------------------------------


def _product_values(record: ProductRecord) -> dict:
    values = {name: getattr(record, name) for name in PRODUCT_FIELDS}
    values["upstream_updated_at"] = record.updated_at
    values["record_hash"] = record_hash(values | {"upstream_updated_at": None})
    return values


def _read_whole_catalog(session: Session, client, run: _RunState, key: str) -> None:
    """Read one company's whole current catalog and drop what it no longer has."""
    seen: set[tuple[str, str]] = set()
    try:
        for page in client.walk(f"/v1/companies/{key}/products"):
            _apply_products(session, run, page.data, seen=seen, only_company=key)
    except UpstreamNotFound:
        log.warning("company %s is gone upstream (404 on its catalog)", key)
        run.seen_companies.discard(key)
        _remove_companies(session, run, [key])
        return
    held = session.scalars(select(Product.sku).where(Product.plugin_key == key))
    _delete_products(session, run, [(key, sku) for sku in held if (key, sku) not in seen])


def _apply_products(
    session: Session, run: _RunState, raw_records: list, *, seen=None, only_company=None, are_parsed: bool = False
):
    """Apply one page of product records (`are_parsed`: parse_product's results already); `seen` collects
    the keys a reconciling walk returned."""
    parsed = raw_records if are_parsed else [parse_product(raw, run.note_repair) for raw in raw_records]
    run.counts.products_seen += len(parsed)
    usable = []
    for record in parsed:
        if isinstance(record, InvalidRecord):
            _skip_invalid(run, "product", f"{record.plugin_key}/{record.sku}", record.reason)
            if seen is not None and record.plugin_key and record.sku:
                seen.add(_key(record))  # never erase the last valid version
        elif only_company and record.plugin_key != only_company:
            _skip_invalid(run, "product", f"{record.plugin_key}/{record.sku}", f"listed under {only_company}")
        else:
            usable.append(record)
    latest = _last_per_key(usable, _key)
    maybe_held = None
    if seen is not None:
        # A company new in this run had no products when it began, so only
        # keys this walk returned before can be held: the rest skip the lookup
        # (on a first full sync, every one of them).
        maybe_held = [k for k in latest if k in seen or k[0] not in run.new_companies]
        seen.update(k for k, r in latest.items() if not isinstance(r, Tombstone))
    latest = _drop_orphans(session, run, latest)
    if latest:
        _write_products(session, run, latest, maybe_held)


def _key(record) -> tuple[str, str]:
    # Interned: a reconciling walk keeps every key it saw, and the company
    # part is shared by a whole catalog.
    return sys.intern(record.plugin_key), record.sku


def _drop_orphans(session: Session, run: _RunState, latest: dict) -> dict:
    """Products of companies the mirror does not hold are skipped and counted."""
    held = run.held_companies
    unknown = {key for key, _ in latest if key not in held}
    if unknown:
        found = set(session.scalars(select(Company.plugin_key).where(keys_in(Company.plugin_key, unknown, session))))
        held.update((key, key in found) for key in unknown)
    kept = {k: r for k, r in latest.items() if held[k[0]]}
    run.counts.orphan_products += len(latest) - len(kept)
    return kept


def _held_products(session: Session, keys: list[tuple[str, str]]) -> dict:
    """The held (record_hash, upstream_updated_at, category_slug) of those products that the mirror has."""
    columns = (Product.plugin_key, Product.sku, Product.record_hash, Product.upstream_updated_at, Product.category_slug)
    if session.get_bind().dialect.name == "postgresql":
        # Two array parameters instead of a bind pair per key: a batch is
        # thousands of keys.
        pairs = text(
            "(products.plugin_key, products.sku) IN (SELECT * FROM unnest(CAST(:k AS text[]), CAST(:s AS text[])))"
        )
        statements = [select(*columns).where(pairs).params(k=[k for k, _ in keys], s=[s for _, s in keys])]
    else:
        statements = [
            select(*columns).where(tuple_(Product.plugin_key, Product.sku).in_(keys[start : start + 500]))
            for start in range(0, len(keys), 500)
        ]
    return {(row.plugin_key, row.sku): row for statement in statements for row in session.execute(statement)}


def _write_products(session: Session, run: _RunState, latest: dict, maybe_held: list | None = None) -> None:
    """Insert, update or delete what changed; `maybe_held`: the only keys that can be held (default: all)."""
    lookup = list(latest) if maybe_held is None else [k for k in maybe_held if k in latest]
    held = _held_products(session, lookup) if lookup else {}
    inserts, updates, deletes = [], [], []
    for (key, sku), record in latest.items():
        old = held.get((key, sku))
        if old is not None and record.updated_at < _aware(old.upstream_updated_at):
            continue  # an older version than the one held: never go back in time
        if isinstance(record, Tombstone):
            if old is not None:
                deletes.append((key, sku))
            continue
        try:
            values = _product_values(record)
        except _RECORD_VALUE_ERRORS as error:
            _skip_invalid(run, "product", f"{key}/{sku}", f"unusable ({type(error).__name__})")
            continue
        if old is None:
            inserts.append({"plugin_key": key, "sku": sku, **values})
        elif old.record_hash != values["record_hash"]:
            updates.append({"plugin_key": key, "sku": sku, **values})
        else:
            continue
        run.touched_catalogs.add(key)
        slugs = run.touched_groups.setdefault(key, set())
        slugs.add(values["category_slug"])
        if old is not None:
            slugs.add(old.category_slug)
    run.counts.products_written += len(inserts) + len(updates)
    refused = functools.partial(_product_refused, run)
    insert_rows(session, Product, inserts, refused=refused)
    update_rows(session, Product, updates, generated_from=PRODUCT_VECTOR_SOURCES, refused=refused)
    if deletes:
        _delete_products(session, run, deletes)


def _product_refused(run: _RunState, row: dict, error: BaseException) -> None:
    """The database refused a product's row: that record is skipped (what the mirror held stays) and the run goes on.

    Its company stays touched: rebuilding its offer groups from what is held
    gives the same groups, so nothing moves that should not.
    """
    run.counts.products_written -= 1
    _skip_invalid(run, "product", f"{row['plugin_key']}/{row['sku']}", refusal_reason(error))


# --- finishing: offer groups, feed state, clocks -------------------------------


def _finish(session: Session, run: _RunState, finished_at: datetime, company_key: str | None) -> None:
    session.flush()
    saved = st.read_state(session)
    feed_stamp = max(int(finished_at.timestamp() * 1000), st.get_int(saved, st.FEED_CLOCK_MS) + 1)
    touched = sorted(run.changed_companies | run.touched_catalogs)
    if touched and session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL work_mem = '128MB'"))  # the rebuild sorts a batch's products in memory
    for start in range(0, len(touched), REBUILD_BATCH):
        _rebuild(session, run, touched[start : start + REBUILD_BATCH], finished_at, feed_stamp)
    if run.feed_moved or run.feed_departure:
        st.put(session, st.FEED_CLOCK_MS, feed_stamp)
    if run.feed_departure:
        st.put(session, st.FEED_DEPARTED_MS, feed_stamp)
    if company_key:
        session.execute(update(Company).where(Company.plugin_key == company_key).values(last_synced_at=finished_at))
    else:
        st.put(session, st.LAST_SUCCESS_AT, finished_at)
    _refresh_planner_statistics(session, run)


# A run that wrote at least this many rows refreshes the planner's statistics.
ANALYZE_AFTER_ROWS = 10_000


def _refresh_planner_statistics(session: Session, run: _RunState) -> None:
    """ANALYZE the catalog tables after a run that rewrote much of them (Postgres), in the run's transaction.

    Without statistics (a first sync, a large catalog change, autovacuum off
    or not yet round), the planner guesses: it took ~440 products per
    company where there are 20, and answered a per-company search by
    intersecting the company's rows with the full-text index's posting
    lists over all 200,000 products (34,000 entries for `furnace`): 20 ms a
    query instead of 0.3 ms. ANALYZE samples a fixed number of rows (about
    0.2 s here), and its statistics commit, or roll back, with the run;
    small incremental runs skip it and leave it to autovacuum.
    """
    counts = run.counts
    written = counts.products_written + counts.products_removed + counts.companies_written + counts.companies_removed
    if written >= ANALYZE_AFTER_ROWS and session.get_bind().dialect.name == "postgresql":
        session.execute(text("ANALYZE companies, products, offer_groups"))


# The company columns a rebuild reads: the content version's inputs, the
# feed's facts (mirror.businesses.feed_hash) and REBUILT_COLUMNS.
REBUILD_READS = (
    "plugin_key",
    "currency",
    "price_description",
    "name",
    "is_public",
    "channels",
    "address",
    "website",
    "phone",
    "estimate_url",
    "shop_url",
    "content_version",
    "content_updated_at",
    "generation",
    "feed_hash",
    "in_feed",
    "feed_changed_ms",
)


def _rebuild(session: Session, run: _RunState, keys: list[str], now: datetime, feed_stamp: int) -> None:
    """Rebuild offer groups, content versions and feed state for some companies.

    The database summarises the touched groups again and returns only those
    that differ from the stored ones (mirror.offers.changed_offer_groups_query):
    a repricing inside a category's range changes none. Only they are
    written. A company whose record changed, that is new or lost products
    gets its content version and feed facts computed again; one whose
    catalog only had products written, its content version when one of its
    groups changed (the feed's facts are the record's: a catalog change
    never moves them). Every company whose products were written gets a new
    generation; those with nothing else to change, in one statement.
    """
    dialect = session.get_bind().dialect.name
    whole, pairs = _groups_to_summarise(run, keys, dialect)
    # Whole companies and category pairs are two statements: under one OR,
    # Postgres cannot join the pairs to the products and reads every one
    # (0.19 s for the benchmark's 1,782 pairs).
    statements = [changed_offer_groups_query(whole, dialect)] if whole else []
    if pairs:
        statements.append(changed_offer_groups_query([], dialect, pairs))
    changed: dict[str, dict[str, tuple | None]] = {}  # company -> slug -> its group now, None when gone
    for statement in statements:
        for row in session.execute(statement):
            changed.setdefault(row.plugin_key, {})[row.category_slug] = None if row.gone else tuple(row)[1:]
    versioned = sorted(set(whole) | set(changed))
    columns = Company.__table__.c
    companies = {
        row.plugin_key: row
        for row in session.execute(
            select(*(columns[name] for name in REBUILD_READS)).where(keys_in(columns.plugin_key, versioned, session))
        )
    }
    stored: dict[str, dict[str, tuple]] = {}
    groups = OfferGroup.__table__
    for row in session.execute(
        select(*(groups.c[name] for name in GROUP_COLUMNS)).where(keys_in(groups.c.plugin_key, versioned, session))
    ):
        stored.setdefault(row[0], {})[row[1]] = tuple(row)
    whole_set = set(whole)
    company_updates = []
    for key, company in companies.items():
        after = stored.get(key, {})
        for slug, group in changed.get(key, {}).items():
            if group is None:
                after.pop(slug, None)
            else:
                after[slug] = group
        changes = _version_changes(company, run, list(after.values()), key in whole_set, now, feed_stamp)
        if changes:
            # Every row names all the columns a rebuild can move (the
            # unchanged ones at their stored values), so update_rows writes
            # them in one statement.
            company_updates.append(
                {"plugin_key": key, **{name: getattr(company, name) for name in REBUILT_COLUMNS}, **changes}
            )
    _delete_groups(session, [(key, slug) for key, slugs in changed.items() for slug in slugs], dialect)
    written = [dict(zip(GROUP_COLUMNS, g, strict=True)) for slugs in changed.values() for g in slugs.values() if g]
    insert_rows(session, OfferGroup, written)
    update_rows(session, Company, company_updates)
    _bump_generations(session, run, [k for k in keys if k not in companies and _bumps_generation(k, run)])
    run.counts.offer_groups_rebuilt += len(written)
    session.expunge_all()  # keep the identity map (and memory) flat across batches


def _bumps_generation(key: str, run: _RunState) -> bool:
    # Its products were written; a changed record already moved the generation.
    return key in run.touched_catalogs and key not in run.changed_companies


def _bump_generations(session: Session, run: _RunState, keys: list[str]) -> None:
    """next_generation() for companies, in one statement: their rows need not be read."""
    if not keys:
        return
    companies = Company.__table__
    generation = companies.c.generation
    session.execute(
        update(companies)
        .where(keys_in(companies.c.plugin_key, keys, session))
        .values(generation=case((generation + 1 > run.generation, generation + 1), else_=run.generation))
    )


def _delete_groups(session: Session, pairs: list[tuple[str, str]], dialect: str) -> None:
    # Postgres binds two arrays however many pairs; SQLite binds each pair's two values.
    step = len(pairs) if dialect == "postgresql" else 400
    for start in range(0, len(pairs), step or 1):
        chunk = pairs[start : start + step]
        session.execute(delete(OfferGroup).where(groups_in(OfferGroup.__table__, chunk, dialect)))


def _groups_to_summarise(run: _RunState, keys: list[str], dialect: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(companies whose every group is summarised again, (company, category) pairs for the rest).

    A company new in this run, with a changed record (public, currency) or
    that lost products is summarised whole; one whose catalog only had
    products written, just in the categories they were and are in.
    """
    whole, pairs = [], []
    for key in keys:
        slugs = run.touched_groups.get(key)
        if slugs is None or key in run.changed_companies or key in run.new_companies or key in run.whole_catalogs:
            whole.append(key)
        else:
            pairs.extend((key, slug) for slug in sorted(slugs))
    if dialect != "postgresql" and len(pairs) > 4000:  # SQLite binds each pair's two values
        return keys, []
    return whole, pairs


# The company columns _version_changes can change.
REBUILT_COLUMNS = ("content_version", "content_updated_at", "generation", "feed_hash", "in_feed", "feed_changed_ms")


def _version_changes(company, run: _RunState, groups: list[tuple], whole: bool, now: datetime, feed_stamp: int) -> dict:
    """The bookkeeping columns of a company that this run's rebuild moves (of REBUILT_COLUMNS).

    `groups`: the company's offer groups after the run (GROUP_COLUMNS
    rows); `whole`: the company's record changed, it is new or lost
    products, so the feed's facts may have moved.
    """
    changes: dict = {}
    rows = sort_offer_groups([dict(zip(GROUP_COLUMNS, group, strict=True)) for group in groups])
    version = content_version(company.currency, company.price_description, rows)
    if version != company.content_version:
        changes.update(content_version=version, content_updated_at=now)
    if _bumps_generation(company.plugin_key, run):
        changes["generation"] = next_generation(company.generation, run)
    if whole:
        new_feed_hash = feed_hash(company)
        if new_feed_hash != company.feed_hash:
            if company.in_feed and new_feed_hash is None:
                run.feed_departure = True
            changes.update(feed_hash=new_feed_hash, in_feed=new_feed_hash is not None, feed_changed_ms=feed_stamp)
            run.feed_moved = True
    assert changes.keys() <= set(REBUILT_COLUMNS)  # update_rows needs rows of the same columns
    return changes


def next_generation(current: int, run: _RunState) -> int:
    """A generation strictly above the current one, and at least the run's."""
    return max(current + 1, run.generation)


def prefetch(pages: Iterator, depth: int = 2) -> Iterator:
    """Fetch the next pages on a thread while the caller writes this one.

    Network waits and JSON decoding overlap the database work; errors are
    re-raised in the caller, in order, and an abandoned walk stops promptly.
    """
    buffer: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def produce() -> None:
        try:
            for page in pages:
                while not stop.is_set():
                    try:
                        buffer.put(("page", page), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            buffer.put(("end", done))
        except BaseException as error:
            buffer.put(("error", error))

    worker = threading.Thread(target=produce, name="upstream-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            kind, item = buffer.get()
            if kind == "page":
                yield item
            elif kind == "error":
                raise item
            else:
                return
    finally:
        stop.set()
