"""The published shape of the query step: what was understood.

Declared once, here, as pydantic models: the MCP tools' outputSchema, the
UCP messages and the A2A data part are generated from or filled by them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mirror.catalog.trades import CategoryKind, TierSlug
from mirror.query.understand import UnderstoodQuery
from mirror.values.jsontext import decimal_number
from mirror.values.money import cents_to_decimal


class _Shape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ConceptView(_Shape):
    slug: str = Field(description="The vocabulary's name for it, e.g. heat-pump, air-filter.")
    label: str = Field(description="How to say it, e.g. heat pump.")
    kind: CategoryKind | None = Field(description="An installed system or an accessory.")
    trades: list[str] = Field(description="The trades that install it, e.g. hvac, plumbing.")
    words: list[str] = Field(description="The words of the query that named it.")


class SizeView(_Shape):
    quantity: str = Field(description="capacity (BTU/h; 1 ton = 12,000), seer, afue, gallons, gpm, merv, ...")
    value: int | float | None = Field(description="In `unit`; null for a size written as text (filter_size).")
    unit: str
    label: str = Field(description="e.g. 3 ton (36,000 BTU/h), MERV 13, 16x25x1.")
    words: list[str]


class PriceView(_Shape):
    order: Literal["price_low", "price_high"] | None = Field(description="price_low: cheapest first.")
    max: int | float | None = Field(description="Only products priced at or below this (in the currency).")
    min: int | float | None
    words: list[str]


class RankingView(_Shape):
    efficient: bool = Field(
        description="Whether it asks for the most efficient: each kind by its rating, highest first."
    )
    ratings: list[str] = Field(description="Ratings named to rank by, highest first (seer, hspf, afue, uef).")
    features: list[str] = Field(description="Features asked for, stated first: wifi, programmable, variable-speed...")
    words: list[str]


class CorrectionView(_Shape):
    typed: str
    meant: str
    how: Literal["corrected", "split"] = Field(description="A misspelling corrected, or run-together words split.")


class UnderstoodView(_Shape):
    """What the query step read in the query (docs/search.md)."""

    concepts: list[ConceptView] = Field(description="The kinds of product named (synonyms and misspellings read).")
    trades: list[str] = Field(description="Trades named as such, e.g. plumber -> plumbing.")
    kind: CategoryKind | None = Field(description="system for 'HVAC system', 'installed system'.")
    sizes: list[SizeView]
    price: PriceView
    tiers: list[TierSlug] = Field(description="Tiers asked for: best/premium -> best.")
    postal_code: str | None
    asks_coverage: bool = Field(description="Whether it asks where the contractor works.")
    asks_comparison: bool = Field(description="Whether it asks to compare (vs, compare).")
    ranking: RankingView = Field(description="What else it asks to rank by: efficiency, a rating, features.")
    keywords: list[str] = Field(description="Matched as typed: brands, model numbers, other words.")
    corrections: list[CorrectionView]
    ignored: list[str] = Field(description="Words with no product meaning (how, much, new, installed...).")
    unrecognised: list[str] = Field(description="Words neither the trade vocabulary nor any catalog knows.")

    @classmethod
    def of(cls, understood: UnderstoodQuery) -> UnderstoodView:
        """The published form of an understood query."""
        price, rank = understood.price, understood.rank
        return cls(
            concepts=[
                ConceptView(slug=r.slug, label=r.label, kind=r.kind, trades=list(r.trades), words=list(r.words))
                for r in understood.concepts
            ],
            trades=list(understood.trades),
            kind=understood.kind,
            sizes=[
                SizeView(
                    quantity=s.quantity,
                    value=None if s.quantity == "filter_size" else decimal_number(s.value),
                    unit=s.unit,
                    label=s.label,
                    words=list(s.words),
                )
                for s in understood.sizes
            ],
            price=PriceView(
                order=price.order,
                max=decimal_number(cents_to_decimal(price.max_cents)),
                min=decimal_number(cents_to_decimal(price.min_cents)),
                words=list(price.words),
            ),
            tiers=list(understood.tiers),
            postal_code=understood.postal_code,
            asks_coverage=understood.asks_coverage,
            asks_comparison=understood.asks_comparison,
            ranking=RankingView(
                efficient=rank.efficient,
                ratings=list(rank.ratings),
                features=list(rank.features),
                words=list(rank.words),
            ),
            keywords=list(understood.keywords),
            corrections=[CorrectionView(typed=c.typed, meant=c.meant, how=c.how) for c in understood.corrections],
            ignored=list(understood.ignored),
            unrecognised=list(understood.unrecognised),
        )
