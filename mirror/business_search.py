"""Install-wide read-side queries over the businesses in the business feed.

The provider MCP server answers for exactly the companies the business feed
lists (`Company.in_feed`: public, quote and feed switches on, complete contact
data), so every query here starts from that flag and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from mirror.catalog_search import query_terms
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
    companies = session.scalars(
        select(Company).where(Company.in_feed.is_(True), Company.is_public.is_(True))
        .order_by(Company.name, Company.plugin_key)
    ).all()
    if postal_code is not None:
        companies = [c for c in companies if postal_code in (c.service_postal_codes or [])]
    groups = _groups_of(session, [c.plugin_key for c in companies])
    wanted = _category_matcher(category)
    terms = query_terms(query) if query else []
    matches = []
    for company in companies:
        own = groups.get(company.plugin_key, [])
        group = next((g for g in own if wanted(g)), None) if category is not None else None
        if category is not None and group is None:
            continue
        score = _query_score(company, own, terms)
        if terms and score == 0:
            continue
        matches.append((-score, BusinessMatch(company=company, group=group, category_count=len(own))))
    matches.sort(key=lambda pair: pair[0])  # stable: name order kept within a score
    return [m for _, m in matches[:limit]], len(matches)


def _groups_of(session: Session, keys: list[str]) -> dict[str, list[OfferGroup]]:
    groups: dict[str, list[OfferGroup]] = {}
    for start in range(0, len(keys), 500):  # bounded IN lists
        chunk = keys[start:start + 500]
        for group in session.scalars(
            select(OfferGroup).where(OfferGroup.plugin_key.in_(chunk)).order_by(OfferGroup.category_slug)
        ):
            groups.setdefault(group.plugin_key, []).append(group)
    return groups


def _category_matcher(category: str | None):
    wanted = (category or "").strip().lower()
    return lambda group: group.category_slug == wanted or group.category_name.lower() == wanted


def _query_score(company: Company, groups: list[OfferGroup], terms: list[str]) -> int:
    """Terms found in the name count most, then trades, then the categories sold."""
    if not terms:
        return 0
    name = set(query_terms(company.name))
    trades = {t.lower() for t in company.trades or []}
    categories = set()
    for group in groups:
        categories |= set(query_terms(f"{group.category_name} {group.category_slug}"))
    score = 0
    for term in terms:
        score += 3 if term in name else 2 if term in trades else 1 if term in categories else 0
    return score
