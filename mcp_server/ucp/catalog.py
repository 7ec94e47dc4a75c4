"""The three UCP Catalog operations over one company's mirror: search, batch lookup, product detail.

Each handler gets the request's context (database snapshot, company, public
view), validated arguments and the negotiated release
(mcp_server.ucp.versions), and returns the UCP response of that release as
a dict; the declaration (mcp_server.ucp.tools) validates it against that
release's output models.
Invalid requests raise JSON-RPC -32602; business outcomes (unknown ids, no
coverage, a search that found nothing) are messages in the response. Free
text goes through the query step (mirror/query): a search's query, and a
lookup id that is no id here but names a kind of product.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from mcp_server.ucp import LOOKUP_CAPABILITY, SEARCH_CAPABILITY
from mcp_server.ucp.agent_profile import AgentProfiles, ProfileError, RequestDeadline
from mcp_server.ucp.models import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    Context,
    GetProductArguments,
    LookupArguments,
    SearchArguments,
)
from mcp_server.ucp.selection import narrow
from mcp_server.ucp.versions import Negotiated, Release, negotiate
from mirror.answers.company import featured_note
from mirror.answers.no_match import NoMatch
from mirror.catalog.public_view import CompanyView
from mirror.catalog.records import normalise_postal_code
from mirror.query import UnderstoodQuery, understand
from mirror.read import ReadSession as Session
from mirror.read import ucp as ucp_reads
from mirror.read.catalog import CatalogSearch, search_catalog
from mirror.read.gate import GateEntry
from mirror.render import ucp as ucp
from mirror.render.cache import CompanyRenderings
from mirror.runtime.config import Settings
from web.jsonrpc import INVALID_PARAMS, RpcError

SEARCH_SCAN_LIMIT = 5000  # products ranked per query; far above any contractor's matching catalog
SEARCH_VARIANTS = 10  # variants listed per product in a search result
LOOKUP_BY_MEANING = 10  # ids per lookup read as words when they are no id here (each is one search)
DETAIL_VARIANTS = 100  # variants listed by get_product


@dataclass
class UcpContext:
    """One HTTP request's view of one company, plus the agent-profile cache.

    Made once per request, so the calls of one batch share it: each distinct
    profile URL is resolved (and negotiated) once, and every fetch of the
    request shares one deadline (`RequestDeadline`).
    """

    session: Session
    company: GateEntry
    settings: Settings
    profiles: AgentProfiles
    renderings: CompanyRenderings  # the render cache's, at the process's gate state
    before_fetch: Callable[[], None] | None = None  # the per-client limit on profile fetches (cache misses)
    # After StateMoved: the company gated again at a refreshed state, with its renderings (web/gate.py).
    follow: Callable[[], tuple[GateEntry, CompanyRenderings]] | None = None
    deadline: RequestDeadline | None = None  # None: the cache's own (one per context)
    _resolved: dict = field(default_factory=dict)  # profile URL -> Negotiated or ProfileError, this request

    def __post_init__(self) -> None:
        if self.deadline is None:
            self.deadline = self.profiles.request_deadline()

    @property
    def view(self) -> CompanyView:
        """The company's public view (the same object pricing.json serialises)."""
        return self.renderings.view

    def negotiate(self, profile_url: str) -> Negotiated:
        """The agent's profile (fetched, cached or already resolved by this request), negotiated; raise ProfileError."""
        outcome = self._resolved.get(profile_url)
        if outcome is None:
            try:
                document = self.profiles.get(profile_url, before_fetch=self.before_fetch, deadline=self.deadline)
                outcome = negotiate(document)
            except ProfileError as error:
                outcome = error
            self._resolved[profile_url] = outcome
        if isinstance(outcome, ProfileError):
            raise ProfileError(outcome.code, outcome.content)
        return outcome

    def storefront(self, release: Release, served: bool) -> ucp.Storefront:
        """What every product and variant of one answer shares, in the release's shapes."""
        return ucp.Storefront.of(self.view, served, sale_basis=release.sale_basis)


def invalid(text: str, code: str = "invalid_request") -> RpcError:
    """A request the schemas or the rules refuse: JSON-RPC -32602 (UCP's REST 400)."""
    return RpcError(INVALID_PARAMS, f"Invalid params: {text}", data={"code": code, "content": text})


def ucp_meta(release: Release, capability: str) -> dict:
    """The response's `ucp` field: the release and the capability this operation used."""
    return {"version": release.version, "capabilities": release.capability_ref(capability)}


def finish(release: Release, view: CompanyView, response: dict) -> dict:
    """Add what only some releases carry: the contractor's price terms as `policies`."""
    policies = ucp.price_policies(view) if release.policies else []
    if policies:
        response["policies"] = policies
    return response


