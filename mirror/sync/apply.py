"""Applying records: what changed is written, what did not is left alone, what the database refuses fails alone."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable
from types import SimpleNamespace

from sqlalchemy import delete, select, text, tuple_
from sqlalchemy.orm import Session

from mirror.catalog.offers import record_hash
from mirror.catalog.records import CompanyRecord, InvalidRecord, ProductRecord, Tombstone, parse_company, parse_product
from mirror.store.models import Company, CompanyConcept, CompanyWord, OfferGroup, Product
from mirror.sync import facts, words
from mirror.sync.bulk import batches, insert_rows, keys_in, refusal_reason, update_rows
from mirror.sync.rebuild import next_generation
from mirror.sync.runstate import RunState, skip_invalid


def _stored_fields(record_model, table) -> tuple[str, ...]:
    """A record's fields that are columns of its table, beside the key (its `updated_at` is stored apart)."""
    keys = {column.name for column in table.primary_key.columns}
    return tuple(name for name in record_model.model_fields if name in table.columns and name not in keys)


COMPANY_FIELDS = _stored_fields(CompanyRecord, Company.__table__)
PRODUCT_FIELDS = _stored_fields(ProductRecord, Product.__table__)
# What _company_values writes beside the record's fields.
_COMPANY_DERIVED = ("is_public", "upstream_updated_at", "record_hash")


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


# Bulk inserts (COPY) apply no column defaults: a new company starts with the
# defaults the model declares for every column the record does not set.
NEW_COMPANY_BOOKKEEPING = {
    column.name: column.default.arg if column.default is not None else None
    for column in Company.__table__.columns
    if column.name not in {"plugin_key", *COMPANY_FIELDS, *_COMPANY_DERIVED}
}


# What computing a record's stored values can raise for an odd value (the
# record's problem, never the run's): its change hash, its JSON.
_RECORD_VALUE_ERRORS = (ValueError, TypeError, OverflowError, RecursionError)


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


def apply_companies(session: Session, run: RunState, raw_records: list) -> None:
    checks = run.record_checks()
    parsed = [parse_company(raw, **checks) for raw in raw_records]
    run.counts.companies_seen += len(parsed)
    for bad in (p for p in parsed if isinstance(p, InvalidRecord)):
        skip_invalid(run, "company", str(bad.plugin_key), bad.reason)
        if bad.plugin_key:
            run.seen_companies.add(bad.plugin_key)  # keep what the mirror holds
    latest = _last_per_key((p for p in parsed if isinstance(p, CompanyRecord)), lambda r: r.plugin_key)
    run.seen_companies.update(latest)
    if not latest:
        return
    held = {
        row.plugin_key: row
        for row in session.execute(
            select(Company.plugin_key, Company.record_hash, Company.generation, Company.trades).where(
                Company.plugin_key.in_(latest)
            )
        )
    }
    inserts, updates = [], []
    for key, record in latest.items():
        try:
            values = _company_values(record)
        except _RECORD_VALUE_ERRORS as error:
            skip_invalid(run, "company", key, f"unusable ({type(error).__name__})")
            continue
        old = held.get(key)
        run.company_trades[key] = tuple(record.trades)
        if old is not None and tuple(old.trades or ()) != tuple(record.trades):
            run.retraded.add(key)  # what its products' abbreviations mean may have changed
        if old is None:
            inserts.append({"plugin_key": key, **NEW_COMPANY_BOOKKEEPING, "generation": run.generation, **values})
            run.new_companies.add(key)
        elif old.record_hash != values["record_hash"]:  # the last version read wins (docs/core.md, apply rules)
            updates.append({"plugin_key": key, "generation": next_generation(old.generation, run), **values})
        else:
            continue
        run.changed_companies.add(key)
    run.held_companies.update(dict.fromkeys(latest, True))
    run.counts.companies_written += len(inserts) + len(updates)
    insert_rows(session, Company, inserts, refused=lambda row, error: _company_refused(run, row, error, new=True))
    update_rows(session, Company, updates, refused=lambda row, error: _company_refused(run, row, error, new=False))


def _company_refused(run: RunState, row: dict, error: BaseException, *, new: bool) -> None:
    """The database refused a company's row: that record is skipped (what the mirror held stays) and the run goes on."""
    key = row["plugin_key"]
    run.counts.companies_written -= 1
    run.changed_companies.discard(key)
    if new:  # the mirror does not hold it: its products are orphans, and no catalog walk is due
        run.new_companies.discard(key)
        run.held_companies[key] = False
    skip_invalid(run, "company", key, refusal_reason(error))


def remove_unseen_companies(session: Session, run: RunState) -> None:
    held = set(session.scalars(select(Company.plugin_key)))
    remove_companies(session, run, sorted(held - run.seen_companies))


