"""Hosted pages: the reference pricing page and the quote page (or redirect).

`GET /companies/<key>/pricing` renders the pricing view as a server-side
page: a headline per kind (installed systems, then parts and add-ons), the
tier tables, every published option, what the price includes, the quote call
to action and page-scoped JSON-LD built by `feeds.jsonld` from the same
`CompanyView` as the visible text. `GET /companies/<key>/quote` sends the
visitor to the contractor's own funnel when it has one, else shows how to
reach the contractor and the same prices. No JavaScript anywhere; contractor
text is autoescaped. What each part says is written down once, in
docs/pricing-page.md (the WordPress plugin's renderer follows it too).

Both pages are documents the sync renders once per change
(mirror/render/documents.py; `init_page_documents` declares them): a request
serves the stored page with its freshness line (PAGE_SLOTS) filled in for
its moment, and renders it from the view only when no stored row serves.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import NamedTuple
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, redirect
from jinja2 import Environment
from markupsafe import Markup, escape

from feeds.blueprint import bp
from mirror.catalog.channels import Channel, switch_on
from mirror.catalog.glossary import Term, terms_in
from mirror.catalog.public_view import CategoryView, CompanyView, PricingOption, quote_funnel
from mirror.catalog.trades import ACCESSORY, GENERIC_TITLE, SYSTEM, TIERS, TIERS_BY_SLUG, known
from mirror.catalog.urls import PRICING_PAGE, QUOTE_PAGE, flask_rule, page_image, redirect_target
from mirror.render.cache import Rendered
from mirror.render.documents import Document, Marked, Slots, Timing
from mirror.render.schema_org import company_graph, script_safe_json
from mirror.runtime.config import Settings
from mirror.values.money import format_money
from mirror.values.timestamps import rfc3339
from web.db import settings
from web.gate import document, gate
from web.responses import conditional

PRICING_CHANNEL = Channel.PRICING
QUOTE_CHANNEL = Channel.QUOTE
CACHE_CONTROL = "public, max-age=300"
# What the pages call each kind of category: section titles and headlines.
ACCESSORIES_TITLE = "Parts and add-ons"
SYSTEMS_TITLE = "Installed systems"
# The heading of a system's options that have no tier.
UNTIERED_TITLE = "Other options"
# The list of the words the page uses, explained (mirror/catalog/glossary.py).
GLOSSARY_TITLE = "What these words mean"
# Embeddings, overrides, isolates and marks (U+202A..U+202E, U+2066..U+2069,
# LRM, RLM, ALM): inside <bdi> they cannot leak, but <title> and attribute
# values have no isolation, so a U+202E there would reorder the browser's tab,
# history and bookmark text.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# The pages are English (<html lang="en">); month names are spelled out here
# rather than by strftime("%B"), which follows the process's locale.
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@bp.app_template_filter("bidi_safe")
def bidi_safe(text: str) -> str:
    """Text without bidi controls, for places no element isolates (<title>, meta content); markup stays markup."""
    cleaned = BIDI_CONTROLS.sub("", str(text))
    return Markup(cleaned) if isinstance(text, Markup) else cleaned


@bp.get(flask_rule(PRICING_PAGE))
def pricing_page(key: str):
    """The reference pricing page."""
    company = gate(key, PRICING_CHANNEL, html=True)
    return _html(document(company, _pages().pricing))


@bp.get(flask_rule(QUOTE_PAGE))
def quote_page(key: str):
    """A 302 to the contractor's own quote funnel, else the quote page."""
    company = gate(key, QUOTE_CHANNEL, html=True)
    # The funnel is in the gate's entry: a redirect, cold or warm, reads nothing from the database.
    funnel = _funnel(company, settings())
    if funnel:
        response = redirect(funnel, 302)
        # Each visit must reach us again so the stamp and any switch apply.
        response.headers["Cache-Control"] = "no-store"
        return response
    return _html(document(company, _pages().quote))


