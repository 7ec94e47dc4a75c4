"""The catalog rule: which products of a company are public.

A product is public only while it is published, its price is positive (a
published product at 0.00 is not public), and its company is public (active
and live on the storefront); see docs/contracts/upstream.md ("Records") and
docs/contracts/surfaces.md. This module is the one place that says so: every
reader of products (offer groups, catalog search, tier comparisons, UCP, the
provider tools) filters through it, and no other module tests `published` or
the price on its own.

Two spellings of the one rule, kept side by side so they cannot drift:

- `public_products_filter()` / `select_public_products()` (one company's) and
  `any_public_product()` (every company's): the SQL form, for every query
  over the Product table;
- `is_public_product()`: the same rule on rows already in memory (the
  reference summary mirror.catalog.offers.build_offer_groups, against which the
  sync's SQL rebuild is tested).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, and_, exists, select

from mirror.store.models import Company, Product


def public_products_filter(plugin_key: str) -> ColumnElement[bool]:
    """The WHERE clause selecting one company's public products."""
    return and_(Product.plugin_key == plugin_key, any_public_product())


def any_public_product() -> ColumnElement[bool]:
    """The WHERE clause selecting the public products of every company (the spelling list's check)."""
    company_public = exists().where(Company.plugin_key == Product.plugin_key, Company.is_public.is_(True))
    return and_(Product.published.is_(True), Product.price_cents > 0, company_public)


def select_public_products(plugin_key: str, *columns: Any) -> Select:
    """SELECT one company's public products: whole Product rows, or just `columns`."""
    return select(*(columns or (Product,))).where(public_products_filter(plugin_key))


def is_public_product(product: Any, *, company_public: bool) -> bool:
    """The rule of `public_products_filter()` on an in-memory row.

    `product` is anything with `published` and `price_cents` (a Product, a
    result row); `company_public` is its company's `is_public`.
    """
    return bool(company_public) and product.published is True and product.price_cents > 0
