"""One company's catalog as the read layer serves it: the search, and the products of a category's tiers.

A read for a gated company (a `GateEntry`) also reads the company's stamp in
the same statement and raises `StateMoved` when the database is at another
state than the process's gate (mirror/read/company.py, `check_stamp`).

Catalog search ranks a company's public products by relevance.

The database's full-text index does the work (mirror/fulltext.py; built by
migration 0003): Postgres ranks with `ts_rank_cd` over a weighted tsvector
under a GIN index, SQLite with FTS5's `bm25` and per-column weights. One
statement returns the page of hits and the number of matches, whatever the
catalog size; only mirror.catalog's rule decides which products are searched.

The order, best first:
1. products matching more of the query's terms ("lennox furnace" lists
   Lennox furnaces before other Lennox products);
2. a model number equal to the whole query, separators ignored
   (`ML17XP1-036`, `ml17xp1036`);
3. relevance: a word in the name or model numbers (weight A), the brand (B),
   the category, SKU or tier (C) outweighs one only in the description (D);
4. then price, name and SKU, so ties are stable.
Words are stemmed (filters = filter) and match by prefix from three letters.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from sqlalchemy import Integer, String, and_, bindparam, exists, func, literal_column, select
from sqlalchemy.orm import Session

from mirror import fulltext as ft
from mirror.catalog import public_products_filter, select_public_products
from mirror.db import statement_rows
from mirror.models import Product
from mirror.read.company import check_stamp, stamp_columns
from mirror.read.gate import GateEntry

# ts_rank_cd weights for {D, C, B, A}: one word in the name outweighs the
# same word repeated throughout a description.
PG_WEIGHTS = "{0.02,0.2,0.6,1.0}"
# bm25 weights, in the FTS5 column order of products_fts (migration 0003):
# name, brand, models, models_compact, category, sku, tier, description, company_key.
FTS_WEIGHTS = (10.0, 6.0, 10.0, 10.0, 2.0, 2.0, 2.0, 0.2, 0.0)


@dataclass(frozen=True)
class CatalogHit:
    """One public product that matched a search."""

    sku: str
    name: str
    brand: str | None
    category_name: str
    category_slug: str
    category_kind: str
    tier: str | None
    price_cents: int
    model_numbers: list[str]
    description: str | None


@dataclass(frozen=True)
class CatalogSearch:
    """The ranked hits (at most `limit`) and how many products matched in all."""

    hits: list[CatalogHit]
    total: int
    terms: list[str]


def query_terms(query: str) -> list[str]:
    """The distinct lower-case words of a query's terms (stop words dropped when possible)."""
    return _words_of(ft.search_terms(query))


def _words_of(terms: list[ft.Term]) -> list[str]:
    return list(dict.fromkeys(part for term in terms for part in term.parts))


def price_to_cents_floor(amount: float | int | Decimal) -> int:
    """Whole cents at or below an amount (a max_price of 99.999 admits 99.99)."""
    return int((Decimal(str(amount)) * 100).to_integral_value(rounding="ROUND_FLOOR"))


def search_catalog(
    session: Session,
    company: GateEntry | str,
    query: str,
    *,
    category_slug: str | None = None,
    tier: str | None = None,
    max_price_cents: int | None = None,
    limit: int = 10,
) -> CatalogSearch:
    """Public products of one company matching `query`, best first (`company`: its gate entry, or a bare key).

    One statement, its own snapshot (on Postgres one autocommit round trip).
    """
    gated, plugin_key = _company(company)
    terms = ft.search_terms(query)
    if not terms:
        return CatalogSearch(hits=[], total=0, terms=[])
    dialect = session.get_bind().dialect.name
    statement = _statement(
        dialect, len(terms), category_slug is not None, tier is not None, max_price_cents is not None
    )
    params = {
        "plugin_key": plugin_key,
        "category_slug": category_slug,
        "tier": tier,
        "max_price_cents": max_price_cents,
        "limit": limit,
        "compact": "".join(t.compact for t in terms),
        **_match_params(dialect, plugin_key, terms),
    }
    rows = statement_rows(session, statement, params)
    check_stamp(session, gated, rows, len(_COLUMNS))
    total = rows[0][-1] if rows else 0  # the last column: count(*) OVER ()
    return CatalogSearch(hits=[_hit(row) for row in rows], total=total, terms=_words_of(terms))


def _company(company: GateEntry | str) -> tuple[GateEntry | None, str]:
    return (company, company.plugin_key) if isinstance(company, GateEntry) else (None, company)


@dataclass(frozen=True)
class TierProduct:
    """One public product of a system category, as the tier comparison shows it."""

    sku: str
    name: str
    brand: str | None
    tier: str | None
    price_cents: int
    model_numbers: list[str]
    description: str | None
    specs: dict


_TIER_COLUMNS = (
    Product.sku,
    Product.name,
    Product.brand,
    Product.tier,
    Product.price_cents,
    Product.model_numbers,
    Product.description,
    Product.specs,
)
_CATEGORY_PRODUCTS = (
    select_public_products(bindparam("plugin_key"), *_TIER_COLUMNS, *stamp_columns(bindparam("plugin_key")))
    .where(Product.category_slug == bindparam("category_slug"))
    .order_by(Product.price_cents, Product.name, Product.sku)
)