def _funnel(company, settings: Settings) -> str | None:
    """Where the quote page redirects instead of showing itself (a company row or gate entry), or None."""
    return redirect_target(quote_funnel(company, settings))


def _html(rendered: Rendered) -> Response:
    return conditional(rendered.body, mimetype="text/html", cache_control=CACHE_CONTROL, etag=rendered.etag, cors=False)


# --- the pages as documents the sync renders once per change (mirror/render/documents.py) -------------


def freshness_class(timing: Timing) -> str:
    """The freshness line's extra class: ' stale' unless the prices are fresh."""
    return "" if timing.freshness_state == "fresh" else " stale"


def freshness_sentence(timing: Timing) -> Markup:
    """The freshness line's sentence, its date a <time> with the ISO instant."""
    note = freshness_note(timing)
    if not note.when:
        return escape(note.before)
    return Markup('{} <time datetime="{}">{}</time>{}').format(note.before, note.iso, note.when, note.after)


# Where the clock's values go in a page (its slots, by number): the page's text is rendered once per change.
PAGE_SLOTS: Slots = (freshness_class, freshness_sentence)
CATEGORIES_SECTION = "_categories.html"  # the same in both pages (page_parts)
PAGE_PARTS = "pages"  # page_parts' key in a rendering's shared values (Document.make)


class PageDocuments(NamedTuple):
    """The hosted pages of an app, as the documents its sync stores (app.extensions["pages"])."""

    pricing: Document
    quote: Document


def init_page_documents(app: Flask) -> None:
    """Declare the hosted pages as the app's stored documents: each run renders them for the companies it changed,
    with the app's own templates, and a request serves their bytes."""
    environment = app.jinja_env
    version = templates_version(environment)

    def page(name: str) -> Callable[[CompanyView, Settings, tuple[str, ...], dict], Marked]:
        def make(view: CompanyView, settings: Settings, marks: tuple[str, ...], shared: dict) -> Marked:
            # Both pages of one rendering (a run's, of one company) share what they show of the view.
            parts = shared.get(PAGE_PARTS)
            if parts is None:
                parts = shared[PAGE_PARTS] = page_parts(view, settings, environment)
            context = page_context(view, settings, marks, environment, parts)
            return Marked(environment.get_template(name).render(context), marks)

        return make

    pages = PageDocuments(
        pricing=Document(
            "pricing.html", PRICING_CHANNEL, options=True, make=page("pricing.html"), slots=PAGE_SLOTS, version=version
        ),
        quote=Document(
            "quote.html",
            QUOTE_CHANNEL,
            options=True,
            make=page("quote.html"),
            slots=PAGE_SLOTS,
            applies=lambda company, settings: not _funnel(company, settings),  # else the link redirects
            version=version,
        ),
    )
    app.extensions["pages"] = pages
    for stored in pages:
        app.extensions["mirror"].documents.register(stored)


def templates_version(environment: Environment) -> str:
    """A digest of every template the app's loader lists: an edited template makes every stored page stale."""
    digest = hashlib.sha256()
    for name in sorted(environment.list_templates()):
        source, _path, _uptodate = environment.loader.get_source(environment, name)
        digest.update(f"{name}\n{source}\n".encode())
    return digest.hexdigest()[:16]


def _pages() -> PageDocuments:
    return current_app.extensions["pages"]


def page_context(
    view: CompanyView, settings: Settings, timing: tuple[str, ...], environment: Environment, parts: dict | None = None
) -> dict:
    """Everything a hosted page renders: what both pages show of the view (`parts`, else `page_parts`), and
    `timing`, each slot's text (PAGE_SLOTS' marks, mirror/render/documents.py), where the freshness line goes."""
    css_class, sentence = (Markup(text) for text in timing)
    parts = parts if parts is not None else page_parts(view, settings, environment)
    return {**parts, "freshness_class": css_class, "freshness": sentence}


