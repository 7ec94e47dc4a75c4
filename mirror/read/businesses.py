"""The businesses of the business feed, found by ZIP, category and a question (the provider's search_businesses).

The provider MCP server answers for exactly the companies the business feed
lists (`Company.in_feed`, which the sync sets in the same commit as the facts
it is made of: public, quote and feed switches on, complete contact data;
mirror/catalog/feed_facts.py), so every query here starts from that flag and nothing
else.

A query goes through the query step (mirror/query): the kinds of product it
names are matched against the kinds a business sells (the concept tags the
sync makes from its public products with the catalog search's match,
mirror/sync/concepts.py) and its trades, the trades it names against the
business's trades, and the keywords left against the business's name, trades
and categories on the database's full-text index (mirror/store/fulltext.py),
stemmed and by prefix like the catalog search (`_query_points` has the points).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import String, case, cast, distinct, exists, false, func, literal, literal_column, or_, select, true
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Session

from mirror.query import UnderstoodQuery, understand
from mirror.query.concepts import catalog_match, trade_concepts
from mirror.store import fulltext as ft
from mirror.store.db import planned_per_call
from mirror.store.models import KEY_LENGTH, Company, CompanyConcept, OfferGroup


@dataclass(frozen=True)
class BusinessMatch:
    """A feed business that matched, with the offer group of the asked category (if any)."""

    company: Company
    group: OfferGroup | None
    category_count: int


def find_feed_company(session: Session, business_id: str) -> Company | None:
    """The company with this pluginKey when it is in the business feed, else None."""
    if not business_id or len(business_id) > KEY_LENGTH:
        return None
    company = session.get(Company, business_id)
    return company if company is not None and company.in_feed else None


@dataclass(frozen=True)
class PriceSpread:
    """The asked category's published prices across every match: lowest, highest, how many businesses."""

    category_name: str
    price_low_cents: int
    price_high_cents: int
    business_count: int
    currency: str | None  # None when the businesses publish in more than one currency


@dataclass(frozen=True)
class BusinessSearch:
    """The matches (at most `limit`), how many in all, the ZIP searched and how the keywords were read."""

    matches: list[BusinessMatch]
    total: int
    postal_code: str | None
    understood: UnderstoodQuery | None
    spread: PriceSpread | None = None  # with a category: its prices across all the matches (not only the page)


def search_feed_businesses(
    session: Session,
    *,
    postal_code: str | None = None,
    category: str | None = None,
    query: str | None = None,
    limit: int = 10,
) -> BusinessSearch:
    """Feed businesses serving `postal_code`, selling `category`, answering `query`.

    `category` is a slug or a category name (case-insensitive). `query` goes
    through the query step (mirror/query): "plumber" finds businesses with
    the plumbing trade, "AC repair" those selling air conditioners (then the
    HVAC ones), "water heater installation" those selling water heaters;
    a ZIP in it is the postal code when none is given. Returns the first
    `limit` matches (best first, then by name and key) and the number of
    matches in all.

    Every filter is inside one statement, on an index or a tag the sync
    keeps (the ZIPs a business serves, the kinds of product it sells,
    mirror/sync/concepts.py), and only the page's businesses are read whole:
    a question costs about the same on 45 businesses and on 10,000.
    """
    understood = understand(query) if query else None
    if understood is not None and postal_code is None:
        postal_code = understood.postal_code
    conditions = [Company.in_feed.is_(True)]
    if postal_code is not None:
        conditions.append(_serves(postal_code))
    if category is not None:
        conditions.append(exists().where(OfferGroup.plugin_key == Company.plugin_key, _is_category(category)))
    matched = _matched(understood, conditions).subquery("matched")
    statement = (
        select(Company, func.count().over().label("total"))
        .join(matched, matched.c.plugin_key == Company.plugin_key)
        .order_by(matched.c.score.desc(), Company.name, Company.plugin_key)
        .limit(limit)
    )
    rows = session.execute(planned_per_call(statement)).all()
    total = rows[0].total if rows else 0
    groups = _groups_of(session, [company.plugin_key for company, _ in rows])
    wanted = _category_matcher(category)
    matches = []
    for company, _ in rows:
        own = groups.get(company.plugin_key, [])
        group = next((g for g in own if wanted(g)), None) if category is not None else None
        matches.append(BusinessMatch(company=company, group=group, category_count=len(own)))
    spread = _spread(session, matched, category, matches) if category is not None and matches else None
    return BusinessSearch(matches, total, postal_code, understood, spread)


def _matched(understood: UnderstoodQuery | None, conditions: list):
    """(plugin_key, score) of every business the conditions and the question match.

    The question's points are computed once per business, in a materialised
    CTE (inlined, Postgres evaluated every case of the score three times: in
    the filter, the order and the output).
    """
    points = _query_points(understood) if understood is not None else None
    # Words that name nothing to look for ("who works in 63376?") filter nothing but their ZIP.
    if points is None:
        return select(Company.plugin_key, literal_column("0").label("score")).where(*conditions)
    named, keywords = points
    scored = select(Company.plugin_key, named.label("named"), keywords.label("keywords"))
    scored = scored.select_from(Company).join(_TAGS, true())  # each business's tags as one array (`_sells`), by key
    scored = scored.where(*conditions).cte("scored").prefix_with("MATERIALIZED")
    # A business with none of what was named does not match on keywords alone.
    needed = scored.c.named if understood.concepts or understood.trades else scored.c.keywords
    return select(scored.c.plugin_key, (scored.c.named + scored.c.keywords).label("score")).where(needed > 0)


