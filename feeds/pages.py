"""Hosted pages: the reference pricing page and the quote page (or redirect).

`GET /companies/<key>/pricing` renders the pricing view as a server-side
page: a one-sentence answer, the tier tables, what the price includes, the
quote call to action and page-scoped JSON-LD built by `feeds.jsonld` from the
same `CompanyView` as the visible text. `GET /companies/<key>/quote` sends the
visitor to the contractor's own funnel when it has one, else shows how to
reach the contractor. No JavaScript anywhere; contractor text is autoescaped.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import NamedTuple
from urllib.parse import urlsplit

from flask import Response, redirect, render_template
from markupsafe import Markup

from feeds import bp
from feeds.jsonld import company_graph, script_safe_json
from mirror.channels import Channel, company_open
from mirror.public_view import CategoryView, CompanyView
from mirror.read.gate import GateEntry
from mirror.render_cache import Rendered
from mirror.timestamps import rfc3339
from mirror.trades import GENERIC_TITLE, TIERS, TIERS_BY_SLUG, TRADES
from mirror.urls import PRICING_PAGE, QUOTE_PAGE, flask_rule, is_safe_redirect
from web.db import settings
from web.gate import gate, renderings
from web.responses import conditional

PRICING_CHANNEL = Channel.PRICING
QUOTE_CHANNEL = Channel.QUOTE
CACHE_CONTROL = "public, max-age=300"
CURRENCY_SYMBOLS = {"USD": "$"}
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
    rendered = renderings(company).body(
        "pricing.html", lambda view: _page("pricing.html", view, company, view.categories)
    )
    return _html(rendered)


@bp.get(flask_rule(QUOTE_PAGE))
def quote_page(key: str):
    """A 302 to the contractor's own quote funnel, else the quote page."""
    company = gate(key, QUOTE_CHANNEL, html=True)
    cached = renderings(company)
    view = cached.view
    if view.funnel_url and is_safe_redirect(view.funnel_url):
        response = redirect(view.funnel_url, 302)
        # Each visit must reach us again so the stamp and any switch apply.
        response.headers["Cache-Control"] = "no-store"
        return response
    # The quote page shows ranges, not tiers: its JSON-LD describes only the
    # business, so the markup never claims more than the visible page.
    return _html(cached.body("quote.html", lambda view: _page("quote.html", view, company, [])))


def _page(template: str, view: CompanyView, company: GateEntry, marked_up: list[CategoryView]) -> bytes:
    # Rendered once per content state by the render cache: nothing here may
    # depend on the request (only on the view and the company's switches).
    return render_template(template, **page_context(view, company, marked_up)).encode("utf-8")


def _html(rendered: Rendered) -> Response:
    return conditional(rendered.body, mimetype="text/html", cache_control=CACHE_CONTROL, etag=rendered.etag, cors=False)


def page_context(view: CompanyView, company: GateEntry, marked_up: list[CategoryView]) -> dict:
    """Everything a hosted page renders, derived from the one view.

    `marked_up` are the categories whose full offers the page shows, and so
    the ones its JSON-LD describes (`graph`: the script-safe JSON text, None
    when the jsonld switch is off).
    """
    shown = [page_category(category, view.currency) for category in view.categories]
    # The graph as the .jsonld document writes it (one serialiser for both),
    # already script-safe: Markup, so autoescaping leaves it as it is.
    graph = (
        Markup(script_safe_json(company_graph(view, settings(), marked_up)))
        if company_open(company, Channel.JSONLD)
        else None
    )
    return {
        "view": view,
        "business": view.business,
        "categories": shown,
        "systems": [c for c in shown if c.kind == "system"],
        "accessories": [c for c in shown if c.kind == "accessory"],
        "answer": answer_sentence(view),
        "graph": graph,
        "pricing_open": company_open(company, PRICING_CHANNEL),
        "phone_display": format_phone(view.business.phone),
        "eyebrow": eyebrow(view),
        "freshness": freshness_note(view),
        "website_display": display_url(view.business.website),
    }


class TierRow(NamedTuple):
    """One Good/Better/Best row: `price` is the formatted price, None when the tier has no product."""

    tier: str
    label: str
    price: str | None


class PageCategory(NamedTuple):
    """One category as the pages show it, its display text computed once (the template only interpolates)."""

    slug: str
    name: str
    kind: str
    is_range: bool
    price_range: str
    tiers: tuple[TierRow, ...]
    note: str | None
    offer_count: int


