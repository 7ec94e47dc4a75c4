"""The per-company catalog tools (POST /companies/{key}/mcp and webmcp.js).

Each handler reads the company's public view (the same object pricing.json
serialises) or the read-side catalog queries in mirror/; `compare_tiers` also
selects the category's product rows itself, for each tier's cheapest product.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pydantic import Field

from agent_tools.declaration import ToolError, ToolInput, ToolOutput, ToolSpec
from agent_tools.models import (
    PostalCodeText,
    ProvenancedOutput,
    TierName,
    limit_argument,
    postal_code_or_error,
    text_argument,
)
from mirror.answers.no_match import NoMatch
from mirror.answers.products import cheapest_by_tier
from mirror.answers.sentences import QUOTE_CHARS
from mirror.catalog.public_view import (
    AddressView,
    CategoryView,
    CompanyView,
    Money,
    ServiceAreaView,
    TierPrices,
)
from mirror.catalog.trades import SYSTEM, TierSlug
from mirror.query.limits import SEARCH_TEXT_MAX
from mirror.query.views import UnderstoodView
from mirror.read import ReadSession as Session
from mirror.read.catalog import TierProduct as CatalogTierProduct
from mirror.read.catalog import category_products, search_catalog
from mirror.read.gate import GateEntry, StateMoved
from mirror.render.cache import CompanyRenderings
from mirror.runtime.config import Settings
from mirror.values.money import cents_to_decimal, to_cents
from mirror.values.storable import cut_at_word

CategoryText = text_argument(SEARCH_TEXT_MAX, "A category slug such as central-ac (its name is accepted too).")
QueryText = text_argument(
    SEARCH_TEXT_MAX,
    "What the homeowner asked, in their words: the kind of product, brand, model number, size, efficiency, "
    "price or tier words (e.g. 'cheapest 3 ton heat pump', 'best air conditioner', 'MERV 13 furnace filter').",
)
ProductLimit = limit_argument(50, 10, "products")


@dataclass
class CompanyContext:
    """What the per-company tools answer from: one request's snapshot of one company."""

    session: Session
    company: GateEntry
    settings: Settings
    # The render cache's entry at the process's gate state (mirror/render/cache.py).
    renderings: CompanyRenderings
    # After StateMoved: the company gated again at a refreshed state, with its renderings (web/gate.py).
    follow: Callable[[], tuple[GateEntry, CompanyRenderings]] | None = None

    @property
    def view(self) -> CompanyView:
        """The company's public view (the same object pricing.json serialises)."""
        return self.renderings.view

    def category_or_error(self, wanted: str, argument: str = "category"):
        """The category by slug or name, or a tool error listing the known slugs."""
        category = self.view.category(wanted)
        if category is None:
            known = ", ".join(c.slug for c in self.view.categories) or "none"
            raise ToolError(f"{argument}: no category {wanted.strip()[:80]!r} here. Known category slugs: {known}.")
        return category


def at_gate_state(context, run: Callable[[Any], Any], attempts: int = 3) -> Any:
    """`run(context)`, again at the refreshed state when the database moved past the context's (StateMoved).

    A tool's query checks that it answered from the state its view came
    from (mirror/read/catalog.py); when a sync committed in between, the
    whole answer is computed again from the newer state (`context.follow`),
    so one answer never mixes two states. Any context with `company`,
    `renderings` and `follow` (the company and UCP tools).
    """
    for attempt in range(attempts):
        try:
            return run(context)
        except StateMoved:
            if context.follow is None or attempt == attempts - 1:
                raise
            company, renderings = context.follow()
            context = replace(context, company=company, renderings=renderings)
    raise AssertionError("unreachable")


def _short(text: str | None) -> str | None:
    """Descriptions cut at a word boundary as an answer quotes them: enough to choose, short enough to list."""
    return None if text is None else cut_at_word(text, QUOTE_CHARS)


# --- get_business_info -------------------------------------------------------------


class NoArguments(ToolInput):
    """This tool takes no arguments."""


class BusinessInfo(ProvenancedOutput):
    name: str
    trades: list[str]
    address: AddressView | None
    phone: str | None = Field(description="E.164, e.g. +13145550000.")
    website: str | None
    service_area: ServiceAreaView
    currency: str
    price_description: str | None
    category_count: int
    pricing_url: str


def get_business_info(ctx: CompanyContext, _: NoArguments) -> BusinessInfo:
    """The contractor's identity and contact data."""
    view, business = ctx.view, ctx.view.business
    return BusinessInfo(
        name=business.name,
        trades=business.trades,
        address=business.address,
        phone=business.phone,
        website=business.website,
        service_area=business.service_area,
        currency=view.currency,
        price_description=view.price_description,
        category_count=len(view.categories),
        quote_url=view.quote_url,
        pricing_url=view.pricing_url,
        **view.provenance(),
    )