def page_parts(view: CompanyView, settings: Settings, environment: Environment) -> dict:
    """What both hosted pages show of the view, derived from it alone, with the categories' section rendered.

    The pages show every category's full offers, and their JSON-LD describes
    them (`graph`: the script-safe JSON text, None when the jsonld switch is
    off). The categories' section (`categories_section`, _categories.html) is
    the same in both pages, so a run that renders both renders it once.
    """
    base = settings.public_base_url
    view = view.complete()  # the pages list every option: never from a summary view
    shown = [page_category(category, view.currency, base) for category in view.categories]
    # The graph as the .jsonld document writes it (one serialiser for both),
    # already script-safe: Markup, so autoescaping leaves it as it is.
    graph = (
        Markup(script_safe_json(company_graph(view, settings, view.categories)))
        if switch_on(view.channels, Channel.JSONLD)
        else None
    )
    parts = {
        "view": view,
        "business": view.business,
        "categories": shown,
        "systems": [c for c in shown if c.kind == SYSTEM],
        "accessories": [c for c in shown if c.kind == ACCESSORY],
        "headlines": kind_headlines(view),
        "systems_title": SYSTEMS_TITLE,
        "accessories_title": ACCESSORIES_TITLE,
        "answer": answer_sentence(view),
        "glossary_title": GLOSSARY_TITLE,
        "graph": graph,
        "pricing_open": switch_on(view.channels, PRICING_CHANNEL),
        "phone_display": format_phone(view.business.phone),
        "eyebrow": eyebrow(view),
        "website_display": display_url(view.business.website),
    }
    # Glosser: each word explained where the section first shows it (it is the first text a page glosses).
    section = environment.get_template(CATEGORIES_SECTION).render(parts | {"gloss": Glosser()})
    return parts | {"categories_section": Markup(section)}


class OptionLine(NamedTuple):
    """One published option as the lists show it: its name, formatted price and picture (None: none shown)."""

    sku: str
    name: str
    price: str
    image: str | None = None


class OptionGroup(NamedTuple):
    """A category's options under one heading: a tier's title, "Other options", or None on accessories."""

    tier: str | None
    title: str | None
    options: tuple[OptionLine, ...]


class SizePrice(NamedTuple):
    """One size of a tier and its price: "3 ton" and "$9,400"."""

    size: str
    price: str


class TierRow(NamedTuple):
    """One Good/Better/Best row: what the tier is and where it starts; `price` None when it has no product.

    `brand` and `facts` describe the tier's starting (cheapest) option: its
    efficiency ratings, its size (unless `sizes` lists each size) and its
    warranty; `name` is that option's name, given only when the catalog
    states no brand or fact of it. A tier of several options lists each size
    with its price (`sizes`) when every one has its own size, else says how
    many there are and the tier's own range (`span`).
    """

    tier: str
    label: str
    price: str | None
    brand: str | None = None
    facts: tuple[str, ...] = ()
    name: str | None = None
    sizes: tuple[SizePrice, ...] = ()
    span: str | None = None


class PageCategory(NamedTuple):
    """One category as the pages show it, its display text computed once (the template only interpolates).

    `plain_name` goes beneath the contractor's own name; `image` is the
    picture the page shows (None: none, and nothing stands in its place).
    """

    slug: str
    name: str
    plain_name: str | None
    image: str | None
    kind: str
    is_range: bool
    price_range: str
    tiers: tuple[TierRow, ...]
    note: str | None
    offer_count: int
    option_groups: tuple[OptionGroup, ...]


def page_category(category: CategoryView, currency: str, public_base_url: str) -> PageCategory:
    """The category's slug, names, picture, price text, tier rows, range note and its options by tier."""
    return PageCategory(
        slug=category.slug,
        name=category.name,
        plain_name=category.plain_name,
        image=page_image(category.image_url, public_base_url),
        kind=category.kind,
        is_range=category.price_low != category.price_high,
        price_range=price_range(category, currency),
        tiers=tier_rows(category, currency),
        note=range_note(category),
        offer_count=category.offer_count,
        option_groups=option_groups(category, currency, public_base_url),
    )