def error_response(
    release: Release, view: CompanyView, capabilities: dict, code: str, content: str, severity: str
) -> dict:
    """error_response.json: no resource, a message saying why, and where a buyer can continue."""
    response = {
        "ucp": {"version": release.version, "status": "error", "capabilities": capabilities},
        "messages": [{"type": "error", "code": code, "content": content, "severity": severity}],
    }
    if view.quote_url:
        response["continue_url"] = view.quote_url
    return response


# --- shared request pieces ------------------------------------------------------------------


def coverage(view: CompanyView, context: Context | None) -> tuple[bool, list[dict]]:
    """Whether the buyer's postal code (when given) is served, with the warning when it is not."""
    raw = context.postal_code if context is not None else None
    if raw is None or not raw.strip():
        return True, []
    zip_code = normalise_postal_code(raw)
    if zip_code is not None and view.serves(zip_code):
        return True, []
    return False, [ucp.service_area_warning(zip_code or raw.strip()[:20])]


def price_bounds(filters, context: Context | None, currency: str) -> tuple[int | None, int | None, list[dict]]:
    """filters.price as cents; ignored (with a note) when context.currency names another currency."""
    price = filters.price if filters is not None else None
    if price is None or (price.min is None and price.max is None):
        return None, None, []
    asked = (context.currency or "").strip().upper() if context is not None else ""
    if asked and asked != currency:
        note = {
            "type": "info",
            "code": "price_filter_ignored",
            "content": f"filters.price was given in {asked[:3]}; prices here are in {currency}, so it was not applied.",
        }
        return None, None, [note]
    return price.min, price.max, []


def category_slugs(view: CompanyView, filters) -> tuple[list[str] | None, list[dict]]:
    """filters.categories as known slugs (a category name is accepted too); None when not filtering."""
    values = [v for v in (filters.categories or []) if v.strip()] if filters is not None else []
    if not values:
        return None, []
    slugs, unknown = [], []
    for value in values:
        category = view.category(value)
        if category is not None:
            slugs.append(category.slug)
        else:
            unknown.append(value.strip()[:80])
    notes = []
    if unknown:
        known = ", ".join(c.slug for c in view.categories) or "none"
        notes.append(
            {
                "type": "info",
                "code": "unknown_category",
                "content": f"No category {', '.join(map(json.dumps, unknown))} here. Category slugs: {known}.",
            }
        )
    return list(dict.fromkeys(slugs)), notes


# --- search_catalog -----------------------------------------------------------------------


