"""One contractor's answer to a homeowner's question, from its catalog: the form, the sentence, the categories.

    answer = answer_company(session, company, view, "How much is a new 3 ton heat pump?")
    answer.form      # "price"
    answer.sentence  # "Tudi Mechanical Systems' installed price for a 3-ton heat pump (“HP & Air
                     #  Handler”) starts at $9,400 (Good), $11,350 (Better), $15,200 (Best). ..."

The forms, decided from the understood question (mirror/query):
- coverage: a ZIP and nothing to look for ("do you serve 63376?"): served or
  not, and where the contractor does work;
- comparison: "good vs best furnace", "compare ..." (or two tiers named):
  each tier's lowest price and product in the category the search found;
- included: "what is included?": the contractor's price note and the
  description of the product asked about, quoted;
- price: anything else the catalog search finds: the lowest price of each
  tier among the products of the size asked (or an accessory's price span),
  each category under the kinds asked that its products are;
- no match: nothing found: what the contractor does publish prices for
  (the search's own no-match message);
- nothing asked: no word to look for ("hello").
Every answer says which words it did not understand (the query step's
unrecognised words) and which named nothing here, rather than guessing; a
ZIP named beside a product question adds whether it is served. A price is
never put under a label it does not have: a size, tier, brand, kind or
feature asked that the catalog does not offer is said to be absent first,
and the nearest size offered is answered under its own label ("Tudi
Mechanical Systems lists no 5-ton air conditioner; the largest is 4-ton.
... installed price for a 4-ton air conditioner ...").

`company` is the gate entry the surface was let through with (its reads are
checked against the gate state and raise StateMoved; the caller retries at
the refreshed state) or a bare key; `view` is that state's public view.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from mirror.answers import sentences as say
from mirror.answers.products import (
    Substitute,
    cheapest_by_tier,
    checkable,
    fit_sizes,
    fit_tiers,
    kinds_of,
    measure_of,
    sizes_offered,
    span,
    states_size,
)
from mirror.catalog.public_view import CategoryView, CompanyView
from mirror.catalog.trades import SYSTEM, TIERS
from mirror.catalog.units import Size
from mirror.catalog.vocabulary import BRANDS
from mirror.query import UnderstoodQuery, understand
from mirror.read.catalog import CatalogSearch, category_products, search_catalog
from mirror.read.gate import GateEntry
from mirror.runtime.deadline import check_deadline

PRICE, COVERAGE, COMPARISON, INCLUDED, NO_MATCH, NOTHING = (
    "price",
    "coverage",
    "comparison",
    "included",
    "no_match",
    "nothing_asked",
)
FORMS = (PRICE, COVERAGE, COMPARISON, INCLUDED, NO_MATCH, NOTHING)
SEARCH_LIMIT = 50  # hits read to answer: a catalog's matches for one question fit
MAX_CATEGORIES = 3  # categories one price answer covers (the search's first ones)


@dataclass(frozen=True)
class CompanyAnswer:
    """What the contractor's catalog answers: the form, the sentence, the question as read, the categories concerned."""

    form: str
    sentence: str
    understood: UnderstoodQuery
    categories: tuple[CategoryView, ...] = ()  # the categories the answer is about (all of them for no match)
    served: bool | None = None  # the ZIP named, if any: served or not


def answer_company(session: Session, company: GateEntry | str, view: CompanyView, text: str) -> CompanyAnswer:
    """The answer to `text` from one company's catalog (see the module docstring)."""
    understood = understand(text)
    check_deadline()  # understanding a long question is the first cost: stop here once the request is out of time
    asks_included = understood.asks_inclusion
    name = view.business.name
    postal_code = understood.postal_code
    served = view.serves(postal_code) if postal_code else None
    if not understood.has_subject:
        if asks_included:
            sentence = say.included_sentence(name, view.price_description, None)
            return CompanyAnswer(INCLUDED, sentence + say.quote_clause(view.quote_url), understood, (), served)
        if postal_code:
            codes = view.business.service_area.postal_codes
            sentence = say.coverage_sentence(name, postal_code, bool(served), codes)
            return CompanyAnswer(
                COVERAGE, sentence + say.quote_clause(view.quote_url if served else None), understood, (), served
            )
        sentence = say.nothing_asked(name, [c.name for c in view.categories])
        return CompanyAnswer(NOTHING, sentence, understood, tuple(view.categories), served)
    found = search_catalog(session, company, understood, limit=SEARCH_LIMIT)
    understood = found.understood or understood
    unmatched = [keyword for keyword in found.unmatched if keyword not in _BRANDS or not found.hits]
    tail = _coverage(name, postal_code, served) + say.not_understood(understood.unrecognised, unmatched)
    if not found.hits:
        sentence = say.no_match_message(understood, name, [c.name for c in view.categories])
        return CompanyAnswer(NO_MATCH, sentence + tail, understood, tuple(view.categories), served)
    if asks_included:
        return _included(view, found, understood, served, tail)
    categories = _categories(view, found)
    if understood.asks_comparison or len(understood.tiers) >= 2:
        return _comparison(session, company, view, found, understood, categories[0], served, tail)
    return _price(session, company, view, found, understood, categories, served, tail)


def _categories(view: CompanyView, found: CatalogSearch) -> list[CategoryView]:
    """The categories of the hits, in the search's order (at most MAX_CATEGORIES)."""
    slugs = list(dict.fromkeys(hit.category_slug for hit in found.hits))[:MAX_CATEGORIES]
    return [category for category in (view.category(slug) for slug in slugs) if category is not None]


def _coverage(name: str, postal_code: str | None, served: bool | None) -> str:
    return say.coverage_note(name, postal_code, bool(served)) if postal_code else ""