def eyebrow(view: CompanyView) -> str:
    """'Heating & cooling · Plumbing · Wentzville, MO'."""
    trades = [trade.title for trade in known(view.business.trades)] or [GENERIC_TITLE]
    address = view.business.address
    place = ", ".join(p for p in (address.locality, address.region) if p) if address else ""
    return " · ".join([*trades, place] if place else trades)


class DatedNote(NamedTuple):
    """A sentence around one date: the page wraps `when` in <time datetime="{iso}"> (freshness_sentence)."""

    before: str
    when: str | None = None
    iso: str | None = None
    after: str = ""


def freshness_note(timing: Timing) -> DatedNote:
    """When these prices were last confirmed against the contractor's catalog, as a person reads it."""
    if timing.last_synced_at is None:
        return DatedNote("These prices have not been confirmed yet.")
    confirmed = timing.last_synced_at.astimezone(UTC)
    after = "; the contractor's prices may have changed since." if timing.freshness_state == "stale" else "."
    return DatedNote("Prices last confirmed", human_date(confirmed), rfc3339(confirmed), after)


def human_date(value: datetime) -> str:
    """'December 1, 2026' (the UTC date; the exact instant goes in the <time> element's datetime)."""
    value = value.astimezone(UTC)
    return f"{MONTHS[value.month - 1]} {value.day}, {value.year}"


def range_note(category: CategoryView) -> str | None:
    """What a system's tier prices mean; None when nothing needs saying.

    Each tier row shows its cheapest published option's price; a tier of
    several options says so beside it, so the note only says what the
    "Starts at" column means, where some tier has more than one option.
    """
    if category.tiers is None:
        return None
    counts = Counter(option.tier for option in category.options if option.tier is not None)
    if any(count > 1 for count in counts.values()):
        return "“Starts at” is each tier's lowest-priced option."
    return None


def display_url(url: str | None) -> str | None:
    """'tudi.example/contact' for 'https://www.tudi.example/contact/?utm=x': the address a person types."""
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    host = host[4:] if host.lower().startswith("www.") else host
    return host + parts.path.rstrip("/")


class Headline(NamedTuple):
    """The one statement about a kind of category: "Installed heating and cooling systems from $8,500"."""

    kind: str
    text: str


def kind_headlines(view: CompanyView) -> list[Headline]:
    """A headline per kind the contractor publishes: its installed systems first, then parts and add-ons.

    Each says where that kind's prices start, counting only its own
    categories (a $60 filter never sets the systems' "from"). The systems
    are named after the contractor's trade when it has exactly one; with
    several or none the headline does not say whose systems they are.
    """
    headlines = []
    for kind, noun in ((SYSTEM, f"Installed {view.business.systems_label}"), (ACCESSORY, ACCESSORIES_TITLE)):
        lows = [c.price_low for c in view.categories if c.kind == kind]
        if lows:
            headlines.append(Headline(kind, f"{noun} from {format_money(min(lows), view.currency)}"))
    return headlines


def answer_sentence(view: CompanyView) -> str:
    """The direct answer (the page's description): who publishes what, and where each kind starts."""
    name = view.business.name
    headlines = kind_headlines(view)
    if not headlines:
        return f"{name} has not published any installed prices yet."
    said = "; ".join(h.text[0].lower() + h.text[1:] for h in headlines)
    return f"{name}: {said}."


def price_range(category: CategoryView, currency: str) -> str:
    """The category's whole range: '$8,500 – $14,000', or one price when low and high are equal."""
    return span_text(category.price_low, category.price_high, currency)


