"""The install's answer across contractors: published installed prices near a ZIP, business by business.

    answer = answer_directory(session, settings, "how much does a heat pump cost near 63376?")
    answer.sentence  # "Published installed prices for a heat pump near 63376: $8,500 to $15,200 across
                     #  1 business. Tudi Mechanical Systems: $8,500 to $15,200, quote: http://..."

Only the mirror holds first-party installed prices, so the directory can say
what the businesses that serve a ZIP publish for the kind of product asked:
the range across them (lowest to highest published price, never an average)
and each business's own range with its quote link. The products are the
feed businesses' public products that are what the question names
(mirror/read/prices.py), narrowed here to the sizes, tiers and price bounds
it asks. A size or tier no business there lists is said to be absent, and
the nearest size listed is answered under its own label; each kind a
question names is answered under its own label ("furnace and heat pump":
the furnaces' range, then the heat pumps'). A question naming no kind of
product ("plumber near 63103") is answered with the businesses the business
search finds.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

from sqlalchemy.orm import Session

from mirror.answers import sentences as say
from mirror.answers.products import by_kinds_asked, checkable, fit_sizes, fit_tiers, kinds_of, sizes_offered
from mirror.catalog.public_view import company_urls
from mirror.catalog.trades import known
from mirror.query import UnderstoodQuery, understand
from mirror.read.businesses import search_feed_businesses
from mirror.read.prices import FeedProduct, feed_products
from mirror.runtime.config import Settings
from mirror.runtime.deadline import check_deadline

PRICE, NEEDS_ZIP, NO_MATCH, LIST, NOTHING = "price", "needs_zip", "no_match", "list", "nothing_asked"
FORMS = (PRICE, NEEDS_ZIP, NO_MATCH, LIST, NOTHING)
SHOWN_BUSINESSES = 10  # businesses a price answer names beside the range (the range covers them all)


@dataclass(frozen=True)
class BusinessPrices:
    """One business's published prices for what was asked."""

    plugin_key: str
    name: str
    currency: str
    price_low_cents: int
    price_high_cents: int
    offer_count: int
    quote_url: str
    category_slugs: tuple[str, ...]


@dataclass(frozen=True)
class DirectoryAnswer:
    """The directory's answer: the form, the sentence, the question as read, and the businesses it names."""

    form: str
    sentence: str
    understood: UnderstoodQuery
    postal_code: str | None
    businesses: tuple[BusinessPrices, ...] = ()  # a price answer: the businesses named, cheapest first
    business_keys: tuple[str, ...] = ()  # every answer: the keys of the businesses named, in order


def answer_directory(
    session: Session, settings: Settings, text: str, *, postal_code: str | None = None, limit: int = SHOWN_BUSINESSES
) -> DirectoryAnswer:
    """The answer to `text` across the business feed (`postal_code`, when given, wins over one in the text)."""
    understood = understand(text)
    check_deadline()  # understanding a long question is the first cost: stop here once the request is out of time
    postal_code = postal_code or understood.postal_code
    subject = _subject(understood)
    if subject and (understood.concepts or understood.asks_price):
        return _prices(session, settings, understood, subject, postal_code, limit)
    if not understood.has_subject and postal_code is None:
        return DirectoryAnswer(
            NOTHING,
            "Ask about a kind of system or a trade, and a ZIP code: the businesses serving it and their prices.",
            understood,
            None,
        )
    found = search_feed_businesses(
        session, postal_code=postal_code, query=text if understood.has_subject else None, limit=limit
    )
    names = [m.company.name for m in found.matches]
    sentence = say.directory_list_sentence(found.postal_code, names, found.total)
    keys = tuple(m.company.plugin_key for m in found.matches)
    return DirectoryAnswer(LIST, sentence, understood, found.postal_code, business_keys=keys)


def _subject(understood: UnderstoodQuery, labels=None, sizes=None) -> str:
    """What was asked: "3-ton heat pump", or a trade's products ("plumbing") ("" when neither is named); `labels`
    and `sizes` in place of the question's (an answer's own label)."""
    labels = list(dict.fromkeys(r.label for r in understood.concepts) if labels is None else labels)
    if not labels and understood.trades:
        labels = [f"{trade.in_sentence} system" for trade in known(understood.trades)]
    if not labels:
        return ""
    sizes = checkable(understood.sizes) if sizes is None else sizes
    return " ".join((*(say.size_label(s) for s in sizes), say.listing(labels)))


