"""The one public view of a company, built from the mirror.

Every surface renders this: pricing.json is `CompanyView.pricing_document()`,
and the JSON-LD, hosted pages and MCP tools read the same objects, so two
surfaces never compute the same number twice; the business feed's record
takes its address, coordinates and URLs from here.

The models below are also the single declaration of every public shape: the
address, service area, tiers, category and provenance objects exist once,
here. Tool results are built from (and subclass) them, the OpenAPI schemas of
pricing.json and the JSON error are generated from them, and the feed record
validates with them. Only public facts exist here; nothing in this module
knows about HTTP (URLs come from mirror.catalog.urls' route table).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, TypeAdapter, WithJsonSchema

from mirror.catalog import urls
from mirror.catalog.channels import Channel, company_open
from mirror.catalog.feed_facts import funnel_url
from mirror.catalog.glossary import glossary, plain_name
from mirror.catalog.product_facts import stored_facts
from mirror.catalog.trades import (
    SYSTEM,
    TIERS_BY_SLUG,
    CategoryKind,
    TierSlug,
    business_types,
    category_order,
    systems_noun,
)
from mirror.catalog.urls import stamp_referrer
from mirror.runtime.config import Settings
from mirror.values.jsontext import decimal_number
from mirror.values.money import cents_to_decimal
from mirror.values.timestamps import aware, rfc3339

DATA_PROVENANCE = (
    "These are the contractor's own first-party installed prices, published by the contractor "
    "and mirrored from its catalog without change."
)
FreshnessState = Literal["fresh", "stale", "unavailable"]


class IncompleteView(RuntimeError):
    """A summary view (read without the products) asked for what only the complete one holds: a programming error."""

    def __init__(self, plugin_key: str) -> None:
        super().__init__(f"the view of {plugin_key} is a summary (read without options); read it with options=True")


class _View(BaseModel):
    # Closed: a view holds exactly its declared public facts, and its JSON
    # Schema (OpenAPI, MCP outputSchema) says so.
    model_config = ConfigDict(frozen=True, extra="forbid")


# Money is exact Decimal in the view and a JSON number with the decimal's own
# digits wherever it is published (pricing.json, tool results).
Money = Annotated[
    Decimal,
    PlainSerializer(decimal_number),
    WithJsonSchema({"type": "number", "description": "An amount in `currency`, exact (e.g. 11006 or 60.05)."}),
]
# A time in the view; RFC 3339 UTC with a Z (or null) wherever it is published.
Timestamp = Annotated[
    datetime | None,
    PlainSerializer(lambda value: rfc3339(value)),
    WithJsonSchema({"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}),
]


class AddressView(_View):
    """The address object every surface uses (docs/contracts/surfaces.md)."""

    line1: str | None
    line2: str | None
    locality: str | None
    region: str | None
    postal_code: str | None
    country: str | None
    formatted: str

    @classmethod
    def from_stored(cls, stored: dict | None) -> AddressView | None:
        """None when the company has no address at all."""
        if not stored or not any(stored.get(k) for k in ("line1", "line2", "locality", "region", "postal_code")):
            return None
        parts = [stored.get("line1"), stored.get("line2"), stored.get("locality")]
        region_zip = " ".join(p for p in (stored.get("region"), stored.get("postal_code")) if p)
        formatted = ", ".join(p for p in [*parts, region_zip] if p)
        return cls(
            line1=stored.get("line1"),
            line2=stored.get("line2"),
            locality=stored.get("locality"),
            region=stored.get("region"),
            postal_code=stored.get("postal_code"),
            country=stored.get("country"),
            formatted=formatted,
        )


class GeoView(_View):
    """Coordinates, only when both are present and in range."""

    latitude: float
    longitude: float


class ServiceAreaView(_View):
    """The normalised service-area postal codes."""

    postal_code_count: int
    postal_codes: list[str]


class TierPrices(_View):
    """Lowest published price per tier; null where a tier has no product."""

    good: Money | None
    better: Money | None
    best: Money | None


class PricingOption(_View):
    """One published option of a category (a public product), as pricing.json lists it.

    `size`, `efficiency` and `warranty` are labels written by
    mirror/catalog/product_facts.py from the catalog's own data (the product's
    `specs`, else its name), each only where the catalog states it.
    """

    sku: str
    name: str
    brand: str | None
    tier: TierSlug | None = Field(
        description="The option's tier; null on accessories (and where the catalog gives none)."
    )
    price: Money
    size: str | None = Field(description='The size the catalog states, e.g. "3 ton", "80,000 BTU", "16x25x1".')
    efficiency: list[str] = Field(description='The efficiency ratings it states, e.g. ["16.2 SEER2", "96% AFUE"].')
    warranty: str | None = Field(description='The warranty it states, e.g. "6-year warranty".')
    image_url: str | None = Field(description="The product's image as the catalog gives it; null when it has none.")


class PricingCategory(_View):
    """One offer group, as pricing.json shows it."""

    name: str
    plain_name: str | None = Field(
        description='The name in plain words when it abbreviates what the category is ("HP & Air Handler": '
        '"Heat pump and air handler"; mirror/catalog/glossary.py), shown beneath the name; else null.'
    )
    slug: str
    kind: CategoryKind = Field(description="system: an installed system (with tiers); accessory: a part or add-on.")
    price_low: Money
    price_high: Money
    offer_count: int
    tiers: TierPrices | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Good/Better/Best prices; present on installed-system categories only.",
    )
    options: list[PricingOption] = Field(
        description="Every published option of the category, cheapest first (then by name and SKU); "
        "as many as offer_count."
    )
    image_url: str | None = Field(
        description="The category's image: its cheapest published option's that has one (ties by SKU); "
        "null when none has. The JSON-LD describes a category with an image as a Product, else as a Service.",
    )


class CategoryView(PricingCategory):
    """One offer group: pricing.json's category, and what the view holds besides.

    The tool results that list categories (MCP list_categories, the provider
    tools) carry the summary, not `options`: an agent asks for products by
    search_catalog and compare_tiers.
    """

    # (This docstring is the tool schemas' description of a category.) Tool
    # results carry neither the options, the plain name nor the image: pricing.json does.
    plain_name: str | None = Field(default=None, exclude=True)
    options: list[PricingOption] = Field(default_factory=list, exclude=True)
    image_url: str | None = Field(default=None, exclude=True)


class Provenance(_View):
    """The provenance trio every tool result and pricing.json carry: where to quote, how fresh the data is."""

    quote_url: str | None = Field(description="Where the user requests a quote; null when quoting is switched off.")
    last_synced_at: Timestamp = Field(
        description="When the mirror last confirmed this data (RFC 3339, UTC); null if never."
    )
    freshness_state: FreshnessState


class PricingBusiness(_View):
    """The business as pricing.json shows it."""

    name: str
    trades: list[str] = Field(
        description="The contractor's trades among hvac, plumbing, electrical and roofing (what a headline "
        "names its installed systems after; docs/pricing-page.md)."
    )
    business_types: list[str] = Field(
        description="Its schema.org business types, the JSON-LD's @type: one per trade (e.g. HVACBusiness for hvac), "
        "else HomeAndConstructionBusiness."
    )
    systems_label: str = Field(
        description="What a headline calls its installed systems: its one trade's (e.g. heating and cooling systems), "
        "else systems (docs/pricing-page.md)."
    )
    address: AddressView | None
    service_area: ServiceAreaView
    geo: GeoView | None = Field(description="The business's coordinates; null unless both are known and in range.")
    phone: str | None = Field(description="The phone number as E.164 (+1 and ten digits); null when it has none.")
    website: str | None = Field(description="The business's website (http or https); null when it has none.")


class GlossaryEntry(_View):
    """One word the document uses, explained (mirror/catalog/glossary.py)."""

    term: str = Field(description='The word as the document writes it: "SEER2", "HP", "ton".')
    meaning: str = Field(description="One line explaining it to a homeowner.")


class BusinessView(PricingBusiness):
    """The contractor's public identity and contact data."""

    plugin_key: str


