"""Catalog search for one company: its public products ranked by relevance.

The database narrows the catalog to the public products (mirror.catalog's
rule) that mention at least one query term anywhere (a case-insensitive LIKE
per term, so a 5,000-product catalog never crosses the wire whole for a
selective query); Python then scores the candidates. A term found in the
name, brand or model numbers outweighs one found only in the description, and
products matching every term rank above products matching some, so "lennox
furnace" lists Lennox furnaces first.
Ties fall back to price, then name, then SKU, so the order is stable.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import String, and_, cast, func, or_, select
from sqlalchemy.orm import Session

from mirror.catalog import public_products_filter
from mirror.models import Product

MAX_TERMS = 8
# Words that carry no product meaning in questions such as "what do air
# filters cost?"; dropped unless nothing else is left.
STOP_WORDS = frozenset(
    "a an and any are can cost costs do does for have how i in installed is it me much my of on or "
    "price prices show the to what which with you your".split()
)
_WORD_RE = re.compile(r"[a-z0-9]+")

# Points per term by where it matched: (whole word, word prefix); fields in
# descending order of their whole-word points, so scoring can stop early.
_FIELDS = (
    ("model", 12, 6),
    ("name", 10, 6),
    ("brand", 8, 5),
    ("tier", 6, 0),
    ("category", 5, 3),
    ("sku", 5, 3),
    ("description", 2, 1),
)


@dataclass(frozen=True)
class _Term:
    """A query term with its matchers (a plural s/es is allowed on a whole word)."""

    text: str
    word: re.Pattern
    prefix: re.Pattern | None

    @classmethod
    def of(cls, text: str) -> "_Term":
        edge = r"(?<![a-z0-9])" + re.escape(text)
        prefix = re.compile(edge) if len(text) >= 3 else None
        return cls(text=text, word=re.compile(edge + r"(?:e?s)?(?![a-z0-9])"), prefix=prefix)


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
    """Public products of one company matching `query`, best first."""
    terms = query_terms(query)
    if not terms:
        return CatalogSearch(hits=[], total=0, terms=[])
    matchers = [_Term.of(term) for term in terms]
    phrase = " ".join(_WORD_RE.findall(query.lower()))
    compact = phrase.replace(" ", "")
    scored = []
    for row in session.execute(_candidates(plugin_key, terms, category_slug, tier, max_price_cents)):
        matched, points = _score(row, matchers, phrase, compact)
        if matched:
            scored.append(((-matched, -points, row.price_cents, row.name, row.sku), row))
    scored.sort(key=lambda pair: pair[0])
    return CatalogSearch(hits=[_hit(row) for _, row in scored[:limit]], total=len(scored), terms=terms)


def _candidates(plugin_key: str, terms: list[str], category_slug, tier, max_price_cents):
    """Public products of the company that mention any term in any searched field."""
    # Model numbers come back as their JSON text: decoding thousands of lists
    # costs more than scoring them, and only the returned hits need a list.
    models_text = cast(Product.model_numbers, String)
    columns = (
        Product.sku, Product.name, Product.brand, Product.category_name, Product.category_slug,
        Product.category_kind, Product.tier, Product.price_cents, models_text.label("models_text"),
        Product.description,
    )
    # One lower-cased haystack per row, so each term costs one LIKE.
    haystack = func.lower(
        Product.name + " " + func.coalesce(Product.brand, "") + " " + Product.category_name + " "
        + func.coalesce(Product.description, "") + " " + Product.sku + " " + func.coalesce(models_text, "")
    )
    mentions = or_(*(haystack.contains(term, autoescape=True) for term in terms))
    filters = [public_products_filter(plugin_key), mentions]
    if category_slug is not None:
        filters.append(Product.category_slug == category_slug)
    if tier is not None:
        filters.append(Product.tier == tier)
    if max_price_cents is not None:
        filters.append(Product.price_cents <= max_price_cents)
    return select(*columns).where(and_(*filters))


def _models(row) -> list[str]:
    try:
        models = json.loads(row.models_text or "[]")
    except ValueError:
        return []
    return [m for m in models if isinstance(m, str)] if isinstance(models, list) else []


def _texts(row) -> dict[str, str]:
    return {
        "model": (row.models_text or "").lower(),
        "name": row.name.lower(),
        "brand": (row.brand or "").lower(),
        "tier": row.tier or "",
        "category": f"{row.category_name} {row.category_slug}".lower(),
        "sku": row.sku.lower(),
        "description": (row.description or "").lower(),
    }


def _term_points(term: _Term, texts: dict[str, str]) -> int:
    """The points of the best field a term matches in (0 when none)."""
    best = 0
    for field, word_points, prefix_points in _FIELDS:
        if word_points <= best:
            break  # no later field can beat what we have
        text = texts[field]
        if term.text not in text:  # a cheap substring test before any regex
            continue
        if term.word.search(text):
            best = word_points
        elif term.prefix is not None and prefix_points > best and term.prefix.search(text):
            best = prefix_points
    return best


def _score(row, terms: list[_Term], phrase: str, compact: str) -> tuple[int, int]:
    """(number of terms matched, points); a term counts once, where it matched best."""
    texts = _texts(row)
    matched = points = 0
    for term in terms:
        best = _term_points(term, texts)
        if best:
            matched += 1
            points += best
    if matched and len(terms) > 1 and phrase in texts["name"]:
        points += 8  # the whole query as a phrase in the name
    if compact and terms[0].text in texts["model"] and any(
        compact == "".join(_WORD_RE.findall(m.lower())) for m in _models(row)
    ):
        points += 20  # exactly a model number
    return matched, points


def _hit(row) -> CatalogHit:
    return CatalogHit(
        sku=row.sku, name=row.name, brand=row.brand, category_name=row.category_name,
        category_slug=row.category_slug, category_kind=row.category_kind, tier=row.tier,
        price_cents=row.price_cents,
        model_numbers=_models(row),
        description=row.description,
    )