def remove_companies(session: Session, run: RunState, keys: list[str]) -> None:
    """Delete companies (and everything of theirs) that upstream no longer has."""
    if not keys:
        return
    departed = session.scalar(select(Company.plugin_key).where(Company.plugin_key.in_(keys), Company.in_feed).limit(1))
    for table in (Product, OfferGroup, CompanyWord, CompanyConcept):
        session.execute(delete(table).where(table.plugin_key.in_(keys)))
    result = session.execute(delete(Company).where(Company.plugin_key.in_(keys)))
    run.held_companies.update(dict.fromkeys(keys, False))
    run.counts.companies_removed += result.rowcount or 0
    run.changed_companies.difference_update(keys)
    run.touched_catalogs.difference_update(keys)
    if departed:
        run.feed_departure = True


def delete_products(session: Session, run: RunState, keys: list[tuple[str, str]]) -> None:
    for chunk in batches(keys):
        session.execute(delete(Product).where(tuple_(Product.plugin_key, Product.sku).in_(chunk)))
    _note_removed(run, Counter(key for key, _ in keys))


def _note_removed(run: RunState, removed: Counter) -> None:
    """Products removed, counted by company: their catalogs are touched and rebuilt whole."""
    run.counts.products_removed += removed.total()
    run.touched_catalogs.update(removed)
    run.whole_catalogs.update(removed)


PRODUCTS = Product.__table__.name  # the table the statements below name in text


class SeenProducts:
    """The product keys a reconciling walk returned, kept in a temporary table of the run's transaction.

    A walk of every product reconciles by dropping what it did not return.
    Held in Python, its keys cost about 180 bytes a product (1,000,000
    products: 180 MB, the run's peak growing with the catalog); in the
    table, the walk's memory stays what one batch needs, and one
    anti-join deletes the rest. `company`: a reconciliation of that
    company's catalog only (the others' products are never deleted).
    """

    TABLE = "sync_seen_products"

    def __init__(self, session: Session, company: str | None = None) -> None:
        self.session, self.company = session, company
        session.execute(
            text(f"CREATE TEMP TABLE IF NOT EXISTS {self.TABLE} (plugin_key text, sku text) ON COMMIT DROP")
        )
        session.execute(text(f"TRUNCATE {self.TABLE}"))

    def add(self, keys: list[tuple[str, str]]) -> None:
        """Note keys the walk returned (one statement: two array parameters, however many keys)."""
        if keys:
            self.session.execute(
                text(f"INSERT INTO {self.TABLE} SELECT * FROM unnest(CAST(:k AS text[]), CAST(:s AS text[]))"),
                {"k": [k for k, _ in keys], "s": [s for _, s in keys]},
            )

    def remove_unseen(self, run: RunState) -> None:
        """Delete every held product (of the company, when one is named) that the walk did not return."""
        scope = "p.plugin_key = :company AND " if self.company else ""
        self.session.execute(text(f"ANALYZE {self.TABLE}"))  # its size, for the anti-join's plan
        removed = self.session.execute(
            text(
                f"WITH gone AS (DELETE FROM {PRODUCTS} AS p WHERE {scope}NOT EXISTS (SELECT FROM {self.TABLE} AS s"
                " WHERE s.plugin_key = p.plugin_key AND s.sku = p.sku) RETURNING p.plugin_key)"
                " SELECT plugin_key, count(*) AS n FROM gone GROUP BY plugin_key"
            ),
            {"company": self.company} if self.company else {},
        )
        _note_removed(run, Counter({row.plugin_key: row.n for row in removed}))


def _product_values(record: ProductRecord) -> dict:
    values = {name: getattr(record, name) for name in PRODUCT_FIELDS}
    values["upstream_updated_at"] = record.updated_at
    values["record_hash"] = record_hash(values | {"upstream_updated_at": None})
    return values


def apply_products(
    session: Session,
    run: RunState,
    raw_records: list,
    *,
    seen: SeenProducts | None = None,
    only_company=None,
    are_parsed: bool = False,
):
    """Apply one page of product records (`are_parsed`: parse_product's results already); `seen` collects
    the keys a reconciling walk returned."""
    if are_parsed:
        parsed = raw_records
    else:
        checks = run.record_checks()
        parsed = [parse_product(raw, **checks) for raw in raw_records]
    run.counts.products_seen += len(parsed)
    usable, invalid_keys = [], []
    for record in parsed:
        if isinstance(record, InvalidRecord):
            skip_invalid(run, "product", f"{record.plugin_key}/{record.sku}", record.reason)
            if record.plugin_key and record.sku:
                invalid_keys.append(_key(record))  # a reconciling walk never erases its last valid version
        elif only_company and record.plugin_key != only_company:
            skip_invalid(run, "product", f"{record.plugin_key}/{record.sku}", f"listed under {only_company}")
        else:
            usable.append(record)
    latest = _last_per_key(usable, _key)
    if seen is not None:
        seen.add(invalid_keys + [k for k, r in latest.items() if not isinstance(r, Tombstone)])
    latest = _drop_orphans(session, run, latest)
    if latest:
        # A company new in this run had no products when it began: its keys can be held only once the run
        # has written some of its products (on a first full sync, most batches then skip the lookup).
        maybe_held = [k for k in latest if k[0] not in run.new_companies or k[0] in run.touched_catalogs]
        _write_products(session, run, latest, maybe_held)