def _spread(session: Session, matched, category: str, page: list[BusinessMatch]) -> PriceSpread | None:
    """The asked category's prices across every business matched (not only the page)."""
    low, high, businesses, currencies, currency = session.execute(
        planned_per_call(
            select(
                func.min(OfferGroup.price_low_cents),
                func.max(OfferGroup.price_high_cents),
                func.count(distinct(OfferGroup.plugin_key)),
                func.count(distinct(OfferGroup.currency)),
                func.min(OfferGroup.currency),
            ).where(OfferGroup.plugin_key.in_(select(matched.c.plugin_key)), _is_category(category))
        )
    ).one()
    first = next((m.group for m in page if m.group is not None), None)
    if not businesses or first is None:
        return None
    return PriceSpread(first.category_name, low, high, businesses, currency if currencies == 1 else None)


def _serves(postal_code: str):
    """Whether a business lists `postal_code` among the ZIPs it serves (on a GIN index, migration 0009)."""
    return cast(Company.service_postal_codes, JSONB).op("@>")(cast(func.json_build_array(postal_code), JSONB))


def _groups_of(session: Session, keys: list[str]) -> dict[str, list[OfferGroup]]:
    groups: dict[str, list[OfferGroup]] = {}
    statement = select(OfferGroup).where(OfferGroup.plugin_key.in_(keys)).order_by(OfferGroup.category_slug)
    for group in session.scalars(statement) if keys else ():
        groups.setdefault(group.plugin_key, []).append(group)
    return groups


def _is_category(category: str):
    """An offer group of the asked category: its slug, or its name in any case (the SQL of `_category_matcher`)."""
    wanted = category.strip().lower()
    return or_(OfferGroup.category_slug == wanted, func.lower(OfferGroup.category_name) == wanted)


def _category_matcher(category: str | None):
    wanted = (category or "").strip().lower()
    return lambda group: group.category_slug == wanted or group.category_name.lower() == wanted


def _query_points(understood: UnderstoodQuery):
    """(points for what was named, points for the keywords) of a business, in SQL; None when nothing is asked.

    Each concept named: 2 when the business sells it (a public product that is it), else 1 when it has one of
    the concept's trades. Each trade named: 2 when the business has it, else 1 when it sells a
    category of that trade. Each keyword: 3 in the name, else 2 in the trades, else 1 in a category
    sold. A question naming concepts or trades needs one of those to score; keywords alone, any.
    """
    named = []
    for i, (recognised, members) in enumerate(zip(understood.concepts, _concept_members(understood), strict=True)):
        sells = _sells(members)
        has_trade = or_(*(_has_trade(trade, f"concept_{i}_trade_{j}") for j, trade in enumerate(recognised.trades)))
        named.append(case((sells, 2), (has_trade, 1), else_=0) if recognised.trades else case((sells, 2), else_=0))
    for i, trade in enumerate(understood.trades):
        members = tuple(m for slug in trade_concepts(trade, understood.kind) for m in catalog_match(slug))
        named.append(case((_has_trade(trade, f"trade_{i}"), 2), (_sells(members), 1), else_=0))
    terms = list(dict.fromkeys(ft.Term.of(found) for found in map(ft.words, understood.keywords) if found))[
        : ft.MAX_TERMS
    ]
    keywords = []
    for i, term in enumerate(terms):
        name, trades, category = _term_matches(term, i)
        keywords.append(case((name, 3), (trades, 2), (category, 1), else_=0))
    if not named and not keywords:
        return None
    return sum(named, start=literal_column("0")), sum(keywords, start=literal_column("0"))


def _concept_members(understood: UnderstoodQuery) -> list[tuple]:
    return [catalog_match(r.slug) for r in understood.concepts]


def _sells(members: tuple):
    """Whether the business has a public product that is one of `members`: its concept tags (mirror/sync/concepts.py)."""
    if not members:
        return false()
    slugs = sorted({member.slug for member in members})
    # The business's tags, aggregated once per business by key (`_TAGS`), against one array: no subplan
    # (Postgres hashed every tag of the asked concepts per question, 45 ms on 10,000 businesses even when
    # the ZIP left 54). The array is one parameter, so the statement's text is the same whatever the
    # concepts (one element parameter each made a text per list length: "plumbing hvac" and "hvac
    # plumbing" compiled, and were parsed, as two statements).
    return _TAGS.c.concepts.op("&&")(literal(slugs, type_=ARRAY(String)))


# A business's concept tags as one array, read by key (the primary key starts with it).
_TAGS = (
    select(func.array_agg(CompanyConcept.concept).label("concepts"))
    .where(CompanyConcept.plugin_key == Company.plugin_key)
    .lateral("tags")
)


def _has_trade(trade: str, name: str):
    """Whether the business lists `trade` (a mirror.catalog.trades slug) among its trades."""
    term = ft.Term.of([trade])
    return ft.pg_matches("companies", ft.pg_term_query(term, "B", compact=False), name)


def _term_matches(term: ft.Term, i: int):
    """(in the name, in the trades, in a category sold) for one term."""
    query = ft.pg_term_query(term, compact=False)
    in_category = exists().where(
        OfferGroup.plugin_key == Company.plugin_key,
        ft.pg_matches("offer_groups", query, f"category_{i}"),
    )
    return (
        ft.pg_matches("companies", ft.pg_term_query(term, "A", compact=False), f"name_{i}"),
        ft.pg_matches("companies", ft.pg_term_query(term, "B", compact=False), f"trades_{i}"),
        in_category,
    )
