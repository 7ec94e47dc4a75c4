"""The published answer to a search that found nothing: what the contractor does carry, so an agent can say so.

Declared once, here, as pydantic models: the MCP `search_catalog` result's
`no_match` and the UCP search's note are filled by them.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from mirror.answers.sentences import no_match_message
from mirror.catalog.trades import CategoryKind
from mirror.query.understand import UnderstoodQuery


class _Shape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CarriedCategory(_Shape):
    name: str
    slug: str
    kind: CategoryKind


class NoMatch(_Shape):
    """A search that found nothing: what the contractor does carry, so an agent can say so."""

    message: str
    categories: list[CarriedCategory] = Field(description="Every category this contractor publishes prices for.")

    @classmethod
    def of(cls, understood: UnderstoodQuery, business_name: str, categories: Iterable) -> NoMatch:
        """The answer for `categories` (anything with name, slug and kind: the view's CategoryView)."""
        carried = [CarriedCategory(name=c.name, slug=c.slug, kind=c.kind) for c in categories]
        return cls(message=no_match_message(understood, business_name, [c.name for c in carried]), categories=carried)
