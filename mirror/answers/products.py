"""What an answer asks of a list of products: which state a size (else the nearest), which are a kind, each tier's
lowest price, the price span.

Products are anything with `name`, `tier`, `price_cents`, `kinds` and
`measures` (the read layer's TierProduct and FeedProduct). A size is stated
the way the catalog search finds it (mirror/read/catalog.py): by the
product's stored measure of the quantity (read by the sync from its specs,
else its name) inside the size's bounds (or one of its text forms); a
product with no measure of it, by one of the size's phrases in its name, as
the index splits it.

An answer never puts a price under a label it does not have (docs/ask.md):
a size the products do not offer is replaced by the nearest they do
(`fit_sizes`, which says so: a `Substitute`), a tier none has is not
claimed (`fit_tiers`), and each kind asked is answered under its own label
(`kinds_of`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from mirror.catalog.trades import TIERS
from mirror.catalog.units import QUANTITIES, Size
from mirror.query.concepts import descendants
from mirror.query.understand import Recognised
from mirror.store import fulltext as ft

LARGEST, SMALLEST, NEAREST = "largest", "smallest", "nearest"


def checkable(sizes: Iterable[Size]) -> list[Size]:
    """The sizes a catalog can state (a floor area is understood, but no catalog states it)."""
    return [s for s in sizes if QUANTITIES[s.quantity].spec_keys]


def measure_of(product: Any, quantity: str) -> Decimal | None:
    """A product's stored measure of `quantity` as a number (None: it states none, or states it as text)."""
    value = (product.measures or {}).get(quantity)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def states_size(size: Size, product: Any) -> bool:
    """Whether a product is `size`: by its stored measure of the quantity, else by its name."""
    measures = product.measures or {}
    if size.quantity in measures:
        value = measures[size.quantity]
        if isinstance(value, str):
            return value.strip().lower() in {t.lower() for t in size.spec_texts()}
        number = measure_of(product, size.quantity)
        low, high = size.bounds()
        return number is not None and low <= number < high
    words = ft.words(product.name)
    return any(_has_phrase(words, phrase) for phrase in size.name_phrases())


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    width = len(phrase)
    for start in range(len(words) - width + 1):
        if all(_word_is(words[start + i], part) for i, part in enumerate(phrase)):
            return True
    return False


def _word_is(word: str, part: str) -> bool:
    return word.startswith(part[:-1]) if part.endswith("*") else word == part


def of_sizes(products: Sequence[Any], sizes: Sequence[Size]) -> list[Any]:
    """The products stating every size in `sizes`."""
    return [p for p in products if all(states_size(s, p) for s in sizes)]


@dataclass(frozen=True)
class Substitute:
    """A size asked that no product offers, and the nearest one that is offered (None: none states the quantity)."""

    asked: Size
    offered: Size | None = None
    relation: str = NEAREST  # LARGEST (all are smaller), SMALLEST (all are larger), NEAREST


def fit_sizes(products: Sequence[Any], sizes: Sequence[Size]) -> tuple[list[Any], tuple[Substitute, ...]]:
    """The products of the sizes asked; for a size none offers, those of the nearest size one states (the larger
    of two as near), and what was put in its place. A size no product states at all narrows nothing."""
    kept = list(products)
    substitutes = []
    for size in sizes:
        exact = [p for p in kept if states_size(size, p)]
        if exact:
            kept = exact
            continue
        values = sorted({v for p in kept if (v := measure_of(p, size.quantity)) is not None})
        if not values or QUANTITIES[size.quantity].text_specs:
            substitutes.append(Substitute(size))
            continue
        nearest = min(values, key=lambda v: (abs(v - size.value), -v))
        relation = LARGEST if size.value > values[-1] else SMALLEST if size.value < values[0] else NEAREST
        kept = [p for p in kept if measure_of(p, size.quantity) == nearest]
        substitutes.append(Substitute(size, Size(size.quantity, nearest, ()), relation))
    return kept, tuple(substitutes)


def sizes_offered(sizes: Sequence[Size], substitutes: Sequence[Substitute]) -> list[Size]:
    """The sizes an answer's label may name: those asked and offered, and the nearest offered in place of the
    others (a size no product states is named by none)."""
    instead = {s.asked: s.offered for s in substitutes}
    return [instead.get(size, size) for size in sizes if instead.get(size, size) is not None]


def of_tiers(products: Sequence[Any], tiers: Sequence[str]) -> list[Any]:
    """The products of the tiers asked (all of them when none was asked)."""
    return [p for p in products if p.tier in tiers] if tiers else list(products)


def fit_tiers(products: Sequence[Any], tiers: Sequence[str]) -> tuple[list[Any], tuple[str, ...]]:
    """The products of the tiers asked, and the tiers asked that none is (then every tier's products)."""
    missing = tuple(tier for tier in tiers if not any(p.tier == tier for p in products))
    present = [tier for tier in tiers if tier not in missing]
    return (of_tiers(products, present) if present else list(products)), missing


def is_kind(product: Any, slug: str) -> bool:
    """Whether a product is the concept `slug` (or one under it), by the kinds the sync read; a product of which
    no kind could be read is taken to be what the search found it for."""
    kinds = product.kinds or ()
    return not kinds or any(kind in descendants(slug) for kind in kinds)


def kinds_of(products: Sequence[Any], asked: Sequence[Recognised]) -> list[Recognised]:
    """The concepts asked that some of the products are, in the question's order."""
    return [r for r in asked if any(is_kind(p, r.slug) for p in products)]


def by_kinds_asked(products: Sequence[Any], asked: Sequence[Recognised]) -> list[tuple[tuple[Recognised, ...], list]]:
    """The products grouped by the concepts asked that each is ("furnace and heat pump": the furnaces, the heat
    pumps; "furnace and AC": the A/C and furnace systems, then the air conditioners), in the question's order."""
    groups: dict[tuple[str, ...], list] = {}
    for product in products:
        groups.setdefault(tuple(r.slug for r in asked if is_kind(product, r.slug)), []).append(product)
    named = {r.slug: r for r in asked}
    order = {r.slug: i for i, r in enumerate(asked)}
    ranked = sorted((slugs for slugs in groups if slugs), key=lambda slugs: (-len(slugs), order[slugs[0]]))
    return [(tuple(named[slug] for slug in slugs), groups[slugs]) for slugs in ranked]


def cheapest_by_tier(products: Sequence[Any], tiers: Sequence[str] = TIERS) -> list[tuple[str, Any | None]]:
    """Each tier (cheapest first) and its lowest-priced product (None when the tier has none)."""
    rows = []
    for tier in tiers:
        priced = [p for p in products if p.tier == tier]
        rows.append((tier, min(priced, key=lambda p: (p.price_cents, p.name)) if priced else None))
    return rows


def span(products: Sequence[Any]) -> tuple[int, int, int]:
    """(lowest price, highest price, how many) of a non-empty list."""
    prices = [p.price_cents for p in products]
    return min(prices), max(prices), len(prices)
