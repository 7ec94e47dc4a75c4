"""The mirror's public catalog in the shapes of UCP's Catalog capability (2026-04-08 and 2026-08-25).

No HTTP, no JSON-RPC and no query here: pure functions that turn the public
view (mirror.catalog.public_view) and a company's public products (read by
mirror/read/ucp.py) into UCP Product / Variant dicts. The
protocol layer (mcp_server/ucp) validates them against its output models.

The mapping:

- an offer group (one company's category) is a UCP **Product**: id
  `category:<slug>` (stable across syncs: the slug is the group's key),
  `handle` = slug, `title` = category name, `price_range` = the group's
  published low/high;
- each public product of the group (mirror.catalog.public_products's rule) is a
  **Variant**: id `sku:<sku>`, `sku`, `title` = product name, the installed
  `price` in minor units (the mirror's integer cents) with the company's
  currency, and options `Tier` (Good/Better/Best, system categories) and
  `Brand`;
- `url` on products and variants is the company's quote page (`quote_url`,
  absent when the quote switch is off); `seller` names the contractor with a
  `request_quote` link.

Two facts only 2026-08-25 has fields for (the protocol layer asks for them
per release):

- every installed system and every accessory is sold each: a variant's
  `quantity_unit` is UN/CEFACT `C62` ("each"), the basis its price is per;
- the contractor's price description (what its published prices cover) is
  the response's one policy, of this install's own type
  `PRICE_TERMS_POLICY`, pointing at the quote page.

All text (names, descriptions, brands) is contractor-authored data: it is
passed through as JSON strings, never interpreted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mirror.catalog.public_view import CategoryView, CompanyView
from mirror.catalog.trades import TIERS, TIERS_BY_SLUG
from mirror.store.models import Product
from mirror.values.money import to_cents

PRODUCT_PREFIX = "category:"
VARIANT_PREFIX = "sku:"
TIER_OPTION = "Tier"
BRAND_OPTION = "Brand"
TIER_LABELS = {tier.slug: tier.title for tier in TIERS_BY_SLUG.values()}
OUTSIDE_SERVICE_AREA = "outside_service_area"
# UN/CEFACT Rec20 "one/each": each installation (and each accessory) is one sale.
SOLD_EACH = {"unit": "C62", "display_text": "each"}
# A reverse-domain policy type of our own (UCP's well-known ones are return and warranty terms).
PRICE_TERMS_POLICY = "com.contractor_commerce.policy.price_terms"


def product_id(slug: str) -> str:
    """The UCP Product id of an offer group."""
    return PRODUCT_PREFIX + slug


def variant_id(sku: str) -> str:
    """The UCP Variant id of a product."""
    return VARIANT_PREFIX + sku


@dataclass(frozen=True)
class Identifier:
    """One lookup identifier, classified.

    `category:<slug>` names a product and `sku:<sku>` a variant; anything else
    may be a bare SKU (a variant field) or a handle (the product's slug), so
    it is tried as both.
    """

    raw: str
    slug: str | None
    sku: str | None


def parse_identifier(raw: str) -> Identifier:
    """Classify a lookup identifier by its prefix."""
    if raw.startswith(PRODUCT_PREFIX):
        return Identifier(raw=raw, slug=raw[len(PRODUCT_PREFIX) :], sku=None)
    if raw.startswith(VARIANT_PREFIX):
        return Identifier(raw=raw, slug=None, sku=raw[len(VARIANT_PREFIX) :])
    return Identifier(raw=raw, slug=raw.strip().lower(), sku=raw)


# --- mapping ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Storefront:
    """What every product and variant of one response shares."""

    currency: str
    quote_url: str | None
    seller: dict
    served: bool
    sale_basis: bool = False  # variants state their quantity_unit (a field since UCP 2026-08-25)

    @classmethod
    def of(cls, view: CompanyView, served: bool = True, *, sale_basis: bool = False) -> Storefront:
        """The storefront of a company's public view; `served` is the buyer's postal-code coverage."""
        return cls(
            currency=view.currency, quote_url=view.quote_url, seller=seller(view), served=served, sale_basis=sale_basis
        )

    def price(self, cents: int) -> dict:
        """A UCP Price: integer minor units (the mirror's cents) and the currency."""
        return {"amount": int(cents), "currency": self.currency}


def seller(view: CompanyView) -> dict:
    """The contractor as UCP seller: its name, its quote page and website."""
    links = []
    if view.quote_url:
        links.append({"type": "request_quote", "url": view.quote_url, "title": "Request a quote"})
    if view.business.website:
        links.append({"type": "website", "url": view.business.website, "title": "Contractor website"})
    entry = {"name": view.business.name}
    if links:
        entry["links"] = links
    return entry


def variant_options(product: Product) -> list[dict]:
    """The option values that define a variant: Tier (system categories) and Brand."""
    options = []
    if product.tier in TIER_LABELS:
        options.append({"name": TIER_OPTION, "label": TIER_LABELS[product.tier]})
    if product.brand:
        options.append({"name": BRAND_OPTION, "label": product.brand})
    return options


def product_options(products: Iterable) -> list[dict]:
    """The product's option axes with every value its variants use (tiers in Good/Better/Best order).

    `products` are anything with `.tier` and `.brand` (Product rows or option_values() pairs).
    """
    products = list(products)
    tiers = [TIER_LABELS[t] for t in TIERS if any(p.tier == t for p in products)]
    brands = sorted({p.brand for p in products if p.brand}, key=lambda b: (b.lower(), b))
    options = []
    if tiers:
        options.append({"name": TIER_OPTION, "values": [{"label": label} for label in tiers]})
    if brands:
        options.append({"name": BRAND_OPTION, "values": [{"label": label} for label in brands]})
    return options


def _media(url: str | None, alt_text: str) -> list[dict] | None:
    if not url or not url.startswith(("https://", "http://")):
        return None
    return [{"type": "image", "url": url, "alt_text": alt_text}]


def ucp_variant(product: Product, storefront: Storefront) -> dict:
    """One public product as a UCP Variant."""
    variant = {
        "id": variant_id(product.sku),
        "sku": product.sku,
        "title": product.name,
        "description": {"plain": product.description or product.name},
        "categories": [{"value": product.category_slug, "taxonomy": "merchant"}],
        "price": storefront.price(product.price_cents),
        **({"quantity_unit": dict(SOLD_EACH)} if storefront.sale_basis else {}),
        "availability": _availability(storefront.served),
        "options": variant_options(product),
        "seller": storefront.seller,
        "metadata": _variant_metadata(product),
    }
    if storefront.quote_url:
        variant["url"] = storefront.quote_url
    media = _media(product.image_url, product.name)
    if media:
        variant["media"] = media
    return variant


def _availability(served: bool) -> dict:
    if served:
        return {"available": True}
    return {"available": False, "status": OUTSIDE_SERVICE_AREA}


def _variant_metadata(product: Product) -> dict:
    """The facts UCP has no field for: model numbers, specs, what the price covers."""
    specs = {k: v for k, v in (product.specs or {}).items() if isinstance(v, (str, int, float, bool))}
    return {
        "price_type": "installed",
        "category_kind": product.category_kind,
        "model_numbers": [m for m in (product.model_numbers or []) if isinstance(m, str)],
        "specs": specs,
    }


def ucp_product(
    category: CategoryView, variants: list[dict], option_source: Iterable, storefront: Storefront, view: CompanyView
) -> dict:
    """An offer group as a UCP Product with the given variants (featured first)."""
    product = {
        "id": product_id(category.slug),
        "handle": category.slug,
        "title": category.name,
        "description": {"plain": category_description(category, view)},
        "categories": [{"value": category.slug, "taxonomy": "merchant"}],
        "price_range": {
            "min": storefront.price(to_cents(category.price_low)),
            "max": storefront.price(to_cents(category.price_high)),
        },
        "options": product_options(option_source),
        "variants": variants,
        "tags": [category.kind],
        "metadata": _category_metadata(category),
    }
    if storefront.quote_url:
        product["url"] = storefront.quote_url
    media = _media(category.image_url, category.name)
    if media:
        product["media"] = media
    if not product["options"]:
        del product["options"]
    return product


def category_description(category: CategoryView, view: CompanyView) -> str:
    """A plain-text summary of what the offer group is and what its prices cover."""
    count = category.offer_count
    options = "option" if count == 1 else "options"
    text = (
        f"{category.name}: {count} installed {options} published by {view.business.name}, "
        f"{view.currency} {category.price_low:,.2f} to {category.price_high:,.2f} installed."
    )
    if view.price_description:
        text += f" {view.price_description}"
    return text


def _category_metadata(category: CategoryView) -> dict:
    metadata: dict = {"price_type": "installed", "category_kind": category.kind, "offer_count": category.offer_count}
    if category.tiers is not None:
        metadata["tier_prices"] = {
            TIER_LABELS[t]: None if getattr(category.tiers, t) is None else to_cents(getattr(category.tiers, t))
            for t in TIERS
        }
    return metadata


def price_policies(view: CompanyView) -> list[dict]:
    """The contractor's price description as the response's policy (none when it has none)."""
    text = (view.price_description or "").strip()
    if not text:
        return []
    policy = {"type": PRICE_TERMS_POLICY, "description": {"plain": text}}
    if view.quote_url:
        policy["url"] = view.quote_url
    return [policy]


# --- messages --------------------------------------------------------------------------


def estimate_warning(quote_url: str | None) -> dict:
    """The warning every result carries: prices are published estimates; the quote page is next."""
    text = (
        "Installed prices are the contractor's own published estimates, not a firm quote, an order or a "
        "reservation; the final price depends on the home and is confirmed by the contractor. "
    )
    if quote_url:
        text += f"The next step is the contractor's quote page: {quote_url}"
        return {"type": "warning", "code": "published_estimate", "content": text, "url": quote_url}
    return {
        "type": "warning",
        "code": "published_estimate",
        "content": text + "Contact the contractor for a firm price.",
    }


def service_area_warning(postal_code: str) -> dict:
    """Why every variant is unavailable: the buyer's postal code is outside the service area."""
    return {
        "type": "warning",
        "code": OUTSIDE_SERVICE_AREA,
        "content": f"The contractor does not list postal code {postal_code} in its service area, so these "
        "installations are marked unavailable there.",
    }


def not_found_info(identifier: str) -> dict:
    """An identifier that resolved to nothing (not an error: the response just has fewer products)."""
    return {"type": "info", "code": "not_found", "content": identifier}


def not_offered_info(identifier: str, note: str) -> dict:
    """An id read by meaning ("5-ton-ac") whose featured variant is not all it asked: what is not offered, and what
    is featured in its place under its own label (mirror/answers/company.py `featured_note`)."""
    return {"type": "info", "code": "not_offered", "content": f"{identifier}: {note}"}


def no_match_info(message: str) -> dict:
    """A search that found nothing: the query step's answer, saying what the contractor does carry."""
    return {"type": "info", "code": "no_match", "content": message}


def corrections_info(corrections) -> dict | None:
    """How misspelled or run-together words of the query were read, when any were (None otherwise)."""
    if not corrections:
        return None
    read = "; ".join(f"{c.typed!r} as {c.meant!r}" for c in corrections)
    return {"type": "info", "code": "query_corrected", "content": f"Read {read}."}