def _published_order(schema: dict, _model: type) -> None:
    """List pricing.json's properties in its published key order in the JSON Schema too."""
    properties = schema.get("properties", {})
    order = [name for name in PRICING_ORDER if name in properties]
    schema["properties"] = {name: properties[name] for name in [*order, *(n for n in properties if n not in order)]}


class PricingDocument(Provenance):
    """pricing.json (docs/contracts/surfaces.md): the published part of a company's view."""

    model_config = ConfigDict(json_schema_extra=_published_order)

    business: PricingBusiness
    categories: list[PricingCategory]
    glossary: list[GlossaryEntry] = Field(
        description="Each rating, unit and trade abbreviation (mirror/catalog/glossary.py) the categories' names, the "
        "options' names, sizes and efficiency labels use, once, in order of first appearance; empty when none."
    )
    currency: str
    price_description: str | None
    data_provenance: str
    content_updated_at: Timestamp
    content_version: str | None


class ErrorBody(_View):
    """The small JSON error every JSON surface answers with (404, 400, 429, 5xx)."""

    error: str = Field(description="A stable machine-readable code, e.g. not_found, invalid_parameter.")
    message: str
    parameter: str | None = Field(default=None, description="The query parameter at fault (400 only).")
    retry_after: int | None = Field(default=None, ge=1, description="Seconds to wait (429 only).")


