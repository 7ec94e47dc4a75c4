"""The install-wide provider tools (POST /mcp): ChatGPT's local-services launcher.

They answer for exactly the businesses in the business feed (docs/contracts/surfaces.md);
any other id, however well formed, is "No business found".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import Field

from agent_tools.company import Coverage, coverage
from agent_tools.declaration import ToolError, ToolInput, ToolOutput, ToolSpec
from agent_tools.models import (
    PostalCodeText,
    ProvenancedOutput,
    limit_argument,
    postal_code_or_error,
    provenance_at,
    text_argument,
)
from mirror.answers.directory import absent_near
from mirror.answers.sentences import category_spread_sentence
from mirror.catalog.channels import Channel, company_open
from mirror.catalog.public_view import (
    AddressView,
    CategoryView,
    CompanyView,
    Money,
    company_urls,
    effective_synced_at,
)
from mirror.query.limits import SEARCH_TEXT_MAX
from mirror.query.views import UnderstoodView
from mirror.read import ReadSession as Session
from mirror.read.businesses import PriceSpread, find_feed_company, search_feed_businesses
from mirror.read.company import load_company_snapshot
from mirror.runtime.config import Settings
from mirror.store.models import KEY_LENGTH, Company
from mirror.values.money import cents_to_decimal

WIDGET_URI = "ui://widget/request-service.html"
BusinessId = text_argument(
    KEY_LENGTH,
    "The contractor's provider_business_id (its pluginKey) as listed in the business feed or returned by "
    "search_businesses. Not the listing's own id.",
)
BusinessLimit = limit_argument(20, 10, "businesses")
CategoryFilter = text_argument(
    SEARCH_TEXT_MAX,
    "Only businesses selling this category: a slug such as central-ac, its name, or a kind of product in plain "
    "words (heat pump), which also finds the businesses listing that kind under another name.",
)
KeywordFilter = text_argument(
    SEARCH_TEXT_MAX,
    "What the homeowner asked, in their words: a trade (plumber, HVAC), a kind of product (AC repair, water heater "
    "installation), a business name; a ZIP in it is used when postal_code is not given.",
)


@dataclass
class ProviderContext:
    """What the provider tools answer from: one request's snapshot of the mirror."""

    session: Session
    settings: Settings
    # The end of the last successful whole run, from the process's gate state (mirror/read/gate.py): the
    # freshness every result states, read once per process state instead of once per call.
    last_success_at: datetime | None = None

    def company_or_error(self, business_id: str) -> Company:
        """The feed business, or the distinct "No business found" tool error."""
        company = find_feed_company(self.session, business_id)
        if company is None:
            raise ToolError(
                f"No business found for business_id {business_id[:KEY_LENGTH]!r}. Pass the provider_business_id "
                "from the business feed, or find one with search_businesses."
            )
        return company

    def view_of(self, company: Company) -> CompanyView:
        """The company's public view, read in this request's snapshot."""
        return load_company_snapshot(self.session, company.plugin_key, options=False).view(self.settings)


# --- request_service ---------------------------------------------------------------


class RequestServiceInput(ToolInput):
    business_id: BusinessId


class ServiceRequest(ProvenancedOutput):
    provider_business_id: str = Field(description="Pass this (not a listing id) to follow-up calls.")
    name: str
    address: AddressView | None
    phone: str | None
    website: str | None
    categories: list[CategoryView] = Field(description="Published installed price ranges by category.")
    currency: str
    price_description: str | None
    mcp_url: str | None = Field(description="The contractor's own catalog MCP server; null when switched off.")


def request_service(ctx: ProviderContext, args: RequestServiceInput) -> ServiceRequest:
    """The launcher card's data for one feed business."""
    company = ctx.company_or_error(args.business_id)
    view = ctx.view_of(company)
    business = view.business
    return ServiceRequest(
        provider_business_id=company.plugin_key,
        name=business.name,
        address=business.address,
        phone=business.phone,
        website=business.website,
        categories=view.categories,
        currency=view.currency,
        price_description=view.price_description,
        quote_url=view.quote_url,
        mcp_url=view.mcp_url if company_open(company, Channel.MCP) else None,
        **view.provenance(),
    )


# --- check_service_area --------------------------------------------------------------


class ProviderCoverageInput(ToolInput):
    business_id: BusinessId
    postal_code: PostalCodeText


class ProviderCoverage(Coverage):
    provider_business_id: str


def provider_check_service_area(ctx: ProviderContext, args: ProviderCoverageInput) -> ProviderCoverage:
    """Coverage of one feed business."""
    company = ctx.company_or_error(args.business_id)
    postal_code = postal_code_or_error(args.postal_code)
    return ProviderCoverage(provider_business_id=company.plugin_key, **coverage(ctx.view_of(company), postal_code))


# --- search_businesses ---------------------------------------------------------------


class SearchBusinessesInput(ToolInput):
    postal_code: PostalCodeText | None = None
    category: CategoryFilter | None = None
    query: KeywordFilter | None = None
    limit: BusinessLimit


class PriceRange(ToolOutput):
    category: str
    slug: str
    price_low: Money
    price_high: Money
    offer_count: int
    currency: str
    kind: str | None = Field(
        default=None,
        description="Set when the category asked names a kind of product (heat pump) that this business sells "
        "under its own category name: the range then covers its products of that kind only, and category and "
        "slug are where the cheapest of them is listed. null when the business has the category itself.",
    )


class BusinessResult(ProvenancedOutput):
    business_id: str = Field(description="Pass this to request_service or check_service_area.")
    name: str
    city: str | None
    region: str | None
    trades: list[str]
    price_range: PriceRange | None = Field(description="The asked category's price range; null without a category.")
    category_count: int
    mcp_url: str | None


