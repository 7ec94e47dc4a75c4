"""Pydantic models of the UCP Catalog tools' arguments and results, for both releases served.

They mirror the official schemas (catalog_search.json, catalog_lookup.json,
the shared types and the `meta` of mcp.openrpc.json) for the fields this
service reads or writes, and generate each tool's inputSchema and
outputSchema (agent_tools.declaration.clean_schema).

The arguments are one set: the 2026-08-25 requests differ from 2026-04-08
only in fields this service ignores (context.location, context.payment).
The results are declared for 2026-04-08 first; the 2026-08-25 section
below redeclares only what that release changed (its version, the variant's
`quantity_unit`, the responses' `policies`) and inherits the rest, so the
shapes the releases share are declared once. `SHAPES` names each release's
response models.

Inputs are as open as the official request schemas (unknown fields are
ignored, as UCP extensions add fields), with the same types. Outputs are a
strict subset of the official response schemas: every field is one the
official schema defines, with the same type, and optional fields are
omitted rather than null. tests/mcp_server/ucp/test_ucp_schemas.py checks real results
against the official schemas themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from agent_tools.declaration import StorableInput
from mcp_server.ucp import V2026_04_08, V2026_08_25
from mirror.query.limits import QUESTION_TEXT_MAX, SEARCH_TEXT_MAX

MAX_LOOKUP_IDS = 50
MAX_PAGE_SIZE = 50
DEFAULT_PAGE_SIZE = 10
_REVERSE_DOMAIN = r"^[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+$"


def _integral(value: Any) -> Any:
    """JSON Schema integers include 10.0; accept it as 10."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _reverse_domain_keys(value: dict | None) -> dict | None:
    for key in value or {}:
        if not re.match(_REVERSE_DOMAIN, key):
            raise ValueError(f"signal names are reverse-domain names (e.g. dev.ucp.buyer_ip), got {key[:60]!r}")
    return value


Amount = Annotated[int, Field(ge=0, description="Amount in ISO 4217 minor units (cents)."), BeforeValidator(_integral)]
Uri = Annotated[str, Field(json_schema_extra={"format": "uri"})]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 currency code.")]
# The caps of free text (mirror/query/limits.py): longer is -32602 invalid_request, never cut.
SearchText = Annotated[str, Field(max_length=SEARCH_TEXT_MAX)]
QuestionText = Annotated[str, Field(max_length=QUESTION_TEXT_MAX)]


# --- arguments -------------------------------------------------------------------------


class UcpInput(StorableInput):
    """Base of argument models: JSON types exactly, unknown fields accepted and ignored (as UCP allows)."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


class UcpAgent(UcpInput):
    """The calling platform's identity."""

    profile: Uri = Field(description="URL of the calling platform's UCP profile (fetched to negotiate capabilities).")


class Meta(UcpInput):
    """Request metadata (mcp.openrpc.json components.schemas.meta)."""

    ucp_agent: UcpAgent = Field(alias="ucp-agent")
    idempotency_key: str | None = Field(default=None, alias="idempotency-key", json_schema_extra={"format": "uuid"})


class Context(UcpInput):
    """Buyer hints; `postal_code` outside the service area marks variants unavailable."""

    address_country: SearchText | None = None
    address_region: SearchText | None = None
    postal_code: SearchText | None = Field(default=None, description="The buyer's postal code, e.g. 63376.")
    intent: QuestionText | None = None
    language: SearchText | None = None
    currency: SearchText | None = Field(
        default=None, description="Denomination of filters.price (prices here are USD)."
    )
    eligibility: list[Annotated[str, Field(pattern=_REVERSE_DOMAIN)]] | None = None


class PriceFilter(UcpInput):
    """Installed price bounds in minor units (cents), inclusive."""

    min: Amount | None = None
    max: Amount | None = None


class SearchFilters(UcpInput):
    """Filters; all given ones apply (AND)."""

    categories: list[SearchText] | None = Field(
        default=None, description="Category slugs (e.g. central-ac), as in each product's categories[].value."
    )
    price: PriceFilter | None = Field(default=None, description="Installed price bounds in minor units (cents).")


Signals = Annotated[dict[str, Any] | None, AfterValidator(_reverse_domain_keys)]


