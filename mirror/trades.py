"""The trades a contractor can have, and the tiers its installed systems come in: one table each.

Every surface that names a trade (the JSON-LD business type, the hosted
page's heading, the MCP server's instructions) or a tier (JSON-LD Offer
names, UCP option labels, the pages' rows) reads these; a new trade is one
row here. The words homeowners use for them belong to the search vocabulary
(mirror/query/), which refers to these slugs.
"""

from __future__ import annotations

from dataclasses import dataclass


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


@dataclass(frozen=True)
class Tier:
    """One tier of an installed-system category (upstream `tier`: good, better or best)."""

    slug: str
    title: str  # "Good": JSON-LD Offer names, UCP option labels, the pages' rows


TIERS_BY_SLUG: dict[str, Tier] = {
    tier.slug: tier for tier in (Tier("good", "Good"), Tier("better", "Better"), Tier("best", "Best"))
}
TIERS = tuple(TIERS_BY_SLUG)  # cheapest first
