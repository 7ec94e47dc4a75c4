"""The business-feed facts of a company, decided in one place.

A company is in the feed only while it is public, both its `quote` and `feed`
switches are on, and its contact data is complete (an address with
coordinates, a website and an E.164 phone). The feed hash covers exactly the
facts the feed record is made of, so a catalog-only change never moves it.
"""

from __future__ import annotations

from mirror.catalog.channels import Channel, company_open
from mirror.catalog.offers import stable_hash

ADDRESS_PARTS = ("line1", "locality", "region", "postal_code", "country")


def has_complete_address(address: dict | None) -> bool:
    """line1, locality, region, 5-digit postal code, country and coordinates."""
    if not address:
        return False
    return all(address.get(k) for k in ADDRESS_PARTS) and None not in (
        address.get("latitude"),
        address.get("longitude"),
    )


def funnel_url(company) -> str | None:
    """The contractor's own quote funnel: verified estimate URL, else shop URL."""
    return company.estimate_url or company.shop_url


def in_feed(company) -> bool:
    """Whether the company belongs in the business feed."""
    return bool(
        company_open(company, Channel.QUOTE)
        and company_open(company, Channel.FEED)
        and has_complete_address(company.address)
        and company.website
        and company.phone
    )


def feed_hash(company) -> str | None:
    """Hash of the facts the feed record shows; None when not in the feed."""
    if not in_feed(company):
        return None
    return stable_hash(
        {
            "name": company.name,
            "address": company.address,
            "phone": company.phone,
            "website": company.website,
            "funnel": funnel_url(company),
        }
    )