# --- list_categories ---------------------------------------------------------------


class CategoryList(ProvenancedOutput):
    categories: list[CategoryView]
    currency: str
    price_description: str | None


def list_categories(ctx: CompanyContext, _: NoArguments) -> CategoryList:
    """Every offer group with its price range."""
    view = ctx.view
    return CategoryList(
        categories=view.categories,
        currency=view.currency,
        price_description=view.price_description,
        quote_url=view.quote_url,
        **view.provenance(),
    )


# --- search_catalog ----------------------------------------------------------------


class SearchCatalogInput(ToolInput):
    query: QueryText
    category: CategoryText | None = None
    tier: TierName | None = None
    max_price: float | None = Field(
        default=None, ge=0, le=10_000_000, description="Only products priced at or below this amount (in `currency`)."
    )
    limit: ProductLimit


class ProductOut(ToolOutput):
    sku: str
    name: str
    brand: str | None
    category: str
    category_slug: str
    tier: TierSlug | None
    price: Money = Field(description="The contractor's published installed price.")
    model_numbers: list[str]
    description: str | None


class SearchResults(ProvenancedOutput):
    query: str
    results: list[ProductOut]
    result_count: int
    total_matches: int
    total_matches_exact: bool = Field(
        description="false: more than total_matches products matched, and the results are the best of the "
        "products matching every keyword and the first total_matches found (a search ranks that many at most)."
    )
    currency: str
    understood: UnderstoodView = Field(description="How the query was read: kinds of product, sizes, price, tiers.")
    unmatched: list[str] = Field(
        default_factory=list, description="Keywords (brands, model numbers...) that no product here matched."
    )
    no_match: NoMatch | None = Field(
        default=None, description="When nothing matched: what this contractor does carry (its categories)."
    )


def search_catalog_tool(ctx: CompanyContext, args: SearchCatalogInput) -> SearchResults:
    """The public products answering a homeowner's question (mirror/query reads it, mirror/read/catalog.py ranks)."""
    slug = ctx.category_or_error(args.category).slug if args.category is not None else None
    max_cents = to_cents(args.max_price) if args.max_price is not None else None
    found = search_catalog(
        ctx.session,
        ctx.company,
        args.query,
        category_slug=slug,
        tier=args.tier,
        max_price_cents=max_cents,
        limit=args.limit,
    )
    results = [
        ProductOut(
            sku=h.sku,
            name=h.name,
            brand=h.brand,
            category=h.category_name,
            category_slug=h.category_slug,
            tier=h.tier,
            price=cents_to_decimal(h.price_cents),
            model_numbers=h.model_numbers,
            description=_short(h.description),
        )
        for h in found.hits
    ]
    view = ctx.view
    return SearchResults(
        query=args.query,
        results=results,
        result_count=len(results),
        total_matches=found.total,
        total_matches_exact=found.complete,
        currency=view.currency,
        understood=UnderstoodView.of(found.understood),
        unmatched=list(found.unmatched),
        no_match=None if results else NoMatch.of(found.understood, view.business.name, view.categories),
        quote_url=view.quote_url,
        **view.provenance(),
    )


# --- compare_tiers -----------------------------------------------------------------


class CompareTiersInput(ToolInput):
    category: CategoryText


class TierProduct(ToolOutput):
    sku: str
    name: str
    brand: str | None
    price: Money
    model_numbers: list[str]
    description: str | None
    specs: dict[str, str | int | float | bool | None]


class TierOffer(ToolOutput):
    tier: TierSlug
    price: Money | None = Field(description="The lowest published price in this tier; null when the tier is empty.")
    offer_count: int
    brands: list[str]
    product: TierProduct | None = Field(description="The tier's lowest-priced product.")


class TierComparison(ProvenancedOutput):
    category: str
    slug: str
    price_low: Money
    price_high: Money
    offer_count: int
    tiers: TierPrices
    comparison: list[TierOffer]
    currency: str


def compare_tiers(ctx: CompanyContext, args: CompareTiersInput) -> TierComparison:
    """Good/Better/Best of one system category, side by side."""
    category = ctx.category_or_error(args.category)
    if category.kind != SYSTEM:
        systems = ", ".join(c.slug for c in ctx.view.categories if c.kind == SYSTEM) or "none"
        raise ToolError(
            f"category: {category.slug!r} is an accessory category without tiers. Tiered categories here: {systems}."
        )
    products = category_products(ctx.session, ctx.company, category.slug)
    view = ctx.view
    return TierComparison(
        category=category.name,
        slug=category.slug,
        price_low=category.price_low,
        price_high=category.price_high,
        offer_count=category.offer_count,
        tiers=category.tiers,
        comparison=[
            _tier_offer(tier, cheapest, [p for p in products if p.tier == tier])
            for tier, cheapest in cheapest_by_tier(products)
        ],
        currency=view.currency,
        quote_url=view.quote_url,
        **view.provenance(),
    )