def page_category(category: CategoryView, currency: str) -> PageCategory:
    """The category's slug, name, price text, tier rows and range note."""
    rows = tier_rows(category)
    tiers = tuple(
        TierRow(row["tier"], row["label"], None if row["price"] is None else format_money(row["price"], currency))
        for row in rows
    )
    return PageCategory(
        slug=category.slug,
        name=category.name,
        kind=category.kind,
        is_range=category.price_low != category.price_high,
        price_range=price_range(category, currency),
        tiers=tiers,
        note=range_note(category, currency, rows),
        offer_count=category.offer_count,
    )


def eyebrow(view: CompanyView) -> str:
    """'Heating & cooling · Plumbing · Wentzville, MO'."""
    trades = [TRADES[t].title for t in view.business.trades if t in TRADES] or [GENERIC_TITLE]
    address = view.business.address
    place = ", ".join(p for p in (address.locality, address.region) if p) if address else ""
    return " · ".join([*trades, place] if place else trades)


class DatedNote(NamedTuple):
    """A sentence around one date: the template wraps `when` in <time datetime="{iso}">."""

    before: str
    when: str | None = None
    iso: str | None = None
    after: str = ""


def freshness_note(view: CompanyView) -> DatedNote:
    """When these prices were last confirmed against the contractor's catalog, as a person reads it."""
    if view.last_synced_at is None:
        return DatedNote("These prices have not been confirmed yet.")
    confirmed = view.last_synced_at.astimezone(UTC)
    after = "; the contractor's prices may have changed since." if view.freshness_state == "stale" else "."
    return DatedNote("Prices last confirmed", human_date(confirmed), rfc3339(confirmed), after)


def human_date(value: datetime) -> str:
    """'December 1, 2026' (the UTC date; the exact instant goes in the <time> element's datetime)."""
    value = value.astimezone(UTC)
    return f"{MONTHS[value.month - 1]} {value.day}, {value.year}"


def range_note(category: CategoryView, currency: str, rows: list[dict]) -> str | None:
    """What a system's tier prices and the top of its range mean; None when nothing needs saying.

    Each tier shows its cheapest published option, so a range that ends above
    the highest tier price reaches into larger or premium installs of the category.
    `rows` are the category's `tier_rows`.
    """
    tier_prices = [row["price"] for row in rows if row["price"] is not None]
    if not tier_prices:
        return None if category.price_low == category.price_high else "The price depends on the option you choose."
    starts = "Good, Better and Best show where each option starts."
    if category.price_high > max(tier_prices):
        high = format_money(category.price_high, currency)
        return f"{starts} Larger or premium installs in this category cost up to {high}."
    return starts


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


def answer_sentence(view: CompanyView) -> str:
    """The direct answer: who publishes what, from what price to what price."""
    name = view.business.name
    count = len(view.categories)
    if count == 0:
        return f"{name} has not published any installed prices yet."
    low = min(c.price_low for c in view.categories)
    high = max(c.price_high for c in view.categories)
    things = "1 category" if count == 1 else f"{count} categories"
    span = (
        format_money(low, view.currency)
        if low == high
        else (f"{format_money(low, view.currency)} to {format_money(high, view.currency)}")
    )
    return f"{name} publishes its own installed prices for {things}, from {span}."


def price_range(category: CategoryView, currency: str) -> str:
    """'$8,500 – $14,000', or one price when low and high are equal."""
    low, high = format_money(category.price_low, currency), format_money(category.price_high, currency)
    return low if category.price_low == category.price_high else f"{low} – {high}"


def tier_rows(category: CategoryView) -> list[dict]:
    """Good/Better/Best rows; a tier with no published product has price None."""
    if category.tiers is None:
        return []
    return [
        {"tier": tier, "label": TIERS_BY_SLUG[tier].title, "price": getattr(category.tiers, tier)} for tier in TIERS
    ]


def format_money(value: Decimal, currency: str) -> str:
    """'$8,500' for whole amounts, '$60.05' otherwise; other currencies by code."""
    digits = f"{value:,.0f}" if value == value.to_integral_value() else f"{value:,.2f}"
    symbol = CURRENCY_SYMBOLS.get(currency)
    return f"{symbol}{digits}" if symbol else f"{digits} {currency}"


def format_phone(e164: str | None) -> str | None:
    """'(636) 555-0134' for a US E.164 number; anything else as stored."""
    if e164 and e164.startswith("+1") and len(e164) == 12 and e164[1:].isdigit():
        return f"({e164[2:5]}) {e164[5:8]}-{e164[8:]}"
    return e164
