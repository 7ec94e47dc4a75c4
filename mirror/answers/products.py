"""What an answer asks of a list of products: which state a size, each tier's lowest price, the price span.

Products are anything with `name`, `specs`, `tier` and `price_cents` (the
read layer's TierProduct and FeedProduct). A size is stated the way the
catalog search finds it (mirror/read/catalog.py): a number under one of the
quantity's `specs` keys inside the size's bounds (or one of its text
forms), or one of its phrases in the product's name, as the index splits it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from mirror.catalog.trades import TIERS
from mirror.catalog.units import QUANTITIES, Size
from mirror.store import fulltext as ft


def checkable(sizes: Iterable[Size]) -> list[Size]:
    """The sizes a catalog can state (a floor area is understood, but no catalog states it)."""
    return [s for s in sizes if QUANTITIES[s.quantity].spec_keys]


def states_size(size: Size, name: str, specs: dict) -> bool:
    """Whether a product states `size`, in its specs or its name."""
    low, high = size.bounds()
    texts = {t.lower() for t in size.spec_texts()}
    for key, factor in QUANTITIES[size.quantity].spec_keys:
        value = specs.get(key)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (int, float)):
            try:
                if low <= Decimal(str(value)) * factor < high:
                    return True
            except InvalidOperation:  # inf, nan
                continue
        elif isinstance(value, str) and value.strip().lower() in texts:
            return True
    words = ft.words(name)
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
    return [p for p in products if all(states_size(s, p.name, p.specs) for s in sizes)]


def of_tiers(products: Sequence[Any], tiers: Sequence[str]) -> list[Any]:
    """The products of the tiers asked (all of them when none was asked)."""
    return [p for p in products if p.tier in tiers] if tiers else list(products)


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
