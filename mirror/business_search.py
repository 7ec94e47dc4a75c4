"""Install-wide read-side queries over the businesses in the business feed.

The provider MCP server answers for exactly the companies the business feed
lists (`Company.in_feed`: public, quote and feed switches on, complete contact
data), so every query here starts from that flag and nothing else.

Keywords are matched by the database's full-text index (mirror/fulltext.py):
each query term scores 3 when it is in the business's name, else 2 in its
trades, else 1 in the categories it sells (its offer groups), stemmed and by
prefix like the catalog search.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, exists, literal_column, select
from sqlalchemy.orm import Session

from mirror import fulltext as ft
from mirror.models import Company, OfferGroup

_MAX_KEY = 128


@dataclass(frozen=True)
class BusinessMatch:
    """A feed business that matched, with the offer group of the asked category (if any)."""

    company: Company
    group: OfferGroup | None
    category_count: int


def find_feed_company(session: Session, business_id: str) -> Company | None:
    """The company with this pluginKey when it is in the business feed, else None."""
    if not business_id or len(business_id) > _MAX_KEY:
        return None
    company = session.get(Company, business_id)
    return company if company is not None and company.in_feed and company.is_public else None


def search_feed_businesses(
    session: Session,
    *,
    postal_code: str | None = None,
    category: str | None = None,
    query: str | None = None,
    limit: int = 10,
) -> tuple[list[BusinessMatch], int]:
    """Feed businesses serving `postal_code`, selling `category`, matching `query`.

    `category` is a slug or a category name (case-insensitive). Returns the
    first `limit` matches (best query match first, then by name and key) and
    the number of matches in all.
    """
    terms = ft.search_terms(query) if query else []
    statement = select(Company).where(Company.in_feed.is_(True), Company.is_public.is_(True))
    score = _query_score(session.get_bind().dialect.name, terms) if terms else None
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
    return [m for _, m in matches[:limit]], len(matches)


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


def _query_score(dialect: str, terms: list[ft.Term]):
    """Per term: 3 in the name, else 2 in the trades, else 1 in a category sold; summed, in SQL."""
    points = []
    for i, term in enumerate(terms):
        name, trades, category = _term_matches(dialect, term, i)
        points.append(case((name, 3), (trades, 2), (category, 1), else_=0))
    return sum(points, start=literal_column("0")).label("score")


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