def _key(record) -> tuple[str, str]:
    return record.plugin_key, record.sku


def _drop_orphans(session: Session, run: RunState, latest: dict) -> dict:
    """Products of companies the mirror does not hold are skipped and counted."""
    held = run.held_companies
    unknown = {key for key, _ in latest if key not in held}
    if unknown:
        found = set(session.scalars(select(Company.plugin_key).where(keys_in(Company.plugin_key, unknown))))
        held.update((key, key in found) for key in unknown)
    kept = {k: r for k, r in latest.items() if held[k[0]]}
    run.counts.orphan_products += len(latest) - len(kept)
    return kept


def _held_products(session: Session, keys: list[tuple[str, str]]) -> dict:
    """The held (record_hash, category_slug, and what its spelling list reads) of those products that the mirror
    has."""
    columns = (Product.plugin_key, Product.sku, Product.record_hash, Product.category_slug)
    columns += tuple(getattr(Product, column) for column in words.LIST_INPUTS)  # what words.list_inputs reads
    # Two array parameters instead of a bind pair per key: a batch is
    # thousands of keys.
    pairs = text(
        f"({PRODUCTS}.plugin_key, {PRODUCTS}.sku) IN (SELECT * FROM unnest(CAST(:k AS text[]), CAST(:s AS text[])))"
    )
    statement = select(*columns).where(pairs).params(k=[k for k, _ in keys], s=[s for _, s in keys])
    return {(row.plugin_key, row.sku): row for row in session.execute(statement)}


def _write_products(session: Session, run: RunState, latest: dict, maybe_held: list) -> None:
    """Insert, update or delete what changed; `maybe_held`: the only keys that can be held."""
    held = _held_products(session, maybe_held) if maybe_held else {}
    unread = {key for key, _ in latest if key not in run.company_trades}
    if unread:
        run.company_trades.update(facts.company_trades(session, unread))
    inserts, updates, deletes = [], [], []
    for (key, sku), record in latest.items():
        # The last version read wins, whatever its stamp says (docs/core.md, apply rules): the upstream
        # serves its current state in order, and a stamp it controls cannot keep a later change out.
        old = held.get((key, sku))
        if isinstance(record, Tombstone):
            if old is not None:
                deletes.append((key, sku))
            continue
        try:
            values = _product_values(record)
        except _RECORD_VALUE_ERRORS as error:
            skip_invalid(run, "product", f"{key}/{sku}", f"unusable ({type(error).__name__})")
            continue
        if old is not None and old.record_hash == values["record_hash"]:
            continue
        # What it is, read from the record (not part of its hash: a change of the reading's rules or of the
        # company's trades reads the products again when the run finishes, mirror/sync/facts.py).
        values.update(facts.record_values(record, run.company_trades.get(key)))
        if old is None:
            inserts.append({"plugin_key": key, "sku": sku, **values})
        else:
            updates.append({"plugin_key": key, "sku": sku, **values})
        run.touched_catalogs.add(key)
        if old is None or words.list_inputs(old) != words.list_inputs(SimpleNamespace(**values)):
            run.reworded.add(key)
        slugs = run.touched_groups.setdefault(key, set())
        slugs.add(values["category_slug"])
        if old is not None:
            slugs.add(old.category_slug)
    run.counts.products_written += len(inserts) + len(updates)
    refused = functools.partial(_product_refused, run)
    insert_rows(session, Product, inserts, refused=refused)
    update_rows(session, Product, updates, generated_from=PRODUCT_VECTOR_SOURCES, refused=refused)
    if deletes:
        delete_products(session, run, deletes)


def _product_refused(run: RunState, row: dict, error: BaseException) -> None:
    """The database refused a product's row: that record is skipped (what the mirror held stays) and the run goes on.

    Its company stays touched: rebuilding its offer groups from what is held
    gives the same groups, so nothing moves that should not.
    """
    run.counts.products_written -= 1
    skip_invalid(run, "product", f"{row['plugin_key']}/{row['sku']}", refusal_reason(error))