class PaginationRequest(UcpInput):
    """Cursor pagination of search results."""

    cursor: str | None = Field(default=None, description="Opaque cursor from the previous page.")
    limit: Annotated[
        int,
        Field(ge=1, description=f"Page size (default {DEFAULT_PAGE_SIZE}; more than {MAX_PAGE_SIZE} is clamped)."),
        BeforeValidator(_integral),
    ] = DEFAULT_PAGE_SIZE


class SearchRequest(UcpInput):
    """What to search for: a query and/or filters (an empty search is refused)."""

    query: SearchText | None = Field(
        default=None,
        description="Free text: product type, brand, model number, size, efficiency (e.g. 'lennox heat pump'); "
        f"at most {SEARCH_TEXT_MAX} characters.",
    )
    context: Context | None = None
    signals: Signals = None
    attribution: dict[str, str] | None = None
    filters: SearchFilters | None = None
    pagination: PaginationRequest | None = None


class LookupRequest(UcpInput):
    """What to look up: ids, with optional filters and buyer context."""

    ids: list[SearchText] = Field(
        min_length=1,
        max_length=MAX_LOOKUP_IDS,
        description="Product ids (category:<slug>), variant ids (sku:<sku>), bare SKUs or "
        f"handles; at most {MAX_LOOKUP_IDS}.",
    )
    filters: SearchFilters | None = None
    context: Context | None = None
    signals: Signals = None
    attribution: dict[str, str] | None = None


class SelectedOptionIn(UcpInput):
    """One option choice, e.g. Tier: Best or Brand: Lennox."""

    name: SearchText
    label: SearchText
    id: SearchText | None = None


class GetProductRequest(UcpInput):
    """Which product to detail, with optional option selections."""

    id: SearchText = Field(description="A product id (category:<slug>) or variant id (sku:<sku>).")
    selected: list[SelectedOptionIn] | None = Field(
        default=None, description='Option choices, e.g. [{"name": "Tier", "label": "Best"}].'
    )
    preferences: list[SearchText] | None = Field(default=None, description="Option names in relaxation priority order.")
    filters: SearchFilters | None = None
    context: Context | None = None
    signals: Signals = None
    attribution: dict[str, str] | None = None


class SearchArguments(UcpInput):
    meta: Meta
    catalog: SearchRequest


class LookupArguments(UcpInput):
    meta: Meta
    catalog: LookupRequest


class GetProductArguments(UcpInput):
    meta: Meta
    catalog: GetProductRequest


# --- results ---------------------------------------------------------------------------