def search(ctx: UcpContext, args: SearchArguments, release: Release) -> dict:
    """Free-text and filter search; one UCP product per matching offer group, best first."""
    request, view = args.catalog, ctx.view
    query = (request.query or "").strip()
    filters = request.filters
    slugs, category_notes = category_slugs(view, filters)
    min_cents, max_cents, price_notes = price_bounds(filters, request.context, view.currency)
    has_price = (
        filters is not None
        and filters.price is not None
        and (filters.price.min is not None or filters.price.max is not None)
    )
    if not query and slugs is None and not category_notes and not has_price:
        raise invalid(
            "catalog: a search needs a non-empty query or filters (categories or price); an empty search is refused"
        )
    groups, understood = _ranked_groups(ctx, query, slugs, min_cents, max_cents)
    offset = _cursor_offset(request, _fingerprint(query, slugs, min_cents, max_cents))
    limit = min(request.pagination.limit if request.pagination else DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    page = groups[offset : offset + limit]
    served, area_notes = coverage(view, request.context)
    products = _search_products(ctx, page, ctx.storefront(release, served))
    has_next = offset + limit < len(groups)
    pagination = {"has_next_page": has_next, "total_count": len(groups)}
    if has_next:
        pagination["cursor"] = _cursor(offset + limit, _fingerprint(query, slugs, min_cents, max_cents))
    messages = [ucp.estimate_warning(view.quote_url), *area_notes, *category_notes, *price_notes]
    messages += _query_notes(view, understood, found_nothing=not groups)
    return finish(
        release,
        view,
        {
            "ucp": ucp_meta(release, SEARCH_CAPABILITY),
            "products": products,
            "pagination": pagination,
            "messages": messages,
        },
    )


def _query_notes(view: CompanyView, understood: UnderstoodQuery | None, *, found_nothing: bool) -> list[dict]:
    """The query step's notes: how misspelled words were read; on no match, what the contractor carries."""
    if understood is None:
        return []
    notes = [note for note in (ucp.corrections_info(understood.corrections),) if note is not None]
    if found_nothing:
        notes.append(ucp.no_match_info(NoMatch.of(understood, view.business.name, view.categories).message))
    return notes


def _ranked_groups(
    ctx: UcpContext, query: str, slugs, min_cents, max_cents
) -> tuple[list[tuple[str, list[str]]], UnderstoodQuery | None]:
    """(slug, ranked SKUs) per matching offer group, best group first; and how the query was read."""
    known = {c.slug for c in ctx.view.categories}
    understood = None
    if slugs is not None and not slugs:
        return [], None
    if query:
        found = search_catalog(ctx.session, ctx.company, query, max_price_cents=max_cents, limit=SEARCH_SCAN_LIMIT)
        understood, hits = found.understood, found.hits
        pairs = [
            (h.category_slug, h.sku)
            for h in hits
            if (min_cents is None or h.price_cents >= min_cents) and (slugs is None or h.category_slug in slugs)
        ]
    else:
        order = {c.slug: i for i, c in enumerate(ctx.view.categories)}
        pairs = sorted(
            ucp_reads.ranked_skus(ctx.session, ctx.company, slugs, min_cents=min_cents, max_cents=max_cents),
            key=lambda pair: order.get(pair[0], len(order)),
        )  # stable: cheapest first within a group
    groups: dict[str, list[str]] = {}
    for slug, sku in pairs:
        if slug in known:
            groups.setdefault(slug, []).append(sku)
    return list(groups.items()), understood


def _search_products(ctx: UcpContext, page: list[tuple[str, list[str]]], storefront: ucp.Storefront) -> list[dict]:
    view = ctx.view
    shown = {slug: skus[:SEARCH_VARIANTS] for slug, skus in page}
    rows = ucp_reads.products_by_sku(ctx.session, ctx.company, [sku for skus in shown.values() for sku in skus])
    options = ucp_reads.option_values(ctx.session, ctx.company, shown)
    products = []
    for slug, skus in shown.items():
        variants = [ucp.ucp_variant(rows[sku], storefront) for sku in skus if sku in rows]
        if variants:
            products.append(ucp.ucp_product(view.category(slug), variants, options[slug], storefront, view))
    return products


def _fingerprint(query: str, slugs, min_cents, max_cents) -> str:
    material = json.dumps([query, sorted(slugs) if slugs is not None else None, min_cents, max_cents])
    return hashlib.sha256(material.encode()).hexdigest()[:12]


def _cursor(offset: int, fingerprint: str) -> str:
    """Opaque, stateless: the next offset, bound to the search it came from."""
    return base64.urlsafe_b64encode(json.dumps({"o": offset, "f": fingerprint}).encode()).decode().rstrip("=")


def _cursor_offset(request, fingerprint: str) -> int:
    cursor = request.pagination.cursor if request.pagination else None
    if cursor is None:
        return 0
    try:
        decoded = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offset, bound = decoded["o"], decoded["f"]
    except (ValueError, TypeError, KeyError, binascii.Error):
        raise invalid("catalog.pagination.cursor is not a cursor from this service") from None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0 or bound != fingerprint:
        raise invalid("catalog.pagination.cursor belongs to another search: repeat the same query and filters")
    return offset


# --- lookup_catalog -----------------------------------------------------------------------


def lookup(ctx: UcpContext, args: LookupArguments, release: Release) -> dict:
    """Batch lookup by product id, variant id, SKU or handle; unknown ids are info messages."""
    request, view = args.catalog, ctx.view
    ids = list(dict.fromkeys(request.ids))  # duplicates collapse
    resolved, missing, substituted = _resolve(ctx, [ucp.parse_identifier(i) for i in ids])
    slugs, category_notes = category_slugs(view, request.filters)
    min_cents, max_cents, price_notes = price_bounds(request.filters, request.context, view.currency)
    served, area_notes = coverage(view, request.context)
    storefront = ctx.storefront(release, served)
    options = ucp_reads.option_values(ctx.session, ctx.company, resolved)
    products = []
    for slug, variants in resolved.items():
        if slugs is not None and slug not in slugs:
            continue
        kept = [
            ucp.ucp_variant(row, storefront) | {"inputs": inputs}
            for row, inputs in variants.values()
            if (min_cents is None or row.price_cents >= min_cents)
            and (max_cents is None or row.price_cents <= max_cents)
        ]
        if kept:
            products.append(ucp.ucp_product(view.category(slug), kept, options[slug], storefront, view))
    messages = [
        ucp.estimate_warning(view.quote_url),
        *area_notes,
        *category_notes,
        *price_notes,
        *(ucp.not_offered_info(raw, note) for raw, note in substituted),
        *(ucp.not_found_info(raw) for raw in missing),
    ]
    return finish(
        release, view, {"ucp": ucp_meta(release, LOOKUP_CAPABILITY), "products": products, "messages": messages}
    )


def _resolve(ctx: UcpContext, identifiers: list[ucp.Identifier]):
    """{slug: {sku: (row, inputs)}} in request order, the identifiers that matched nothing, and (id, note) for each
    id read by meaning whose featured product is not all it asked ("5-ton-ac": the largest is 4-ton)."""
    known = {c.slug for c in ctx.view.categories}
    rows = ucp_reads.products_by_sku(ctx.session, ctx.company, [i.sku for i in identifiers if i.sku])
    featured = ucp_reads.featured_products(ctx.session, ctx.company, [i.slug for i in identifiers if i.slug in known])
    resolved: dict[str, dict] = {}
    missing = []

    def add(row, correlation: dict) -> None:
        entry = resolved.setdefault(row.category_slug, {}).setdefault(row.sku, (row, []))
        entry[1].append(correlation)

    unresolved = []
    for identifier in identifiers:
        matched = False
        if identifier.sku in rows and rows[identifier.sku].category_slug in known:
            add(rows[identifier.sku], {"id": identifier.raw, "match": "exact"})
            matched = True
        if identifier.slug in featured:
            add(featured[identifier.slug], {"id": identifier.raw, "match": "featured"})
            matched = True
        if not matched:
            unresolved.append(identifier.raw)
    by_meaning = _products_named(ctx, unresolved, known)
    skus = {hits.hits[0].sku for hits in by_meaning.values()}
    named = ucp_reads.products_by_sku(ctx.session, ctx.company, skus) if by_meaning else {}
    substituted = []
    for raw in unresolved:
        found = by_meaning.get(raw)
        row = named.get(found.hits[0].sku) if found is not None else None
        if row is None:
            missing.append(raw)
            continue
        add(row, {"id": raw, "match": "featured"})
        note = featured_note(ctx.view.business.name, found, row)
        if note:
            substituted.append((raw, note))
    return resolved, missing, substituted


def _products_named(ctx: UcpContext, raws: list[str], known: set[str]) -> dict[str, CatalogSearch]:
    """For ids that are no id here but name a kind of product ("heat-pump", "best air conditioner"): the search
    whose first product is the best match.

    Read by the query step like a search; only an id that names a concept resolves (a guessed handle), to
    the search's first product (`match: featured`: the server chose the variant). What it asked and that
    product is not is said (`featured_note`): the nearest size is never featured as the one asked.
    """
    found = {}
    for raw in raws[:LOOKUP_BY_MEANING]:
        understood = understand(raw.replace("-", " ").replace("_", " "))
        if not understood.concepts:
            continue
        search = search_catalog(ctx.session, ctx.company, understood, limit=1)
        if search.hits and search.hits[0].category_slug in known:
            found[raw] = search
    return found


# --- get_product --------------------------------------------------------------------------


def get_product(ctx: UcpContext, args: GetProductArguments, release: Release) -> dict:
    """Full detail of one product (or the product of a variant), narrowed by option selections."""
    request, view = args.catalog, ctx.view
    identifier = ucp.parse_identifier(request.id)
    anchor = ucp_reads.products_by_sku(ctx.session, ctx.company, [identifier.sku]).get(identifier.sku)
    slug = anchor.category_slug if anchor is not None else identifier.slug
    category = view.category(slug) if slug else None
    slugs, _ = category_slugs(view, request.filters)
    if category is None or category.slug != slug or (slugs is not None and slug not in slugs):
        return _not_found(release, view, f"Product not found: {request.id[:200]}")
    rows = ucp_reads.products_in_categories(ctx.session, ctx.company, [slug])
    served, area_notes = coverage(view, request.context)
    requested = [(s.name, s.label) for s in request.selected or []]
    narrowed = narrow(rows, anchor=anchor, requested=requested, preferences=request.preferences or [], available=served)
    min_cents, max_cents, price_notes = price_bounds(request.filters, request.context, view.currency)
    variants = [
        row
        for row in narrowed.variants
        if (min_cents is None or row.price_cents >= min_cents) and (max_cents is None or row.price_cents <= max_cents)
    ]
    if not variants:
        return _not_found(release, view, f"No variant of {request.id[:200]} matches the filters")
    storefront = ctx.storefront(release, served)
    shown = [ucp.ucp_variant(row, storefront) for row in variants[:DETAIL_VARIANTS]]
    product = ucp.ucp_product(category, shown, rows, storefront, view)
    product["options"] = narrowed.options
    product["selected"] = narrowed.selected
    if not product["options"]:
        del product["options"]
    messages = [ucp.estimate_warning(view.quote_url), *area_notes, *price_notes]
    if len(variants) > DETAIL_VARIANTS:
        messages.append(
            {
                "type": "info",
                "code": "variants_truncated",
                "content": f"Showing {DETAIL_VARIANTS} of {len(variants)} variants; "
                "narrow them with selected options or filters.",
            }
        )
    return finish(
        release, view, {"ucp": ucp_meta(release, LOOKUP_CAPABILITY), "product": product, "messages": messages}
    )


def _not_found(release: Release, view: CompanyView, content: str) -> dict:
    return error_response(release, view, release.capability_ref(LOOKUP_CAPABILITY), "not_found", content, "recoverable")
