"""Catalog search for one company: its published products ranked by relevance.

The database narrows the catalog to products that mention at least one query
term anywhere (a case-insensitive LIKE per term, so a 5,000-product catalog
never crosses the wire whole for a selective query); Python then scores the
candidates. A term found in the name, brand or model numbers outweighs one
found only in the description, and products matching every term rank above
products matching some, so "lennox furnace" lists Lennox furnaces first.
Ties fall back to price, then name, then SKU, so the order is stable.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import String, and_, cast, func, or_, select
from sqlalchemy.orm import Session

from mirror.models import Product

MAX_TERMS = 8
# Words that carry no product meaning in questions such as "what do air
# filters cost?"; dropped unless nothing else is left.
STOP_WORDS = frozenset(
    "a an and any are can cost costs do does for have how i in installed is it me much my of on or "
    "price prices show the to what which with you your".split()
)
_WORD_RE = re.compile(r"[a-z0-9]+")

# Points per term by where it matched (exact token, token prefix).
_WEIGHTS = {
    "name": (10, 6),
    "model": (12, 6),
    "brand": (8, 5),
    "tier": (6, 0),
    "category": (5, 3),
    "sku": (5, 3),
    "description": (2, 1),
}


@dataclass(frozen=True)
class CatalogHit:
    """One published product that matched a search."""

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


def stem(word: str) -> str:
    """A crude plural fold (filters -> filter) so singular and plural meet."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def query_terms(query: str) -> list[str]:
    """The distinct, stemmed, lower-case terms of a query (stop words dropped when possible)."""
    words = [stem(w) for w in _WORD_RE.findall(query.lower())]
    meaningful = [w for w in words if w not in STOP_WORDS] or words
    return list(dict.fromkeys(meaningful))[:MAX_TERMS]


def price_to_cents_floor(amount: float | int | Decimal) -> int:
    """Whole cents at or below an amount (a max_price of 99.999 admits 99.99)."""
    return int((Decimal(str(amount)) * 100).to_integral_value(rounding="ROUND_FLOOR"))


def search_catalog(
    session: Session,
    plugin_key: str,
    query: str,
    *,
    category_slug: str | None = None,
    tier: str | None = None,
    max_price_cents: int | None = None,
    limit: int = 10,
) -> CatalogSearch:
    """Published products of one company matching `query`, best first."""
    terms = query_terms(query)
    if not terms:
        return CatalogSearch(hits=[], total=0, terms=[])
    rows = session.execute(_candidates(plugin_key, terms, category_slug, tier, max_price_cents)).all()
    scored = []
    for row in rows:
        matched, score = _score(row, terms, query)
        if matched:
            scored.append(((-matched, -score, row.price_cents, row.name, row.sku), row))
    scored.sort(key=lambda pair: pair[0])
    return CatalogSearch(hits=[_hit(row) for _, row in scored[:limit]], total=len(scored), terms=terms)


def _candidates(plugin_key: str, terms: list[str], category_slug, tier, max_price_cents):
    """Published products of the company that mention any term in any searched field."""
    columns = (
        Product.sku, Product.name, Product.brand, Product.category_name, Product.category_slug,
        Product.category_kind, Product.tier, Product.price_cents, Product.model_numbers, Product.description,
    )
    searched = (
        func.lower(Product.name), func.lower(func.coalesce(Product.brand, "")),
        func.lower(Product.category_name), func.lower(func.coalesce(Product.description, "")),
        func.lower(Product.sku), func.lower(cast(Product.model_numbers, String)),
    )
    mentions = or_(*(field.contains(term, autoescape=True) for term in terms for field in searched))
    filters = [Product.plugin_key == plugin_key, Product.published.is_(True), mentions]
    if category_slug is not None:
        filters.append(Product.category_slug == category_slug)
    if tier is not None:
        filters.append(Product.tier == tier)
    if max_price_cents is not None:
        filters.append(Product.price_cents <= max_price_cents)
    return select(*columns).where(and_(*filters))


def _tokens(text: str | None) -> set[str]:
    return {stem(w) for w in _WORD_RE.findall(text.lower())} if text else set()


def _fields(row) -> dict[str, set[str]]:
    models = " ".join(m for m in (row.model_numbers or []) if isinstance(m, str))
    return {
        "name": _tokens(row.name),
        "model": _tokens(models),
        "brand": _tokens(row.brand),
        "tier": {row.tier} if row.tier else set(),
        "category": _tokens(f"{row.category_name} {row.category_slug}"),
        "sku": _tokens(row.sku),
        "description": _tokens(row.description),
    }


def _term_points(term: str, tokens: set[str], exact: int, prefix: int) -> int:
    if term in tokens:
        return exact
    if prefix and len(term) >= 3 and any(token.startswith(term) for token in tokens):
        return prefix
    return 0


def _score(row, terms: list[str], query: str) -> tuple[int, int]:
    """(number of terms matched, points); a term counts once, where it matched best."""
    fields = _fields(row)
    matched = points = 0
    for term in terms:
        best = max(_term_points(term, fields[name], *_WEIGHTS[name]) for name in _WEIGHTS)
        if best:
            matched += 1
            points += best
    phrase = " ".join(_WORD_RE.findall(query.lower()))
    if matched and len(terms) > 1 and phrase and phrase in " ".join(_WORD_RE.findall(row.name.lower())):
        points += 8  # the query as a phrase in the name
    compact = "".join(_WORD_RE.findall(query.lower()))
    if compact and any(compact == "".join(_WORD_RE.findall(m.lower())) for m in row.model_numbers or [] if isinstance(m, str)):
        points += 20  # an exact model number
    return matched, points


def _hit(row) -> CatalogHit:
    return CatalogHit(
        sku=row.sku, name=row.name, brand=row.brand, category_name=row.category_name,
        category_slug=row.category_slug, category_kind=row.category_kind, tier=row.tier,
        price_cents=row.price_cents,
        model_numbers=[m for m in (row.model_numbers or []) if isinstance(m, str)],
        description=row.description,
    )
