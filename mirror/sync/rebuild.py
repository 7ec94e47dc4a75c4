"""Finishing a run: offer groups, content versions, generations and feed state for what it touched, then its clocks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from operator import attrgetter

from sqlalchemy import case, delete, select, text, update
from sqlalchemy.orm import Session

from mirror.catalog.feed_facts import feed_hash
from mirror.catalog.offers import (
    GROUP_COLUMNS,
    changed_offer_groups_query,
    content_version,
    groups_in,
    sort_offer_groups,
)
from mirror.store import state as st
from mirror.store.models import Company, OfferGroup
from mirror.sync import concepts, facts, words
from mirror.sync.bulk import batches, insert_rows, keys_in, update_rows
from mirror.sync.runstate import RunState

# Companies per offer-group rebuild: the database summarises a batch's
# products in one pass (mirror.catalog.offers.offer_groups_query).
REBUILD_BATCH = 2000


def finish(
    session: Session,
    run: RunState,
    finished_at: datetime,
    company_key: str | None,
    publish: Callable[[Session], object] | None = None,
) -> None:
    """Step 3 of a run: rebuild what it touched (offer groups, spelling lists, concept tags), render the public
    documents of what changed (`publish`), then move its clocks and the state version."""
    session.flush()
    saved = st.read_state(session)
    feed_stamp = max(int(finished_at.timestamp() * 1000), st.get_int(saved, st.FEED_CLOCK_MS) + 1)
    touched = sorted(run.changed_companies | run.touched_catalogs)
    if touched:
        session.execute(text("SET LOCAL work_mem = '128MB'"))  # the rebuild sorts a batch's products in memory
    for some in batches(touched, REBUILD_BATCH):
        _rebuild(session, run, some, finished_at, feed_stamp)
    facts.refresh(session, sorted(run.retraded))  # what the products are, where more than their records moved
    # The spelling lists, where what they read moved (a company's record: it may have turned private), and the
    # concept tags, with the catalogs they read.
    words.refresh(session, sorted(run.changed_companies | run.reworded | run.whole_catalogs))
    concepts.refresh(session, touched)
    if publish is not None:
        publish(session)  # reads the groups and versions written above
    if run.feed_moved or run.feed_departure:
        st.put(session, st.FEED_CLOCK_MS, feed_stamp)
    if run.feed_departure:
        st.put(session, st.FEED_DEPARTED_MS, feed_stamp)
    if company_key:
        session.execute(update(Company).where(Company.plugin_key == company_key).values(last_synced_at=finished_at))
    else:
        st.put(session, st.LAST_SUCCESS_AT, finished_at)
    # Last, in the same transaction: the version each process's gate state polls
    # (mirror/read/gate.py) moves with the commit of everything above.
    st.put(session, st.STATE_VERSION, run.generation)
    _refresh_planner_statistics(session, run, saved)
    _merge_pending_index_entries(session, run)


# A run that wrote at least this many rows refreshes the planner's statistics.
ANALYZE_AFTER_ROWS = 10_000


def _refresh_planner_statistics(session: Session, run: RunState, saved: dict[str, str]) -> None:
    """ANALYZE the catalog tables once the runs since the last ANALYZE rewrote much of them, in the run's
    transaction.

    Without statistics (a first sync, a large catalog change, autovacuum off
    or not yet round), the planner guesses: it took ~440 products per
    company where there are 20, and answered a per-company search by
    intersecting the company's rows with the full-text index's posting
    lists over all 200,000 products (34,000 entries for `furnace`): 20 ms a
    query instead of 0.3 ms. ANALYZE samples a fixed number of rows (about
    0.2 s here), and its statistics commit, or roll back, with the run.
    Small runs add their rows to a count kept in sync_state, and the run
    that brings it to ANALYZE_AFTER_ROWS analyzes: the statistics follow
    the catalog even where autovacuum is off (as on some managed or
    hand-tuned servers) or behind.
    """
    pending = st.get_int(saved, st.ROWS_SINCE_ANALYZE) + _rows_written(run)
    if pending >= ANALYZE_AFTER_ROWS:
        session.execute(text("ANALYZE companies, products, offer_groups"))
        pending = 0
    st.put(session, st.ROWS_SINCE_ANALYZE, pending)


def _rows_written(run: RunState) -> int:
    counts = run.counts
    return counts.products_written + counts.products_removed + counts.companies_written + counts.companies_removed


# Every GIN index of the tables the sync writes (the full-text indexes and the served ZIPs', migrations 0003,
# 0009): whatever its name, so an index added later is merged too.
_MERGE_PENDING = text(
    "SELECT gin_clean_pending_list(i.indexrelid::regclass) FROM pg_index i "
    "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
    "WHERE a.amname = 'gin' AND i.indrelid IN ('companies'::regclass, 'products'::regclass, 'offer_groups'::regclass)"
)


def _merge_pending_index_entries(session: Session, run: RunState) -> None:
    """Merge the rows this run wrote into the GIN indexes proper, in the run's transaction.

    A GIN index queues new entries in a pending list that every search reads
    whole, unsorted, until VACUUM merges them (migration 0010 caps it at
    256 kB). Merging at the end of the run costs what the run queued, once,
    and leaves the searches between runs nothing to read there.
    """
    if _rows_written(run):
        session.execute(_MERGE_PENDING)


# A group's values, GROUP_COLUMNS in order, read from a row by name.
_group_values = attrgetter(*GROUP_COLUMNS)


def _rebuild(session: Session, run: RunState, keys: list[str], now: datetime, feed_stamp: int) -> None:
    """Rebuild offer groups, content versions and feed state for some companies.

    The database summarises the touched groups again and returns only those
    that differ from the stored ones (mirror.catalog.offers.changed_offer_groups_query):
    a group whose products' stored facts did not change (a product written
    back unchanged, or in another group) stays as it is. Only they are
    written. A company whose record changed, that is new or lost products
    gets its content version and feed facts computed again; one whose
    catalog only had products written, its content version when one of its
    groups changed (the feed's facts are the record's: a catalog change
    never moves them). Every company whose products were written gets a new
    generation; those with nothing else to change, in one statement.
    """
    whole, pairs = _groups_to_summarise(run, keys)
    # Whole companies and category pairs are two statements: under one OR,
    # Postgres cannot join the pairs to the products and reads every one
    # (0.19 s for the benchmark's 1,782 pairs).
    statements = [changed_offer_groups_query(whole)] if whole else []
    if pairs:
        statements.append(changed_offer_groups_query([], pairs))
    changed: dict[str, dict[str, tuple | None]] = {}  # company -> slug -> its group now, None when gone
    for statement in statements:
        for row in session.execute(statement):
            changed.setdefault(row.plugin_key, {})[row.category_slug] = None if row.gone else _group_values(row)
    versioned = sorted(set(whole) | set(changed))
    columns = Company.__table__.c
    companies = {
        row.plugin_key: row for row in session.execute(select(*columns).where(keys_in(columns.plugin_key, versioned)))
    }
    stored: dict[str, dict[str, tuple]] = {}
    groups = OfferGroup.__table__
    for row in session.execute(
        select(*(groups.c[name] for name in GROUP_COLUMNS)).where(keys_in(groups.c.plugin_key, versioned))
    ):
        stored.setdefault(row.plugin_key, {})[row.category_slug] = _group_values(row)
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
    _delete_groups(session, [(key, slug) for key, slugs in changed.items() for slug in slugs])
    written = [dict(zip(GROUP_COLUMNS, g, strict=True)) for slugs in changed.values() for g in slugs.values() if g]
    insert_rows(session, OfferGroup, written)
    update_rows(session, Company, company_updates)
    _bump_generations(session, run, [k for k in keys if k not in companies and _bumps_generation(k, run)])
    run.counts.offer_groups_rebuilt += len(written)
    session.expunge_all()  # keep the identity map (and memory) flat across batches


def _bumps_generation(key: str, run: RunState) -> bool:
    # Its products were written; a changed record already moved the generation.
    return key in run.touched_catalogs and key not in run.changed_companies


def _bump_generations(session: Session, run: RunState, keys: list[str]) -> None:
    """next_generation() for companies, in one statement: their rows need not be read."""
    if not keys:
        return
    companies = Company.__table__
    generation = companies.c.generation
    session.execute(
        update(companies)
        .where(keys_in(companies.c.plugin_key, keys))
        .values(generation=case((generation + 1 > run.generation, generation + 1), else_=run.generation))
    )


def _delete_groups(session: Session, pairs: list[tuple[str, str]]) -> None:
    # One statement: the pairs are bound as two arrays however many they are.
    if pairs:
        session.execute(delete(OfferGroup).where(groups_in(OfferGroup.__table__, pairs)))


def _groups_to_summarise(run: RunState, keys: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
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
    return whole, pairs


# The company columns _version_changes can change.
REBUILT_COLUMNS = (
    "content_version",
    "content_updated_at",
    "offer_count",
    "generation",
    "feed_hash",
    "in_feed",
    "feed_changed_ms",
)


def _version_changes(company, run: RunState, groups: list[tuple], whole: bool, now: datetime, feed_stamp: int) -> dict:
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
    offers = sum(row["offer_count"] for row in rows)
    if offers != company.offer_count:
        changes["offer_count"] = offers
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


def next_generation(current: int, run: RunState) -> int:
    """A generation strictly above the current one, and at least the run's."""
    return max(current + 1, run.generation)