def category_products(session: Session, company: GateEntry | str, category_slug: str) -> list[TierProduct]:
    """A category's public products, cheapest first (then by name and SKU), in one statement."""
    gated, plugin_key = _company(company)
    rows = statement_rows(session, _CATEGORY_PRODUCTS, {"plugin_key": plugin_key, "category_slug": category_slug})
    check_stamp(session, gated, rows, len(_TIER_COLUMNS))
    return [
        TierProduct(
            sku=row[0],
            name=row[1],
            brand=row[2],
            tier=row[3],
            price_cents=row[4],
            model_numbers=_models(row[5]),
            description=row[6],
            specs=row[7] if isinstance(row[7], dict) else {},
        )
        for row in rows
    ]


@lru_cache(maxsize=128)
def _statement(dialect: str, term_count: int, by_category: bool, by_tier: bool, by_price: bool):
    """The search statement for one shape of request, every value a bound parameter.

    Built once per shape and reused: constructing it costs about as much as
    the database takes to answer it.
    """
    build = _postgres_search if dialect == "postgresql" else _sqlite_search
    filters = [public_products_filter(bindparam("plugin_key"))]
    if by_category:
        filters.append(Product.category_slug == bindparam("category_slug"))
    if by_tier:
        filters.append(Product.tier == bindparam("tier"))
    if by_price:
        filters.append(Product.price_cents <= bindparam("max_price_cents"))
    return build(term_count).where(and_(*filters)).limit(bindparam("limit", type_=Integer))


def _match_params(dialect: str, plugin_key: str, terms: list[ft.Term]) -> dict:
    """The full-text query texts: any term (`any_match`) and each term (`term_i`)."""
    if dialect == "postgresql":
        any_text, each = ft.pg_any_query(terms), [ft.pg_term_query(t) for t in terms]
    else:
        any_text = ft.fts_within(plugin_key, ft.fts_any_query(terms))
        each = [ft.fts_within(plugin_key, ft.fts_term_query(t)) for t in terms]
    return {"any_match": any_text, **{f"term_{i}": text for i, text in enumerate(each)}}


_COLUMNS = (
    Product.sku,
    Product.name,
    Product.brand,
    Product.category_name,
    Product.category_slug,
    Product.category_kind,
    Product.tier,
    Product.price_cents,
    Product.model_numbers,
    Product.description,
)


def _exact_model(dialect: str):
    """1 when one of the product's model numbers is the whole query (`compact`), separators ignored."""
    compact = bindparam("compact", type_=String)
    if dialect == "postgresql":
        models = func.json_array_elements_text(Product.model_numbers).table_valued("value").alias("model")
        value = models.c.value
    else:
        models = func.json_each(Product.model_numbers).table_valued("value", "type").alias("model")
        value = models.c.value
    return ft.as_int(exists(select(1).select_from(models).where(ft.normalised_model(value, dialect) == compact)))


def _postgres_search(term_count: int):
    """Matches by the GIN index; ranked by terms matched, exact model, ts_rank_cd."""
    vector = ft.pg_vector("products")
    matched = sum(
        (ft.as_int(ft.pg_matches("products", None, f"term_{i}")) for i in range(term_count)),
        start=literal_column("0"),
    )
    any_match = ft.pg_tsquery(None, "any_match")
    rank = func.ts_rank_cd(literal_column(f"'{PG_WEIGHTS}'::float4[]"), vector, any_match)
    stamp = stamp_columns(bindparam("plugin_key"))
    statement = select(*_COLUMNS, *stamp, func.count().over().label("total")).where(vector.op("@@")(any_match))
    return statement.order_by(
        matched.desc(),
        _exact_model("postgresql").desc(),
        rank.desc(),
        Product.price_cents,
        Product.name.collate("C"),
        Product.sku,
    )


def _sqlite_search(term_count: int):
    """Matches by FTS5 (within the company's rows); ranked by terms matched, exact model, bm25."""
    fts = ft.FTS_TABLES["products"]
    rowid = literal_column("products.rowid")
    # Materialised: the index is read once, then joined to the rows by rowid
    # (as a plain subquery SQLite may re-run the MATCH for every product).
    hits = ft.fts_hits(fts, None, FTS_WEIGHTS, "any_match").cte("hits").prefix_with("MATERIALIZED")
    matched = sum(
        (ft.as_int(rowid.in_(ft.fts_rowids(fts, None, f"term_{i}"))) for i in range(term_count)),
        start=literal_column("0"),
    )
    stamp = stamp_columns(bindparam("plugin_key"))
    statement = select(*_COLUMNS, *stamp, func.count().over().label("total")).join(hits, hits.c.rowid == rowid)
    return statement.order_by(
        matched.desc(),
        _exact_model("sqlite").desc(),
        hits.c.score,
        Product.price_cents,
        Product.name,
        Product.sku,
    )


def _models(value) -> list[str]:
    return [m for m in value if isinstance(m, str)] if isinstance(value, list) else []


def _hit(row) -> CatalogHit:
    """A hit from a result row: `_COLUMNS` in order (a Row or a plain tuple), then the total."""
    sku, name, brand, category_name, category_slug, category_kind, tier, price_cents, models, description = row[:10]
    return CatalogHit(
        sku=sku,
        name=name,
        brand=brand,
        category_name=category_name,
        category_slug=category_slug,
        category_kind=category_kind,
        tier=tier,
        price_cents=price_cents,
        model_numbers=_models(models),
        description=description,
    )
