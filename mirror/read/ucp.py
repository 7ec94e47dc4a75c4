"""A company's public products as the UCP catalog reads them (mirror/render/ucp.py maps them).

Every read of one UCP call runs in the request session's one snapshot
transaction, whose first statement checks the company's stamp against the
gate state (`StateMoved` when a sync committed past it: the tool layer then
answers again at the new state, agent_tools.company.at_gate_state). All of
them filter through mirror.catalog.public_products's rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.orm import Session

from mirror.catalog.public_products import select_public_products
from mirror.read.company import check_stamp_alone
from mirror.read.gate import GateEntry
from mirror.store.models import Product

_CHECKED = "mirror.read.ucp.checked"


def _key(session: Session, company: GateEntry) -> str:
    """The company's key, its stamp checked once in this session's transaction (begun here if need be)."""
    transaction = session.get_transaction() or session.begin()
    if session.info.get(_CHECKED) is not transaction:
        session.connection()  # the snapshot every later read of this transaction sees
        check_stamp_alone(session, company)
        session.info[_CHECKED] = session.get_transaction()
    return company.plugin_key


def _within(query, slugs: Iterable[str] | None, min_cents: int | None, max_cents: int | None):
    """`query` narrowed to some categories (None: all) and to a price range (either end open)."""
    if slugs is not None:
        query = query.where(Product.category_slug.in_(sorted(set(slugs))))
    if min_cents is not None:
        query = query.where(Product.price_cents >= min_cents)
    if max_cents is not None:
        query = query.where(Product.price_cents <= max_cents)
    return query


def _price_order():
    return (Product.price_cents, Product.name, Product.sku)


def products_in_categories(
    session: Session,
    company: GateEntry,
    slugs: Iterable[str] | None = None,
    *,
    min_cents: int | None = None,
    max_cents: int | None = None,
) -> list[Product]:
    """Public products of a company (of some categories), cheapest first within the price bounds."""
    query = _within(select_public_products(_key(session, company)), slugs, min_cents, max_cents)
    return list(session.scalars(query.order_by(*_price_order())))


def products_by_sku(session: Session, company: GateEntry, skus: Iterable[str]) -> dict[str, Product]:
    """Public products of a company by SKU (unknown and non-public SKUs are absent)."""
    wanted = sorted({sku for sku in skus if sku})
    if not wanted:
        return {}
    rows = session.scalars(select_public_products(_key(session, company)).where(Product.sku.in_(wanted)))
    return {row.sku: row for row in rows}


def ranked_skus(
    session: Session,
    company: GateEntry,
    slugs: Iterable[str] | None = None,
    *,
    min_cents: int | None = None,
    max_cents: int | None = None,
) -> list[tuple[str, str]]:
    """(category slug, SKU) of public products within the bounds, cheapest first (a browse, no query)."""
    query = _within(
        select_public_products(_key(session, company), Product.category_slug, Product.sku), slugs, min_cents, max_cents
    )
    return [(row.category_slug, row.sku) for row in session.execute(query.order_by(*_price_order()))]


def option_values(session: Session, company: GateEntry, slugs: Iterable[str]) -> dict[str, list]:
    """Per category, the distinct (tier, brand) pairs of its public products: enough for its option axes."""
    wanted = sorted(set(slugs))
    if not wanted:
        return {}
    query = (
        select_public_products(_key(session, company), Product.category_slug, Product.tier, Product.brand)
        .distinct()
        .where(Product.category_slug.in_(wanted))
    )
    pairs: dict[str, list] = {slug: [] for slug in wanted}
    for row in session.execute(query):
        pairs[row.category_slug].append(row)
    return pairs


def featured_products(session: Session, company: GateEntry, slugs: Iterable[str]) -> dict[str, Product]:
    """Each category's featured variant: its cheapest public product (the price_range minimum)."""
    key = _key(session, company)
    featured = {}
    for slug in sorted(set(slugs)):
        row = session.scalars(
            select_public_products(key).where(Product.category_slug == slug).order_by(*_price_order()).limit(1)
        ).first()
        if row is not None:
            featured[slug] = row
    return featured
