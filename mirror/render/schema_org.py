"""schema.org: a company's graph built from its public view (no HTTP), the one builder.

The JSON-LD document (`GET /companies/<key>.jsonld`, feeds/jsonld.py), the
hosted pages' page-scoped JSON-LD (feeds/pages.py) and the NLWeb `/ask`
answers' schema.org items (nlweb_server/) all call these functions with the
same `CompanyView`, so structured data, page and answer can never disagree.

Shape (docs/contracts/surfaces.md, "JSON-LD"): one business node typed by its trades, then
one node per offer group carrying an `AggregateOffer` (and, for tiered
systems, one `Offer` per published tier). Every node has an absolute `@id`
under PUBLIC_BASE_URL and every offer names the business as its `seller`.
Facts the mirror does not hold are left out, never sent as empty strings.
"""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import quote

from mirror.catalog.public_view import AddressView, CategoryView, CompanyView
from mirror.catalog.trades import TIERS, TIERS_BY_SLUG
from mirror.catalog.urls import JSONLD, company_path
from mirror.runtime.config import Settings
from mirror.values.jsontext import dumps

SCHEMA_CONTEXT = "https://schema.org"
# Characters that could end a <script> element or start markup when the
# document is pasted into a page; JSON allows them as \u escapes.
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"}


def document_url(settings: Settings, plugin_key: str) -> str:
    """The absolute URL of the company's .jsonld document (the base of every @id)."""
    return settings.absolute(company_path(JSONLD, plugin_key))


def company_graph(view: CompanyView, settings: Settings, categories: list[CategoryView] | None = None) -> dict:
    """The schema.org graph: the business, then one node per category.

    `categories` defaults to every category of the view; a page passes the
    ones it shows.
    """
    base = document_url(settings, view.business.plugin_key)
    business_id = base + "#business"
    shown = view.categories if categories is None else categories
    nodes = [business_node(view, business_id)]
    nodes += [category_node(view, category, base, business_id) for category in shown]
    return {"@context": SCHEMA_CONTEXT, "@graph": nodes}


def business_node(view: CompanyView, node_id: str) -> dict:
    """The LocalBusiness node: the most specific type(s) the trades support."""
    business = view.business
    types = business.business_types
    node: dict = {"@type": types[0] if len(types) == 1 else list(types), "@id": node_id, "name": business.name}
    if business.address is not None:
        node["address"] = postal_address(business.address)
    if business.geo is not None:
        node["geo"] = {
            "@type": "GeoCoordinates",
            "latitude": business.geo.latitude,
            "longitude": business.geo.longitude,
        }
    if business.phone:
        node["telephone"] = business.phone
    if business.website:
        node["url"] = business.website
    if business.service_area.postal_codes:
        node["areaServed"] = list(business.service_area.postal_codes)
    return node


def postal_address(address: AddressView) -> dict:
    """A PostalAddress; `streetAddress` is line1 and line2 joined by ", "."""
    street = ", ".join(part for part in (address.line1, address.line2) if part)
    fields = {
        "streetAddress": street,
        "addressLocality": address.locality,
        "addressRegion": address.region,
        "postalCode": address.postal_code,
        "addressCountry": address.country,
    }
    return {"@type": "PostalAddress", **{name: value for name, value in fields.items() if value}}


def category_node(view: CompanyView, category: CategoryView, base: str, business_id: str) -> dict:
    """One offer group as a Product (or, without any image, a Service).

    Google's merchant-listing rules require a Product to have an image, and
    we never invent one: a category whose catalog has no image is described
    as the installation service it is, with the same offers, so every visible
    price is still in the structured data.
    """
    node: dict = {
        "@type": "Product" if category.image_url else "Service",
        "@id": f"{base}#category-{quote(category.slug, safe='')}",
        "name": category.name,
    }
    if category.image_url:
        node["image"] = category.image_url
    else:
        node["provider"] = {"@id": business_id}
    node["offers"] = aggregate_offer(view, category, business_id)
    return node


def aggregate_offer(view: CompanyView, category: CategoryView, business_id: str) -> dict:
    """The category's price range; tiered systems list one Offer per published tier."""
    offer: dict = {
        "@type": "AggregateOffer",
        "priceCurrency": view.currency,
        "lowPrice": price_text(category.price_low),
        "highPrice": price_text(category.price_high),
        "offerCount": category.offer_count,
        "seller": {"@id": business_id},
    }
    if view.price_description:
        offer["description"] = view.price_description
    if category.tiers is not None:
        tier_offers = [tier_offer(view, tier, getattr(category.tiers, tier)) for tier in TIERS]
        tier_offers = [o for o in tier_offers if o is not None]
        if tier_offers:
            offer["offers"] = tier_offers
    return offer


def tier_offer(view: CompanyView, tier: str, price: Decimal | None) -> dict | None:
    """A Good/Better/Best Offer, or None for a tier with no published product."""
    if price is None:
        return None
    return {
        "@type": "Offer",
        "name": TIERS_BY_SLUG[tier].title,
        "price": price_text(price),
        "priceCurrency": view.currency,
    }


def price_text(value: Decimal) -> str:
    """A schema.org price: a decimal string with exactly two decimals ("8500.00")."""
    return f"{value:.2f}"


def script_safe_json(data) -> str:
    """Compact JSON in which `</script>` (or any tag) can never form.

    The same escaping Flask's `tojson` applies, so the document can be pasted
    into `<script type="application/ld+json">` as is.
    """
    text = dumps(data)
    # One str.replace per character: each is a C scan. str.translate looks
    # every character up in the table's dict (265 against 11 us on 4.8 KB of
    # non-ASCII text, measured): a tenth of a cold JSON-LD request.
    for unsafe, escaped in _SCRIPT_UNSAFE.items():
        text = text.replace(unsafe, escaped)
    return text