# pricing.json's published key order (fields inherited from Provenance would
# otherwise come first).
PRICING_ORDER = (
    "business",
    "categories",
    "glossary",
    "currency",
    "price_description",
    "data_provenance",
    "quote_url",
    "last_synced_at",
    "content_updated_at",
    "freshness_state",
    "content_version",
)
_PRICING = TypeAdapter(PricingDocument)


class CompanyView(PricingDocument):
    """Everything public about one company at one moment of the mirror."""

    business: BusinessView
    categories: list[CategoryView]
    channels: dict[str, bool]
    quote_page_url: str
    funnel_url: str | None
    pricing_url: str
    mcp_url: str
    generation: int
    # False: a summary, read without the products (mirror.read.company): every category's options and the
    # glossary are empty. Tools, JSON-LD and answers never show them; documents that do ask `complete()`.
    with_options: bool = Field(default=True, exclude=True)

    def complete(self) -> CompanyView:
        """This view, when it holds every category's options and the glossary; IncompleteView for a summary.

        Every document that lists options (pricing.json, the hosted pages)
        renders from `view.complete()`, so a summary can never be published
        as a catalog without products.
        """
        if not self.with_options:
            raise IncompleteView(self.business.plugin_key)
        return self

    def category(self, slug_or_name: str) -> CategoryView | None:
        """A category by slug, or by name (case-insensitive)."""
        wanted = slug_or_name.strip().lower()
        for category in self.categories:
            if category.slug == wanted or category.name.lower() == wanted:
                return category
        return None

    def serves(self, postal_code: str) -> bool:
        """Whether a normalised 5-digit postal code is in the service area."""
        return postal_code in self.business.service_area.postal_codes

    def pricing_document(self) -> dict:
        """pricing.json: this view serialised as a PricingDocument, in the published key order."""
        dumped = _PRICING.dump_python(self.complete(), mode="json")
        return {name: dumped[name] for name in PRICING_ORDER}

    def provenance(self) -> dict:
        """The provenance fields every tool result carries besides its quote_url."""
        return {"last_synced_at": self.last_synced_at, "freshness_state": self.freshness_state}


def freshness(last_synced_at: datetime | None, threshold_seconds: int, now: datetime) -> FreshnessState:
    """fresh, stale (older than the threshold) or unavailable (never synced)."""
    if last_synced_at is None:
        return "unavailable"
    age = (now - last_synced_at).total_seconds()
    return "stale" if age > threshold_seconds else "fresh"


def effective_synced_at(company, whole_run: datetime | None) -> datetime | None:
    """The later of the company's own single-company run and the last whole run."""
    candidates = [t for t in (aware(company.last_synced_at), whole_run) if t is not None]
    return max(candidates) if candidates else None


def company_urls(settings: Settings, plugin_key: str) -> dict[str, str]:
    """The absolute public URLs of a company's surfaces."""
    return {
        "quote_page_url": settings.absolute(urls.company_path(urls.QUOTE_PAGE, plugin_key)),
        "pricing_url": settings.absolute(urls.company_path(urls.PRICING_PAGE, plugin_key)),
        "mcp_url": settings.absolute(urls.company_path(urls.COMPANY_MCP, plugin_key)),
    }


def quote_funnel(company, settings: Settings) -> str | None:
    """Where the company's quote link sends a visitor: its own funnel (verified estimate URL, else shop URL),
    stamped with the install's referrer; None when it has none. `company` is anything with its
    `estimate_url` and `shop_url` (a row, a view's source, the gate's entry)."""
    funnel = funnel_url(company)
    return stamp_referrer(funnel, settings.referrer_stamp) if funnel else None


