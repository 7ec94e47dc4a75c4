"""Helpers for tests that compare whole mirrors."""

from __future__ import annotations

from contextlib import contextmanager

from sqlalchemy import select

from mirror.catalog.offers import build_offer_groups
from mirror.runtime.config import load_settings
from mirror.service.context import Mirror
from mirror.store import state as st
from mirror.store.models import Company, OfferGroup, Product, SyncState
from mirror.sync.upstream import UpstreamClient

# Moved by every successful run, by design (the clock advances; the rows written since the last ANALYZE add up).
BOOKKEEPING_STATE = {
    st.LAST_SUCCESS_AT,
    st.WATERMARK_COMPANIES,
    st.WATERMARK_PRODUCTS,
    st.STATE_VERSION,
    st.ROWS_SINCE_ANALYZE,
}


def quick_client(upstream, **kwargs) -> UpstreamClient:
    """A client with small pages (many page boundaries) and no real sleeping."""
    kwargs.setdefault("page_limit", 7)
    kwargs.setdefault("backoff_seconds", 0.0)
    kwargs.setdefault("timeout", (2.0, 2.0))
    return UpstreamClient(upstream.url, "demo-token", **kwargs)


def _rows(session, model, order) -> list[dict]:
    rows = session.scalars(select(model).order_by(*order)).all()
    return [{c.key: getattr(r, c.key) for c in model.__table__.columns} for r in rows]


def snapshot(mirror: Mirror, *, include_bookkeeping: bool = True) -> dict:
    """Every visible row of the mirror (sync history aside)."""
    with mirror.Session() as session:
        state = {r.name: r.value for r in session.scalars(select(SyncState))}
        if not include_bookkeeping:
            state = {k: v for k, v in state.items() if k not in BOOKKEEPING_STATE}
        return {
            "companies": _rows(session, Company, [Company.plugin_key]),
            "products": _rows(session, Product, [Product.plugin_key, Product.sku]),
            "offer_groups": _rows(session, OfferGroup, [OfferGroup.plugin_key, OfferGroup.category_slug]),
            "state": state,
        }


def public_content(mirror: Mirror) -> dict:
    """The mirror's content as the public sees it, free of run bookkeeping.

    Two mirrors of the same upstream state have equal public content whatever
    path (incremental, failed runs, full) brought them there.
    """
    snap = snapshot(mirror)
    volatile = {"content_updated_at", "last_synced_at", "generation", "feed_changed_ms", "upstream_updated_at"}
    companies = [{k: v for k, v in c.items() if k not in volatile} for c in snap["companies"]]
    products = [{k: v for k, v in p.items() if k != "upstream_updated_at"} for p in snap["products"]]
    return {"companies": companies, "products": products, "offer_groups": snap["offer_groups"]}


def assert_offer_groups_in_step(mirror: Mirror) -> None:
    """Stored offer groups equal a rebuild from the stored products, for every company."""
    with mirror.Session() as session:
        for company in session.scalars(select(Company)):
            products = session.scalars(select(Product).where(Product.plugin_key == company.plugin_key)).all()
            expected = build_offer_groups(
                company.plugin_key, company.currency, products, company_public=company.is_public
            )
            stored = _rows(session, OfferGroup, [OfferGroup.plugin_key, OfferGroup.category_slug])
            stored = [g for g in stored if g["plugin_key"] == company.plugin_key]
            assert sorted(stored, key=lambda g: g["category_slug"]) == sorted(
                expected, key=lambda g: g["category_slug"]
            )


def fresh_mirror(database_url: str, upstream_url: str) -> Mirror:
    """A Mirror on an already-migrated database."""
    return Mirror(
        load_settings({"DATABASE_URL": database_url, "UPSTREAM_URL": upstream_url, "UPSTREAM_TOKEN": "demo-token"})
    )


@contextmanager
def postgres_statements(note):
    """Call `note(sql)` for every statement psycopg sends while the block runs.

    Cursor statements, transaction commands (BEGIN, COMMIT, ROLLBACK) and
    the one-statement reads of `mirror.store.db.AutocommitReader`, which drive
    libpq directly and so never pass a cursor. Every statement-counting
    test uses this one tracer, so none can miss a path.
    """
    import psycopg
    from psycopg._connection_base import BaseConnection

    from mirror.store.db import _ReaderConnection

    execute, command, read = psycopg.Cursor.execute, BaseConnection._exec_command, _ReaderConnection.execute

    def traced_execute(self, query, *args, **kwargs):
        note(str(query))
        return execute(self, query, *args, **kwargs)

    def traced_command(self, query, *args, **kwargs):
        note(query.decode() if isinstance(query, bytes) else str(query))
        return command(self, query, *args, **kwargs)

    def traced_read(self, sql, values, **kwargs):
        note(sql.decode())
        return read(self, sql, values, **kwargs)

    psycopg.Cursor.execute, BaseConnection._exec_command, _ReaderConnection.execute = (
        traced_execute,
        traced_command,
        traced_read,
    )
    try:
        yield
    finally:
        psycopg.Cursor.execute, BaseConnection._exec_command, _ReaderConnection.execute = execute, command, read


def public_key(upstream) -> str:
    """The key of a company of the demo catalog that is public (active and live)."""
    for key in upstream.catalog.company_keys():
        record = upstream.catalog.get_company(key)
        if record.get("status") == "active" and record.get("storefront_live") is True:
            return key
    raise AssertionError("the demo catalog has no public company")


def a_product(upstream, key: str) -> dict:
    """A published, priced product of the company `key` in the demo catalog."""
    return next(p for p in upstream.catalog.products_of(key) if p.get("published") is True and "price" in p)