class InstalledPriceRange(ToolOutput):
    category: str
    price_low: Money = Field(description="The lowest published price of the category among all the businesses found.")
    price_high: Money = Field(description="The highest, likewise; never an average.")
    business_count: int = Field(description="How many businesses found publish prices for the category.")
    currency: str | None = Field(description="null when the businesses publish in more than one currency.")


class BusinessSearchResults(ToolOutput):
    results: list[BusinessResult]
    result_count: int
    total_matches: int
    postal_code: str | None = Field(description="The ZIP searched: postal_code, or the one the query names.")
    category: str | None
    message: str
    understood: UnderstoodView | None = Field(
        default=None, description="How the query was read (trades, kinds of product, keywords); null without one."
    )
    installed_price_range: InstalledPriceRange | None = Field(
        default=None,
        description="With a category: its published installed price range across all the businesses found "
        "(each result has its own price_range and quote_url); null without a category.",
    )


def search_businesses(ctx: ProviderContext, args: SearchBusinessesInput) -> BusinessSearchResults:
    """Feed businesses by postal code, category and keywords."""
    postal_code = postal_code_or_error(args.postal_code) if args.postal_code is not None else None
    found = search_feed_businesses(
        ctx.session, postal_code=postal_code, category=args.category, query=args.query, limit=args.limit
    )
    whole_run = ctx.last_success_at
    now = datetime.now(UTC)
    results = [_business_result(ctx.settings, m, whole_run, now) for m in found.matches]
    total = found.total
    message = f"{total} business(es) matched." if total else "No business matched; try fewer filters."
    spread = found.spread
    if args.category is not None and total:
        named = spread.category_name if spread is not None else args.category
        shown = None if spread is None else (spread.price_low_cents, spread.price_high_cents, spread.business_count)
        currency, kind = (spread.currency, spread.kind) if spread is not None else (None, False)
        message = category_spread_sentence(named, found.postal_code, shown, currency, kind=kind)
    if args.query and found.postal_code and total:  # a size, tier or kind asked that none lists: said first
        message = absent_near(ctx.session, args.query, found.postal_code) + message
    return BusinessSearchResults(
        results=results,
        result_count=len(results),
        total_matches=total,
        postal_code=found.postal_code,
        category=args.category,
        message=message,
        understood=UnderstoodView.of(found.understood) if found.understood is not None else None,
        installed_price_range=_installed_range(spread),
    )


def _installed_range(spread: PriceSpread | None) -> InstalledPriceRange | None:
    if spread is None:
        return None
    return InstalledPriceRange(
        category=spread.category_name,
        price_low=cents_to_decimal(spread.price_low_cents),
        price_high=cents_to_decimal(spread.price_high_cents),
        business_count=spread.business_count,
        currency=spread.currency,
    )


def _business_result(settings: Settings, match, whole_run: datetime | None, now: datetime) -> BusinessResult:
    company, group = match.company, match.group
    urls = company_urls(settings, company.plugin_key)
    synced = effective_synced_at(company, whole_run)
    price_range = None
    if group is not None:
        price_range = PriceRange(
            category=group.category_name,
            slug=group.category_slug,
            price_low=cents_to_decimal(group.price_low_cents),
            price_high=cents_to_decimal(group.price_high_cents),
            offer_count=group.offer_count,
            currency=group.currency,
            kind=group.kind,
        )
    address = company.address or {}
    return BusinessResult(
        business_id=company.plugin_key,
        name=company.name,
        city=address.get("locality"),
        region=address.get("region"),
        trades=list(company.trades or []),
        price_range=price_range,
        category_count=match.category_count,
        mcp_url=urls["mcp_url"] if company_open(company, Channel.MCP) else None,
        quote_url=urls["quote_page_url"],
        **provenance_at(synced, settings.freshness_threshold_seconds, now),
    )


PROVIDER_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="request_service",
        title="Request a quote",
        description="Open the quote request card for one contractor from the business feed (ChatGPT's local-services "
        "launcher calls this with the listing's provider_business_id). Shows the contractor's name, "
        "address, phone, published installed price ranges and its quote link.",
        input_model=RequestServiceInput,
        output_model=ServiceRequest,
        handler=request_service,
        meta={
            "ui": {"resourceUri": WIDGET_URI},
            "openai/outputTemplate": WIDGET_URI,
            "openai/toolInvocation/invoking": "Opening the quote request",
            "openai/toolInvocation/invoked": "Quote request ready",
        },
    ),
    ToolSpec(
        name="check_service_area",
        title="Check a contractor's service area",
        description="Check whether one contractor (by business_id) serves a US postal code (5-digit ZIP; ZIP+4 and "
        "spaces are accepted). The quote card calls this too.",
        input_model=ProviderCoverageInput,
        output_model=ProviderCoverage,
        handler=provider_check_service_area,
        meta={"openai/widgetAccessible": True, "ui": {"visibility": ["model", "app"]}},
    ),
    ToolSpec(
        name="search_businesses",
        title="Find contractors",
        description="Find contractors on this platform that serve a US postal code, sell a category (slug such as "
        "central-ac, or its name) and/or match keywords (name, trade or category). Each result has the "
        "business_id to pass to request_service or check_service_area, its price range for the "
        "category, its own MCP server URL and its quote link. With a category, installed_price_range is the "
        "published range across all the businesses found (never an average).",
        input_model=SearchBusinessesInput,
        output_model=BusinessSearchResults,
        handler=search_businesses,
    ),
)
