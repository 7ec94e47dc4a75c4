"""Pieces shared by the tool declarations: argument types and output objects.

Output field names follow pricing.json wherever the same fact appears
(`price_low`, `price_high`, `offer_count`, `tiers`, `quote_url`); money is a
JSON number carrying the exact decimal value.
"""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, PlainSerializer, StringConstraints, WithJsonSchema

from mcp_server.tools.declaration import ToolError, ToolOutput
from mirror.public_view import AddressView, CategoryView, freshness, iso, money_json
from mirror.records import normalise_postal_code

Money = Annotated[
    Decimal,
    PlainSerializer(money_json),
    WithJsonSchema({"type": "number", "description": "An amount in `currency`, exact (e.g. 11006 or 60.05)."}),
]
FreshnessState = Literal["fresh", "stale", "unavailable"]


def _integral(value: Any) -> Any:
    """JSON Schema integers include 10.0; accept it as 10."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _lower(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def text_argument(max_length: int, description: str) -> Any:
    """A non-blank string (surrounding whitespace ignored)."""
    return Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=max_length),
        Field(description=description),
    ]


def limit_argument(maximum: int, default: int, what: str) -> Any:
    """An integer 1..maximum."""
    return Annotated[
        int,
        Field(default=default, ge=1, le=maximum,
              description=f"How many {what} to return (1-{maximum}, default {default})."),
        BeforeValidator(_integral),  # after Field, so the bounds reach the JSON Schema
    ]


PostalCodeText = Annotated[
    str,
    StringConstraints(max_length=20),
    Field(description="A US postal code: a 5-digit ZIP such as 63376; ZIP+4 (63376-1234) and spaces are accepted."),
]
TierName = Annotated[
    Literal["good", "better", "best"],
    Field(description="Only products of this tier: good, better or best."),
    BeforeValidator(_lower),
]


def postal_code_or_error(raw: str, argument: str = "postal_code") -> str:
    """The normalised 5-digit ZIP, or a tool error naming the argument."""
    normalised = normalise_postal_code(raw)
    if normalised is None:
        shown = raw.strip()[:20]
        raise ToolError(
            f"{argument}: {shown!r} is not a US postal code; pass a 5-digit ZIP such as 63376 "
            "(ZIP+4 such as 63376-1234 is accepted)."
        )
    return normalised


class AddressOut(ToolOutput):
    """The address object of pricing.json."""

    line1: str | None
    line2: str | None
    locality: str | None
    region: str | None
    postal_code: str | None
    country: str | None
    formatted: str

    @classmethod
    def from_view(cls, view: AddressView | None) -> "AddressOut | None":
        """None when the company has no address."""
        return None if view is None else cls(**view.model_dump())


class ServiceAreaOut(ToolOutput):
    """The normalised service-area postal codes."""

    postal_code_count: int
    postal_codes: list[str]


class TiersOut(ToolOutput):
    """Lowest published price per tier; null where a tier has no product."""

    good: Money | None
    better: Money | None
    best: Money | None


class CategoryOut(ToolOutput):
    """One offer group, as pricing.json shows it (plus its kind)."""

    name: str
    slug: str
    kind: Literal["system", "accessory"]
    price_low: Money
    price_high: Money
    offer_count: int
    tiers: TiersOut | None = Field(
        default=None, exclude_if=lambda value: value is None,
        description="Good/Better/Best prices; present on installed-system categories only.",
    )

    @classmethod
    def from_view(cls, view: CategoryView) -> "CategoryOut":
        """From the public view's category."""
        tiers = TiersOut(**view.tiers.model_dump()) if view.tiers is not None else None
        return cls(name=view.name, slug=view.slug, kind=view.kind, price_low=view.price_low,
                   price_high=view.price_high, offer_count=view.offer_count, tiers=tiers)


LastSyncedAt = Annotated[
    str | None, Field(description="When the mirror last confirmed this data (RFC 3339, UTC); null if never."),
]


def provenance_at(synced: datetime | None, threshold_seconds: int, now: datetime) -> dict:
    """Provenance for a last-synced time computed outside a CompanyView."""
    return {"last_synced_at": iso(synced), "freshness_state": freshness(synced, threshold_seconds, now)}
