"""The businesses of the business feed, found by ZIP, category and a question (the provider's search_businesses).

The provider MCP server answers for exactly the companies the business feed
lists (`Company.in_feed`, which the sync sets in the same commit as the facts
it is made of: public, quote and feed switches on, complete contact data;
mirror/businesses.py), so every query here starts from that flag and nothing
else.

A query goes through the query step (mirror/query): the kinds of product it
names are matched against the products a business sells (their names and
categories, as the catalog search matches them) and its trades, the trades it names against the business's trades,
and the keywords left against the business's name, trades and categories,
all on the database's full-text index (mirror/fulltext.py), stemmed and by
prefix like the catalog search (`_query_score` has the points).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, case, exists, false, literal_column, or_, select
from sqlalchemy.orm import Session

from mirror import fulltext as ft
from mirror.catalog import any_public_product
from mirror.models import KEY_LENGTH, Company, OfferGroup, Product
from mirror.query import UnderstoodQuery, understand
from mirror.query.concepts import catalog_match, trade_concepts


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
    """
    understood = understand(query) if query else None
    if understood is not None and postal_code is None:
        postal_code = understood.postal_code
    statement = select(Company).where(Company.in_feed.is_(True))
    # Words that name nothing to look for ("who works in 63376?") filter nothing but their ZIP.
    score = _query_score(session.get_bind().dialect.name, understood) if understood is not None else None
    if score is not None:
        statement = statement.add_columns(score).where(score > 0)
    rows = session.execute(statement.order_by(Company.name, Company.plugin_key)).all()
    scored = [(row[0], row[1] if score is not None else 0) for row in rows]
    if postal_code is not None:
        scored = [(c, s) for c, s in scored if postal_code in (c.service_postal_codes or [])]
    groups = _groups_of(session, [c.plugin_key for c, _ in scored])
    wanted = _category_matcher(category)
    matches = []
    for company, points in scored:
        own = groups.get(company.plugin_key, [])
        group = next((g for g in own if wanted(g)), None) if category is not None else None
        if category is not None and group is None:
            continue
        matches.append((-points, BusinessMatch(company=company, group=group, category_count=len(own))))
    matches.sort(key=lambda pair: pair[0])  # stable: name order kept within a score
    found = [m for _, m in matches]
    return BusinessSearch(found[:limit], len(found), postal_code, understood, _spread(found) if category else None)


def _spread(matches: list[BusinessMatch]) -> PriceSpread | None:
    groups = [m.group for m in matches if m.group is not None]
    if not groups:
        return None
    currencies = {g.currency for g in groups}
    return PriceSpread(
        category_name=groups[0].category_name,
        price_low_cents=min(g.price_low_cents for g in groups),
        price_high_cents=max(g.price_high_cents for g in groups),
        business_count=len(groups),
        currency=currencies.pop() if len(currencies) == 1 else None,
    )


def _groups_of(session: Session, keys: list[str]) -> dict[str, list[OfferGroup]]:
    groups: dict[str, list[OfferGroup]] = {}
    for start in range(0, len(keys), 500):  # bounded IN lists
        chunk = keys[start : start + 500]
        for group in session.scalars(
            select(OfferGroup).where(OfferGroup.plugin_key.in_(chunk)).order_by(OfferGroup.category_slug)
        ):
            groups.setdefault(group.plugin_key, []).append(group)
    return groups


def _category_matcher(category: str | None):
    wanted = (category or "").strip().lower()
    return lambda group: group.category_slug == wanted or group.category_name.lower() == wanted


def _query_score(dialect: str, understood: UnderstoodQuery):
    """A business's score for a question, in SQL; None when the question names nothing to look for.

    Each concept named: 2 when the business sells it (a public product that is it), else 1 when it has one of
    the concept's trades. Each trade named: 2 when the business has it, else 1 when it sells a
    category of that trade. Each keyword: 3 in the name, else 2 in the trades, else 1 in a category
    sold. A question naming concepts or trades needs one of those to score; keywords alone, any.
    """
    named = []
    for i, (recognised, members) in enumerate(zip(understood.concepts, _concept_members(understood), strict=True)):
        sells = _sells(dialect, members, f"concept_{i}")
        has_trade = or_(
            *(_has_trade(dialect, trade, f"concept_{i}_trade_{j}") for j, trade in enumerate(recognised.trades))
        )
        named.append(case((sells, 2), (has_trade, 1), else_=0) if recognised.trades else case((sells, 2), else_=0))
    for i, trade in enumerate(understood.trades):
        members = tuple(m for slug in trade_concepts(trade, understood.kind) for m in catalog_match(slug))
        named.append(
            case(
                (_has_trade(dialect, trade, f"trade_{i}"), 2),
                (_sells(dialect, members, f"trade_{i}_sells"), 1),
                else_=0,
            )
        )
    terms = list(dict.fromkeys(ft.Term.of(found) for found in map(ft.words, understood.keywords) if found))[
        : ft.MAX_TERMS
    ]
    keywords = []
    for i, term in enumerate(terms):
        name, trades, category = _term_matches(dialect, term, i)
        keywords.append(case((name, 3), (trades, 2), (category, 1), else_=0))
    if not named and not keywords:
        return None
    total = sum((*named, *keywords), start=literal_column("0"))
    if named:  # a business with none of what was named does not match on keywords alone
        total = case((sum(named, start=literal_column("0")) > 0, total), else_=0)
    return total.label("score")


def _concept_members(understood: UnderstoodQuery) -> list[tuple]:
    return [catalog_match(r.slug) for r in understood.concepts]


def _sells(dialect: str, members: tuple, name: str):
    """Whether the business has a public product that is one of `members` (by the products' names and categories)."""
    if not members:
        return false()
    public = and_(Product.plugin_key == Company.plugin_key, any_public_product())
    if dialect == "postgresql":
        query = ft.pg_concept_query(members, ft.CONCEPT_WEIGHTS)
        return exists().where(public, ft.pg_matches("products", query, name))
    products_fts = ft.FTS_TABLES["products"]
    rows = ft.fts_rowids(products_fts, ft.fts_concept_query(members, ft.CONCEPT_COLUMNS), name)
    return exists().where(public, literal_column("products.rowid").in_(rows))


def _has_trade(dialect: str, trade: str, name: str):
    """Whether the business lists `trade` (a mirror.trades slug) among its trades."""
    term = ft.Term.of([trade])
    if dialect == "postgresql":
        return ft.pg_matches("companies", ft.pg_term_query(term, "B", compact=False), name)
    companies_fts = ft.FTS_TABLES["companies"]
    query = ft.fts_term_query(term, compact_column=None)
    return literal_column("companies.rowid").in_(ft.fts_rowids(companies_fts, f"trades : {query}", name))


def _term_matches(dialect: str, term: ft.Term, i: int):
    """(in the name, in the trades, in a category sold) for one term."""
    if dialect == "postgresql":
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
    query = ft.fts_term_query(term, compact_column=None)
    rowid = literal_column("companies.rowid")
    companies_fts, groups_fts = ft.FTS_TABLES["companies"], ft.FTS_TABLES["offer_groups"]
    sellers = select(OfferGroup.plugin_key).where(
        literal_column("offer_groups.rowid").in_(ft.fts_rowids(groups_fts, query, f"category_{i}"))
    )
    return (
        rowid.in_(ft.fts_rowids(companies_fts, f"name : {query}", f"name_{i}")),
        rowid.in_(ft.fts_rowids(companies_fts, f"trades : {query}", f"trades_{i}")),
        Company.plugin_key.in_(sellers),
    )