def _prices(session, settings, understood, subject, postal_code, limit) -> DirectoryAnswer:
    if postal_code is None:
        return DirectoryAnswer(NEEDS_ZIP, say.directory_needs_zip(subject), understood, None)
    products, substitutes, lead = _fitted(session, understood, postal_code)
    products = _within_bounds(products, understood)
    if not products:
        return DirectoryAnswer(NO_MATCH, say.directory_none_sentence(subject, postal_code), understood, postal_code)
    sizes = checkable(understood.sizes)
    groups = by_kinds_asked(products, understood.concepts) if understood.concepts else [((), products)]
    parts, shown = [], {}
    for asked, group in groups:
        own = _subject(understood, [r.label for r in asked] or None, sizes_offered(sizes, substitutes))
        by_currency: dict[str, list[BusinessPrices]] = defaultdict(list)
        for business in _by_business(settings, group):
            by_currency[business.currency].append(business)
        for currency, businesses in by_currency.items():
            named = businesses[:limit]
            spread = (
                min(b.price_low_cents for b in businesses),
                max(b.price_high_cents for b in businesses),
                len(businesses),
            )
            rows = [(b.name, b.price_low_cents, b.price_high_cents, b.quote_url) for b in named]
            parts.append(say.directory_price_sentence(own, postal_code, spread, rows, currency))
            for business in named:  # a business named for two kinds is one business, of both kinds' categories
                held = shown.setdefault(business.plugin_key, business)
                slugs = tuple(dict.fromkeys((*held.category_slugs, *business.category_slugs)))
                shown[business.plugin_key] = replace(held, category_slugs=slugs)
    sentence = lead + " ".join(parts) + say.not_understood(understood.unrecognised)
    return DirectoryAnswer(PRICE, sentence, understood, postal_code, tuple(shown.values()), tuple(shown))


def _fitted(session: Session, understood: UnderstoodQuery, postal_code: str):
    """The feed's products near `postal_code` that are what was asked, of the sizes and tiers asked, else of the
    nearest size offered; what was put in place of a size; and the absences, said (a sentence, or "")."""
    every = feed_products(session, understood, postal_code)
    products, substitutes = fit_sizes(every, checkable(understood.sizes))
    products, missing_tiers = fit_tiers(products, understood.tiers)
    offered = kinds_of(every, understood.concepts)
    lead = ""
    if every:
        lead = say.absences(
            say.directory_lists_no(postal_code),
            _subject(understood, [r.label for r in offered], ()),
            kinds=[r.label for r in understood.concepts if r not in offered],
            substitutes=substitutes,
            tiers=missing_tiers,
        )
    return products, substitutes, lead


def absent_near(session: Session, text: str, postal_code: str) -> str:
    """What a question asks that no feed business serving `postal_code` lists (a size, a tier, a kind), said
    absent with the nearest size listed; "" when all of it is listed, or it names no kind, size or tier (the
    business search itself finds the businesses selling a kind). The provider's search_businesses says it
    before a category's price range, which covers every size and tier the category lists."""
    understood = understand(text)
    if not understood.concepts or not (checkable(understood.sizes) or understood.tiers):  # nothing a range hides
        return ""
    return _fitted(session, understood, postal_code)[2]


def _within_bounds(products: list[FeedProduct], understood: UnderstoodQuery) -> list[FeedProduct]:
    """The products within the price bounds asked."""
    price = understood.price
    if price.max_cents is not None:
        products = [p for p in products if p.price_cents <= price.max_cents]
    if price.min_cents is not None:
        products = [p for p in products if p.price_cents >= price.min_cents]
    return products


def _by_business(settings: Settings, products: list[FeedProduct]) -> list[BusinessPrices]:
    """Each business's range, cheapest business first (then by name and key)."""
    grouped: dict[str, list[FeedProduct]] = defaultdict(list)
    for product in products:
        grouped[product.plugin_key].append(product)
    ranked = []
    for key, own in grouped.items():
        check_deadline()
        prices = [p.price_cents for p in own]
        ranked.append(
            BusinessPrices(
                plugin_key=key,
                name=own[0].business_name,
                currency=own[0].currency,
                price_low_cents=min(prices),
                price_high_cents=max(prices),
                offer_count=len(own),
                quote_url=company_urls(settings, key)["quote_page_url"],
                category_slugs=tuple(dict.fromkeys(p.category_slug for p in own)),
            )
        )
    return sorted(ranked, key=lambda b: (b.price_low_cents, b.name, b.plugin_key))