class UcpOutput(BaseModel):
    """Base of result models: only fields the official schemas define."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class CapabilityRef(UcpOutput):
    version: Literal[V2026_04_08]  # type: ignore[valid-type]


class UcpMeta(UcpOutput):
    version: Literal[V2026_04_08]  # type: ignore[valid-type]
    capabilities: dict[str, list[CapabilityRef]]


class UcpErrorMeta(UcpMeta):
    status: Literal["error"]


class Price(UcpOutput):
    amount: Amount
    currency: Currency


class PriceRange(UcpOutput):
    min: Price
    max: Price


class Description(UcpOutput):
    plain: str


class Media(UcpOutput):
    type: Literal["image"]
    url: Uri
    alt_text: str


class Category(UcpOutput):
    value: str
    taxonomy: Literal["merchant"]


class OptionValue(UcpOutput):
    label: str


class ProductOption(UcpOutput):
    name: str
    values: list[OptionValue] = Field(min_length=1)


class DetailOptionValue(OptionValue):
    available: bool
    exists: bool


class DetailOption(UcpOutput):
    name: str
    values: list[DetailOptionValue] = Field(min_length=1)


class SelectedOption(UcpOutput):
    name: str
    label: str


class Link(UcpOutput):
    type: str
    url: Uri
    title: str | None = None


class Seller(UcpOutput):
    name: str
    links: list[Link] | None = None


class Availability(UcpOutput):
    available: bool
    status: str | None = None


class Variant(UcpOutput):
    id: str
    sku: str
    title: str
    description: Description
    url: Uri | None = None
    categories: list[Category]
    price: Price
    availability: Availability
    options: list[SelectedOption]
    media: list[Media] | None = None
    seller: Seller
    metadata: dict[str, Any]


class InputCorrelation(UcpOutput):
    id: str
    match: Literal["exact", "featured"]


class LookupVariant(Variant):
    inputs: list[InputCorrelation] = Field(min_length=1)


class Product(UcpOutput):
    id: str
    handle: str
    title: str
    description: Description
    url: Uri | None = None
    categories: list[Category]
    price_range: PriceRange
    media: list[Media] | None = None
    options: list[ProductOption] | None = None
    variants: list[Variant] = Field(min_length=1)
    tags: list[str]
    metadata: dict[str, Any]


class LookupProduct(Product):
    variants: list[LookupVariant] = Field(min_length=1)


class DetailProduct(Product):
    options: list[DetailOption] | None = None
    selected: list[SelectedOption]


class MessageWarning(UcpOutput):
    type: Literal["warning"]
    code: str
    content: str
    url: Uri | None = None


class MessageInfo(UcpOutput):
    type: Literal["info"]
    code: str
    content: str


class MessageError(UcpOutput):
    type: Literal["error"]
    code: str
    content: str
    severity: Literal["recoverable", "requires_buyer_input", "requires_buyer_review", "unrecoverable"]


Message = MessageWarning | MessageInfo | MessageError


class Pagination(UcpOutput):
    has_next_page: bool
    cursor: str | None = Field(default=None, description="Present exactly when has_next_page is true.")
    total_count: int = Field(ge=0)


class SearchResponse(UcpOutput):
    ucp: UcpMeta
    products: list[Product]
    pagination: Pagination
    messages: list[Message]


class LookupResponse(UcpOutput):
    ucp: UcpMeta
    products: list[LookupProduct]
    messages: list[Message]


class GetProductResponse(UcpOutput):
    ucp: UcpMeta
    product: DetailProduct
    messages: list[Message]


class ErrorResponse(UcpOutput):
    """types/error_response.json: the handler ran and reports why there is no resource."""

    ucp: UcpErrorMeta
    messages: list[Message] = Field(min_length=1)
    continue_url: Uri | None = None


# --- 2026-08-25: only what that release changed ----------------------------------------------


class CapabilityRef0825(CapabilityRef):
    version: Literal[V2026_08_25]  # type: ignore[valid-type]


class UcpMeta0825(UcpMeta):
    version: Literal[V2026_08_25]  # type: ignore[valid-type]
    capabilities: dict[str, list[CapabilityRef0825]]


class UcpErrorMeta0825(UcpMeta0825):
    status: Literal["error"]


class QuantityUnit(UcpOutput):
    """common/types/quantity_unit.json: the sale basis a variant's price is per (UN/CEFACT Rec20 code)."""

    unit: str
    display_text: str


class Policy(UcpOutput):
    """common/types/policy.json: a durable business rule about the items of a response."""

    type: str = Field(pattern=_REVERSE_DOMAIN)
    description: Description
    url: Uri | None = None


class Variant0825(Variant):
    quantity_unit: QuantityUnit | None = None


class LookupVariant0825(Variant0825):
    inputs: list[InputCorrelation] = Field(min_length=1)


class Product0825(Product):
    variants: list[Variant0825] = Field(min_length=1)


class LookupProduct0825(Product0825):
    variants: list[LookupVariant0825] = Field(min_length=1)


class DetailProduct0825(Product0825):
    options: list[DetailOption] | None = None
    selected: list[SelectedOption]


class SearchResponse0825(SearchResponse):
    ucp: UcpMeta0825
    products: list[Product0825]
    policies: list[Policy] | None = None


class LookupResponse0825(LookupResponse):
    ucp: UcpMeta0825
    products: list[LookupProduct0825]
    policies: list[Policy] | None = None


class GetProductResponse0825(GetProductResponse):
    ucp: UcpMeta0825
    product: DetailProduct0825
    policies: list[Policy] | None = None


class ErrorResponse0825(ErrorResponse):
    ucp: UcpErrorMeta0825


# --- each release's response models -------------------------------------------------------------


@dataclass(frozen=True)
class Shapes:
    """One release's response models, by operation (and the error response every operation may answer)."""

    search: type[UcpOutput]
    lookup: type[UcpOutput]
    get_product: type[UcpOutput]
    error: type[UcpOutput]


SHAPES = {
    V2026_04_08: Shapes(
        search=SearchResponse, lookup=LookupResponse, get_product=GetProductResponse, error=ErrorResponse
    ),
    V2026_08_25: Shapes(
        search=SearchResponse0825,
        lookup=LookupResponse0825,
        get_product=GetProductResponse0825,
        error=ErrorResponse0825,
    ),
}