def company_view(
    company,
    groups,
    synced: datetime | None,
    settings: Settings,
    now: datetime | None = None,
    *,
    with_options: bool = True,
) -> CompanyView:
    """The public view from already-loaded facts: the row, its offer groups and the sync time (no query).

    `company` and `groups` are anything with the columns of the companies
    and offer_groups tables as attributes, each group with its public
    products as `options` too (mirror.read.company's rows); `with_options`
    False: the groups were read without them (a summary view).
    """
    now = now or datetime.now(UTC)
    categories = sorted((_category_view(g) for g in groups), key=lambda c: category_order(c.kind, c.name, c.slug))
    urls = company_urls(settings, company.plugin_key)
    quote_open = company_open(company, Channel.QUOTE)
    return CompanyView(
        business=_business_view(company),
        categories=categories,
        glossary=[GlossaryEntry(term=term.term, meaning=term.meaning) for term in glossary(_worded(categories))]
        if with_options
        else [],
        currency=company.currency,
        price_description=company.price_description,
        data_provenance=DATA_PROVENANCE,
        channels=dict(company.channels or {}),
        quote_url=urls["quote_page_url"] if quote_open else None,
        funnel_url=quote_funnel(company, settings),
        last_synced_at=synced,
        content_updated_at=aware(company.content_updated_at),
        freshness_state=freshness(synced, settings.freshness_threshold_seconds, now),
        content_version=company.content_version,
        generation=company.generation,
        with_options=with_options,
        **urls,
    )


def _worded(categories: list[CategoryView]):
    """The texts the glossary reads, in document order: each category's name, then its options' name, size and
    efficiency labels."""
    for category in categories:
        yield category.name
        for option in category.options:
            yield option.name
            yield option.size
            yield from option.efficiency


def _business_view(company) -> BusinessView:
    stored = company.address or {}
    lat, lon = stored.get("latitude"), stored.get("longitude")
    codes = list(company.service_postal_codes or [])
    trades = list(company.trades or [])
    return BusinessView(
        plugin_key=company.plugin_key,
        name=company.name,
        trades=trades,
        business_types=business_types(trades),
        systems_label=systems_noun(trades),
        address=AddressView.from_stored(company.address),
        geo=GeoView(latitude=lat, longitude=lon) if lat is not None and lon is not None else None,
        phone=company.phone,
        website=company.website,
        service_area=ServiceAreaView(postal_code_count=len(codes), postal_codes=codes),
    )


def option_views(products, kind: str) -> list[PricingOption]:
    """A category's options from its public products, cheapest first, then by name and SKU (code points).

    `products`: dicts with the Product columns sku, name, brand, tier,
    price_cents, labels and image_url (mirror.read.company's aggregate); the order is
    set here, so it is the same on every database. Options of an accessory
    category have no tier, as the category has none.
    """
    ordered = sorted(products or (), key=lambda p: (p["price_cents"], p["name"], p["sku"]))
    return [_option_view(product, tiered=kind == SYSTEM) for product in ordered]


def _option_view(product: dict, *, tiered: bool) -> PricingOption:
    facts = stored_facts(product.get("labels"))
    tier = product.get("tier")
    return PricingOption(
        sku=product["sku"],
        name=product["name"],
        brand=product.get("brand"),
        tier=tier if tiered and tier in TIERS_BY_SLUG else None,
        price=cents_to_decimal(product["price_cents"]),
        size=facts.size,
        efficiency=list(facts.efficiency),
        warranty=facts.warranty,
        image_url=product.get("image_url"),
    )


def _category_view(group) -> CategoryView:
    tiers = None
    if group.kind == SYSTEM:
        tiers = TierPrices(
            good=cents_to_decimal(group.good_cents),
            better=cents_to_decimal(group.better_cents),
            best=cents_to_decimal(group.best_cents),
        )
    return CategoryView(
        name=group.category_name,
        plain_name=plain_name(group.category_name),
        slug=group.category_slug,
        kind=group.kind,
        price_low=cents_to_decimal(group.price_low_cents),
        price_high=cents_to_decimal(group.price_high_cents),
        offer_count=group.offer_count,
        tiers=tiers,
        options=option_views(group.options, group.kind),
        image_url=group.image_url,
    )
