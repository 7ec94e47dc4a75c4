"""Pieces shared by the tool declarations: argument types and the output base.

Output objects are the public view's own models (mirror.catalog.public_view): a tool
result's address, service area, tiers and categories are `AddressView`,
`ServiceAreaView`, `TierPrices` and `CategoryView`, and every result that
carries provenance subclasses `ProvenancedOutput`, so field names match
pricing.json by construction; money is a JSON number with the exact decimal
value (`Money`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, StringConstraints

from agent_tools.declaration import ToolError, ToolOutput
from mirror.catalog.public_view import Provenance, freshness
from mirror.catalog.records import normalise_postal_code
from mirror.catalog.trades import TierSlug


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
        Field(
            default=default,
            ge=1,
            le=maximum,
            description=f"How many {what} to return (1-{maximum}, default {default}).",
        ),
        BeforeValidator(_integral),  # after Field, so the bounds reach the JSON Schema
    ]


PostalCodeText = Annotated[
    str,
    StringConstraints(max_length=20),
    Field(description="A US postal code: a 5-digit ZIP such as 63376; ZIP+4 (63376-1234) and spaces are accepted."),
]
TierName = Annotated[
    TierSlug,
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


class ProvenancedOutput(ToolOutput, Provenance):
    """A tool result carrying the provenance trio (quote_url, last_synced_at, freshness_state)."""

    # Results keep ToolOutput's openness; only the view's own objects are closed.
    model_config = ConfigDict(extra="ignore")


def provenance_at(synced: datetime | None, threshold_seconds: int, now: datetime) -> dict:
    """Provenance for a last-synced time computed outside a CompanyView."""
    return {"last_synced_at": synced, "freshness_state": freshness(synced, threshold_seconds, now)}