def tier_rows(category: CategoryView, currency: str) -> tuple[TierRow, ...]:
    """Good/Better/Best rows of a system (none on an accessory), each from its own options."""
    if category.tiers is None:
        return ()
    return tuple(
        _tier_row(tier, getattr(category.tiers, tier), [o for o in category.options if o.tier == tier], currency)
        for tier in TIERS
    )


def _tier_row(tier: str, starts_at: Decimal | None, options: list[PricingOption], currency: str) -> TierRow:
    label = TIERS_BY_SLUG[tier].title
    if starts_at is None or not options:
        return TierRow(tier, label, None)
    first = options[0]  # the view lists options cheapest first
    sizes = [o.size for o in options]
    by_size = len(options) > 1 and None not in sizes and len(set(sizes)) == len(sizes)
    facts = (*first.efficiency, *(() if by_size or first.size is None else (first.size,)), *_warranty(first))
    span = None
    if len(options) > 1 and not by_size:
        low, high = options[0].price, options[-1].price
        joint = " at" if low == high else ":"
        span = f"{len(options)} options{joint} {span_text(low, high, currency)}"
    return TierRow(
        tier,
        label,
        format_money(starts_at, currency),
        brand=first.brand,
        facts=facts,
        name=None if first.brand or facts or by_size else first.name,
        sizes=tuple(SizePrice(o.size, format_money(o.price, currency)) for o in options) if by_size else (),
        span=span,
    )


def _warranty(option: PricingOption) -> tuple[str, ...]:
    return (option.warranty,) if option.warranty else ()


def option_groups(category: CategoryView, currency: str, public_base_url: str) -> tuple[OptionGroup, ...]:
    """Every published option of the category, by tier (Good, Better, Best, then any without one)."""
    lines = {}
    for option in category.options:
        lines.setdefault(option.tier, []).append(
            OptionLine(
                option.sku,
                option.name,
                format_money(option.price, currency),
                page_image(option.image_url, public_base_url),
            )
        )
    if category.kind != SYSTEM:
        return (OptionGroup(None, None, tuple(lines.get(None, ()))),) if lines else ()
    groups = [OptionGroup(tier, TIERS_BY_SLUG[tier].title, tuple(lines[tier])) for tier in TIERS if tier in lines]
    if None in lines:
        groups.append(OptionGroup(None, UNTIERED_TITLE, tuple(lines[None])))
    return tuple(groups)


class Glosser:
    """Marks each glossary word where the page first shows it: `<abbr title="its meaning">SEER2</abbr>`.

    One per rendering, called by the template on the texts the glossary
    reads (category and option names, sizes, efficiency labels) in the order
    the page shows them, so "first" is first on the page. The text is
    escaped here; only the marks are markup.
    """

    def __init__(self) -> None:
        self.seen: set[Term] = set()

    def __call__(self, text: str | None) -> Markup:
        text = text or ""
        found = terms_in(text)
        if all(term in self.seen for _start, _end, term in found):  # most texts: nothing (more) to mark
            return escape(text)
        parts, position = [], 0
        for start, end, term in found:
            if term in self.seen:
                continue
            self.seen.add(term)
            parts.append(escape(text[position:start]))
            parts.append(Markup('<abbr title="{}">{}</abbr>').format(term.meaning, text[start:end]))
            position = end
        parts.append(escape(text[position:]))
        return Markup("").join(parts)


def span_text(low: Decimal, high: Decimal, currency: str) -> str:
    """'$8,500 – $14,000', or one price when low and high are equal."""
    return (
        format_money(low, currency)
        if low == high
        else f"{format_money(low, currency)} – {format_money(high, currency)}"
    )


def format_phone(e164: str | None) -> str | None:
    """'(636) 555-0134' for a US E.164 number; anything else as stored."""
    if e164 and e164.startswith("+1") and len(e164) == 12 and e164[1:].isdigit():
        return f"({e164[2:5]}) {e164[5:8]}-{e164[8:]}"
    return e164
