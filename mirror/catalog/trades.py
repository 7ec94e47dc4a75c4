"""The trades a contractor can have, the kinds of category, and the tiers installed systems come in: one table each.

Every surface that names a trade (the JSON-LD business type, the hosted
page's heading, the MCP server's instructions, the WordPress plugin through
pricing.json), a kind of category (installed system or accessory) or a tier
(JSON-LD Offer names, UCP option labels, the pages' rows) reads these; a new
trade is one row here. The words homeowners use for them belong to the
search vocabulary (mirror/query/), which refers to these slugs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args


@dataclass(frozen=True)
class Trade:
    """One trade as the upstream names it (`slug`, any letter case there) and as each surface says it."""

    slug: str
    title: str  # a heading: "Heating & cooling"
    in_sentence: str  # inside a sentence: "a HVAC contractor", "plumbing"
    schema_type: str  # the schema.org LocalBusiness type (docs/contracts/surfaces.md, JSON-LD)
    systems: str  # its installed systems, in a headline: "Installed heating and cooling systems from $8,500"


TRADES: dict[str, Trade] = {
    trade.slug: trade
    for trade in (
        Trade("hvac", "Heating & cooling", "HVAC", "HVACBusiness", "heating and cooling systems"),
        Trade("plumbing", "Plumbing", "plumbing", "Plumber", "plumbing systems"),
        Trade("electrical", "Electrical", "electrical", "Electrician", "electrical systems"),
        Trade("roofing", "Roofing", "roofing", "RoofingContractor", "roofing systems"),
    )
}
KNOWN_TRADES = tuple(TRADES)  # the order records keep them in
# The JSON-LD type of a contractor with none of the trades above.
GENERIC_BUSINESS_TYPE = "HomeAndConstructionBusiness"
GENERIC_TITLE = "Home services"
# The installed systems of a contractor with several trades or none: a headline
# never says which trade's systems a price is for unless the contractor has one trade.
GENERIC_SYSTEMS = "systems"


def in_sentence(slug: str) -> str:
    """A trade as said inside a sentence ("HVAC", "plumbing"); a slug this table does not know, as it is."""
    trade = TRADES.get(slug)
    return trade.in_sentence if trade is not None else slug


def known(slugs: Iterable[str]) -> list[Trade]:
    """The trades of `slugs` this table knows, in their order (an unknown slug is left out)."""
    return [TRADES[slug] for slug in slugs if slug in TRADES]


def business_types(slugs: Iterable[str]) -> list[str]:
    """The schema.org types of a business with these trades: one per known trade, else the generic one."""
    return [trade.schema_type for trade in known(slugs)] or [GENERIC_BUSINESS_TYPE]


def systems_noun(slugs: Iterable[str]) -> str:
    """What a headline calls the installed systems: the one trade's ("plumbing systems"), else just "systems"."""
    trades = known(slugs)
    return trades[0].systems if len(trades) == 1 else GENERIC_SYSTEMS


# The kinds of category (upstream `category.kind`): an installed system comes in
# tiers, an accessory (a part or add-on) does not. Systems are listed first.
CategoryKind = Literal["system", "accessory"]
KINDS: tuple[str, ...] = get_args(CategoryKind)
SYSTEM, ACCESSORY = KINDS


def category_order(kind: str, name: str, slug: str) -> tuple:
    """The order categories are listed in everywhere: installed systems first, then by name (any case), then slug."""
    return (kind != SYSTEM, name.lower(), slug)


@dataclass(frozen=True)
class Tier:
    """One tier of an installed-system category (upstream `tier`: good, better or best)."""

    slug: str
    title: str  # "Good": JSON-LD Offer names, UCP option labels, the pages' rows


TierSlug = Literal["good", "better", "best"]  # cheapest first
TIERS: tuple[str, ...] = get_args(TierSlug)
TIERS_BY_SLUG: dict[str, Tier] = {slug: Tier(slug, slug.capitalize()) for slug in TIERS}
