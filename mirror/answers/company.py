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
  tier among the products of the size asked (or an accessory's price span);
- no match: nothing found: what the contractor does publish prices for
  (the search's own no-match message);
- nothing asked: no word to look for ("hello").
Every answer says which words it did not understand (the query step's
unrecognised words) and which named nothing here, rather than guessing; a
ZIP named beside a product question adds whether it is served.

`company` is the gate entry the surface was let through with (its reads are
checked against the gate state and raise StateMoved; the caller retries at
the refreshed state) or a bare key; `view` is that state's public view.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy.orm import Session

from mirror.answers import sentences as say
from mirror.answers.products import cheapest_by_tier, checkable, of_sizes, of_tiers, span
from mirror.catalog.public_view import CategoryView, CompanyView
from mirror.catalog.trades import SYSTEM, TIERS
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
    tail = _coverage(name, postal_code, served) + say.not_understood(understood.unrecognised, found.unmatched)
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


def _subject(understood: UnderstoodQuery) -> str:
    """What was asked, as a noun phrase: "3-ton heat pump", "MERV 13 air filter" ("" when no kind was named)."""
    labels = list(dict.fromkeys(r.label for r in understood.concepts))
    if not labels:
        return ""
    sizes = [say.size_label(s) for s in checkable(understood.sizes)]
    return " ".join((*sizes, say.listing(labels)))


def _products(session: Session, company, category: CategoryView, found: CatalogSearch, understood: UnderstoodQuery):
    """The category's products the search found, of the sizes asked when any states them; and a note when none does."""
    hit_skus = {hit.sku for hit in found.hits}
    products = [p for p in category_products(session, company, category.slug) if p.sku in hit_skus]
    sizes = checkable(understood.sizes)
    if not sizes:
        return products, ""
    sized = of_sizes(products, sizes)
    if sized:
        return sized, ""
    return products, say.size_missing(_subject(replace(understood, sizes=())), sizes)


def _price(session, company, view, found, understood, categories, served, tail) -> CompanyAnswer:
    name, currency = view.business.name, view.currency
    parts, answered = [], []
    for category in categories:
        check_deadline()
        products, note = _products(session, company, category, found, understood)
        products = of_tiers(products, understood.tiers) or products
        if not products:
            continue
        tiers = []
        if category.kind == SYSTEM:
            tiers = [(tier, p.price_cents) for tier, p in cheapest_by_tier(products) if p is not None]
        parts.append(
            say.price_sentence(name, _subject(understood), category.name, tiers, span(products), currency) + note
        )
        answered.append(category)
    sentence = " ".join(parts) + say.price_note(name, view.price_description) + tail + say.quote_clause(view.quote_url)
    return CompanyAnswer(PRICE, sentence, understood, tuple(answered), served)


def _comparison(session, company, view, found, understood, category, served, tail) -> CompanyAnswer:
    name, currency = view.business.name, view.currency
    products, note = _products(session, company, category, found, understood)
    if category.kind != SYSTEM or not any(p.tier for p in products):
        sentence = say.no_tiers_sentence(name, category.name, span(products), currency)
    else:
        tiers = [t for t in TIERS if t in understood.tiers] if len(understood.tiers) >= 2 else list(TIERS)
        rows = [
            (tier, p.price_cents if p else None, p.name if p else None) for tier, p in cheapest_by_tier(products, tiers)
        ]
        sentence = say.comparison_sentence(name, category.name, rows, currency)
    sentence += note + say.price_note(name, view.price_description) + tail + say.quote_clause(view.quote_url)
    return CompanyAnswer(COMPARISON, sentence, understood, (category,), served)


def _included(view, found, understood, served, tail) -> CompanyAnswer:
    hit = found.hits[0]
    category = view.category(hit.category_slug)
    sentence = say.included_sentence(
        view.business.name, view.price_description, (hit.category_name, hit.name, hit.description)
    )
    sentence += tail + say.quote_clause(view.quote_url)
    return CompanyAnswer(INCLUDED, sentence, understood, (category,) if category else (), served)