_BRANDS = frozenset(BRANDS)


def _subject(labels, sizes) -> str:
    """What an answer is about, as a noun phrase: "3-ton heat pump", "MERV 13 air filter" ("" without a kind)."""
    labels = list(dict.fromkeys(labels))
    if not labels:
        return ""
    return " ".join((*(say.size_label(s) for s in sizes), say.listing(labels)))


@dataclass(frozen=True)
class _Fitted:
    """The products an answer gives prices of (per category), and what was asked that they do not offer."""

    products: list[tuple[CategoryView, list]]  # the categories answered, each with its products
    substitutes: tuple[Substitute, ...]
    missing_tiers: tuple[str, ...]
    sizes: tuple  # the sizes the answer's label may name (those offered)
    lead: str  # the absences, said first


def _fitted(session, company, view, found: CatalogSearch, understood: UnderstoodQuery, categories) -> _Fitted:
    """The categories' products the search found, of the sizes and tiers asked, else of the nearest offered (said)."""
    hit_skus = {hit.sku for hit in found.hits}
    pooled = []
    for category in categories:
        check_deadline()
        pooled += [(category, p) for p in category_products(session, company, category.slug) if p.sku in hit_skus]
    sizes = checkable(understood.sizes)
    products, substitutes = fit_sizes([p for _, p in pooled], sizes)
    products, missing_tiers = fit_tiers(products, understood.tiers)
    kept = {id(p) for p in products}
    per_category = [(c, [p for owner, p in pooled if owner is c and id(p) in kept]) for c in categories]
    every = [p for _, p in pooled]
    absent_kinds = [r.label for r in understood.concepts if r not in kinds_of(every, understood.concepts)]
    offered = [r.label for r in understood.concepts if r.label not in absent_kinds]
    brands = [keyword for keyword in found.unmatched if keyword in _BRANDS] if found.hits else []
    lead = say.absences(
        say.company_lists_no(view.business.name),
        _subject(offered, ()),
        kinds=absent_kinds,
        brands=brands,
        substitutes=substitutes,
        tiers=missing_tiers,
        features=found.unstated,
    )
    return _Fitted(
        [(c, ps) for c, ps in per_category if ps],
        substitutes,
        missing_tiers,
        tuple(sizes_offered(sizes, substitutes)),
        lead,
    )


def _price(session, company, view, found, understood, categories, served, tail) -> CompanyAnswer:
    name, currency = view.business.name, view.currency
    fitted = _fitted(session, company, view, found, understood, categories)
    parts, answered = [], []
    for category, products in fitted.products:
        tiers = []
        if category.kind == SYSTEM:
            tiers = [(tier, p.price_cents) for tier, p in cheapest_by_tier(products) if p is not None]
        subject = _subject([r.label for r in kinds_of(products, understood.concepts)], fitted.sizes)
        parts.append(say.price_sentence(name, subject, category.name, tiers, span(products), currency))
        answered.append(category)
    sentence = fitted.lead + " ".join(parts) + say.price_note(name, view.price_description) + tail
    sentence += say.quote_clause(view.quote_url)
    return CompanyAnswer(PRICE, sentence, understood, tuple(answered), served)


def _comparison(session, company, view, found, understood, category, served, tail) -> CompanyAnswer:
    name, currency = view.business.name, view.currency
    fitted = _fitted(session, company, view, found, understood, [category])
    products = fitted.products[0][1] if fitted.products else []
    if category.kind != SYSTEM or not any(p.tier for p in products):
        sentence = say.no_tiers_sentence(name, category.name, span(products), currency)
    else:
        tiers = [t for t in TIERS if t in understood.tiers] if len(understood.tiers) >= 2 else list(TIERS)
        rows = [
            (tier, p.price_cents if p else None, p.name if p else None) for tier, p in cheapest_by_tier(products, tiers)
        ]
        sentence = say.comparison_sentence(name, category.name, rows, currency)
    sentence = fitted.lead + sentence + say.price_note(name, view.price_description) + tail
    sentence += say.quote_clause(view.quote_url)
    return CompanyAnswer(COMPARISON, sentence, understood, (category,), served)


def _included(view, found, understood, served, tail) -> CompanyAnswer:
    hit = found.hits[0]
    category = view.category(hit.category_slug)
    sentence = say.included_sentence(
        view.business.name, view.price_description, (hit.category_name, hit.name, hit.description)
    )
    sentence += tail + say.quote_clause(view.quote_url)
    return CompanyAnswer(INCLUDED, sentence, understood, (category,) if category else (), served)


def featured_note(business_name: str, found: CatalogSearch, product) -> str:
    """What a lookup by meaning asked ("5-ton-ac") that the product featured in its place (the search's first) is
    not, said absent, with the product's own size ("" when the product is all of it): UCP lookup_catalog's note.
    `product` is anything with `name`, `tier`, `kinds` and `measures` (a products row)."""
    understood = found.understood
    if understood is None:
        return ""
    substitutes = []
    for size in checkable(understood.sizes):
        if not states_size(size, product):
            value = measure_of(product, size.quantity)
            substitutes.append(Substitute(size, None if value is None else Size(size.quantity, value, ())))
    offered = kinds_of([product], understood.concepts)
    lead = say.absences(
        say.company_lists_no(business_name),
        _subject([r.label for r in offered], ()),
        kinds=[r.label for r in understood.concepts if r not in offered],
        brands=[keyword for keyword in found.unmatched if keyword in _BRANDS],
        substitutes=substitutes,
        tiers=understood.tiers if understood.tiers and product.tier not in understood.tiers else (),
        features=found.unstated,
    )
    return lead.strip()