def _tier_offer(tier: str, cheapest: CatalogTierProduct | None, products: list[CatalogTierProduct]) -> TierOffer:
    product = None
    if cheapest is not None:
        specs = {k: v for k, v in cheapest.specs.items() if isinstance(v, (str, int, float, bool)) or v is None}
        product = TierProduct(
            sku=cheapest.sku,
            name=cheapest.name,
            brand=cheapest.brand,
            price=cents_to_decimal(cheapest.price_cents),
            model_numbers=list(cheapest.model_numbers),
            description=_short(cheapest.description),
            specs=specs,
        )
    return TierOffer(
        tier=tier,
        price=cents_to_decimal(cheapest.price_cents) if cheapest else None,
        offer_count=len(products),
        brands=sorted({p.brand for p in products if p.brand}),
        product=product,
    )


# --- check_service_area ------------------------------------------------------------


class CheckServiceAreaInput(ToolInput):
    postal_code: PostalCodeText


class Coverage(ProvenancedOutput):
    postal_code: str = Field(description="The normalised 5-digit ZIP that was checked.")
    served: bool
    business_name: str
    service_area_postal_code_count: int
    message: str


def check_service_area(ctx: CompanyContext, args: CheckServiceAreaInput) -> Coverage:
    """Whether a postal code is in the service area."""
    return Coverage(**coverage(ctx.view, postal_code_or_error(args.postal_code)))


def coverage(view: CompanyView, postal_code: str) -> dict[str, Any]:
    """The coverage answer for one company's view (shared with the provider server)."""
    served = view.serves(postal_code)
    name = view.business.name
    if served:
        message = f"{name} serves {postal_code}." + (" Request a quote at quote_url." if view.quote_url else "")
    else:
        message = f"{name} does not list {postal_code} in its service area."
    return dict(
        postal_code=postal_code,
        served=served,
        business_name=name,
        service_area_postal_code_count=view.business.service_area.postal_code_count,
        message=message,
        quote_url=view.quote_url,
        **view.provenance(),
    )


COMPANY_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_business_info",
        title="Business information",
        description="Who this contractor is: name, trades, address, phone, website, the postal codes it serves, "
        "and where to request a quote. Use it when the user asks about the business itself.",
        input_model=NoArguments,
        output_model=BusinessInfo,
        handler=get_business_info,
    ),
    ToolSpec(
        name="list_categories",
        title="Price ranges by category",
        description="Every category this contractor publishes installed prices for: the price range "
        "(price_low to price_high), how many offers, and for installed systems the lowest "
        "Good/Better/Best tier prices.",
        input_model=NoArguments,
        output_model=CategoryList,
        handler=list_categories,
    ),
    ToolSpec(
        name="search_catalog",
        title="Search the catalog",
        description="Search this contractor's published products with the homeowner's own words: kinds of "
        "product and their synonyms and misspellings (central air, furnance, heatpump), sizes (3 ton, 24k BTU, "
        "16x25x1), price words (cheapest, under $8,000) and tiers (best, premium), brands and model numbers, "
        "efficiency (most efficient: the highest SEER2, AFUE, HSPF2 or UEF first) and features (wi-fi, "
        "two-stage, variable speed: the products stating them first); several kinds are answered each. "
        "Optional filters: category (slug or name from list_categories), tier, max_price. Best matches first; "
        "`understood` says how the query was read, and when nothing matched, `no_match` lists what this "
        "contractor does carry. Prices are installed prices.",
        input_model=SearchCatalogInput,
        output_model=SearchResults,
        handler=search_catalog_tool,
    ),
    ToolSpec(
        name="compare_tiers",
        title="Compare Good, Better and Best",
        description="Compare the Good, Better and Best options of one installed-system category side by side: each "
        "tier's lowest price, offer count, brands and cheapest product with its specs. Takes a category "
        "slug (or name) from list_categories; accessory categories have no tiers.",
        input_model=CompareTiersInput,
        output_model=TierComparison,
        handler=compare_tiers,
    ),
    ToolSpec(
        name="check_service_area",
        title="Check the service area",
        description="Check whether this contractor serves a US postal code (5-digit ZIP; ZIP+4 and spaces "
        "are accepted).",
        input_model=CheckServiceAreaInput,
        output_model=Coverage,
        handler=check_service_area,
    ),
)
