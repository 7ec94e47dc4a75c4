"""Installed prices across the businesses of the business feed that serve one ZIP: the directory's price answer.

"How much does a heat pump cost near 63376?" is answered from the public
products of the feed's businesses (`Company.in_feed`, the set the provider
tools and the directory agent answer for) whose service area lists the ZIP
and that are one of the kinds of product the question names (their stored
kinds, exactly as the catalog search matches them: mirror/read/catalog.py
`of_kinds`). One statement,
built once per shape with SQLAlchemy and run by mirror.store.db.statement_rows;
the answer (mirror/answers/directory.py) narrows by size, tier and price and
reports each business's own range, never an average.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from sqlalchemy import String, bindparam, cast, func, or_, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Session

from mirror.catalog.public_products import any_public_product
from mirror.query import UnderstoodQuery
from mirror.read.catalog import kinds_parameter, of_kinds, stored_reading
from mirror.store import fulltext as ft
from mirror.store.db import rows_by_name, statement_rows
from mirror.store.models import Company, Product

MAX_CONCEPTS = 4  # parts of a question matched (each a concept or a trade): more are ignored
# The seller, under its own name: mirror.catalog.public_products's public-product rule checks `companies` itself (a correlated
# EXISTS), which the seller's row must not be mistaken for.
_SELLER = Company.__table__.alias("seller")


@dataclass(frozen=True)
class FeedProduct:
    """One public product of a feed business serving the ZIP."""

    plugin_key: str
    business_name: str
    currency: str
    sku: str
    name: str
    category_name: str
    category_slug: str
    tier: str | None
    price_cents: int
    specs: dict
    kinds: tuple[str, ...] = ()  # what the sync read it as (`products.kinds`)
    measures: dict = field(default_factory=dict)  # its sizes and ratings (`products.measures`)


_COLUMNS = (
    _SELLER.c.plugin_key,
    _SELLER.c.name.label("business_name"),
    _SELLER.c.currency,
    Product.sku,
    Product.name,
    Product.category_name,
    Product.category_slug,
    Product.tier,
    Product.price_cents,
    Product.specs,
    Product.kinds,
    Product.measures,
)


def feed_products(session: Session, understood: UnderstoodQuery, postal_code: str) -> list[FeedProduct]:
    """The public products, of the feed's businesses serving `postal_code`, that are what `understood` names.

    Each business's products cheapest first; none when the question names no
    kind of product (nor a trade).
    """
    parts = understood.concept_matches()[:MAX_CONCEPTS]
    if not parts:
        return []
    params: dict = {"postal_code": postal_code}
    for i, members in enumerate(parts):
        params[f"concept_{i}"] = ft.concept_query(members, ft.CONCEPT_WEIGHTS)
        params[f"kinds_{i}"] = kinds_parameter(m.slug for m in members)
    statement = _statement(len(parts))
    return [
        FeedProduct(
            plugin_key=row.plugin_key,
            business_name=row.business_name,
            currency=row.currency,
            sku=row.sku,
            name=row.name,
            category_name=row.category_name,
            category_slug=row.category_slug,
            tier=row.tier,
            price_cents=row.price_cents,
            **stored_reading(row),
        )
        for row in rows_by_name(statement, statement_rows(session, statement, params))
    ]


@lru_cache(maxsize=16)
def _statement(concepts: int):
    """The statement for `concepts` parts of a question (every value a bound parameter)."""
    matches = [of_kinds(f"kinds_{i}", ft.matches("products", None, f"concept_{i}")) for i in range(concepts)]
    return (
        select(*_COLUMNS)
        .join_from(Product, _SELLER, _SELLER.c.plugin_key == Product.plugin_key)
        .where(
            _SELLER.c.in_feed.is_(True),
            any_public_product(),
            or_(*matches),
            _serves(),
        )
        .order_by(_SELLER.c.plugin_key, Product.price_cents, Product.sku)
    )


def _serves():
    """Whether the company's service area lists :postal_code (a JSON array of 5-digit ZIPs)."""
    wanted = bindparam("postal_code", type_=String)
    return cast(_SELLER.c.service_postal_codes, JSONB).contains(func.jsonb_build_array(wanted))
