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

from dataclasses import dataclass, fields
from datetime import datetime
from functools import lru_cache

from sqlalchemy import (
    String,
    and_,
    any_,
    bindparam,
    case,
    cast,
    distinct,
    exists,
    false,
    func,
    literal_column,
    or_,
    select,
    true,
    union_all,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, aggregate_order_by
from sqlalchemy.orm import Session

from mirror.query import UnderstoodQuery, understand
from mirror.query.concepts import catalog_match, trade_concepts
from mirror.query.understand import Recognised
from mirror.store import fulltext as ft
from mirror.store.db import planned_per_call, rows_by_name, statement_rows
from mirror.store.models import KEY_LENGTH, Company, CompanyConcept, OfferGroup


@dataclass(frozen=True, slots=True)
class FeedBusiness:
    """What a search result shows of a feed business (and what `company_open` and the freshness rule read)."""

    plugin_key: str
    name: str
    address: dict | None
    trades: list | None
    is_public: bool
    channels: dict | None
    last_synced_at: datetime | None


@dataclass(frozen=True, slots=True)
class CategoryPrices:
    """One business's published price range for the asked category.

    Its offer group of that category (`kind` None); else, when the category
    names a kind of product the business sells under another name ("heat
    pump" for its "HP & Air Handler"), the range of its public products of
    that kind only (`kind` its label), under the category holding the
    cheapest of them: never a whole group's range under a kind it is not.
    """

    category_name: str
    category_slug: str
    price_low_cents: int
    price_high_cents: int
    offer_count: int
    currency: str
    kind: str | None = None


@dataclass(frozen=True)
class BusinessMatch:
    """A feed business that matched, with the offer group of the asked category (if any)."""

    company: FeedBusiness
    group: CategoryPrices | None
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
    kind: bool = False  # `category_name` is the label of the kind asked (not a business's own category)


@dataclass(frozen=True)
class BusinessSearch:
    """The matches (at most `limit`), how many in all, the ZIP searched and how the keywords were read."""

    matches: list[BusinessMatch]
    total: int
    postal_code: str | None
    understood: UnderstoodQuery | None
    spread: PriceSpread | None = None  # with a category: its prices across all the matches (not only the page)


@dataclass(frozen=True)
class _Shape:
    """What a search's statement is made of, without its values: one statement is built per shape and reused."""

    concept_trades: tuple[int, ...] = ()  # per concept named: how many trades install it
    trades: int = 0  # trades named
    terms: int = 0  # keywords, as full-text terms
    postal_code: bool = False
    category: bool = False
    category_kind: bool = False  # the category names a kind of product (`asked_kind`)

    @property
    def asks(self) -> bool:
        return bool(self.concept_trades or self.trades or self.terms)


def search_feed_businesses(
    session: Session,
    *,
    postal_code: str | None = None,
    category: str | None = None,
    query: str | None = None,
    limit: int = 10,
) -> BusinessSearch:
    """Feed businesses serving `postal_code`, selling `category`, answering `query`.

    `category` is a slug or a category name (case-insensitive), or a kind of
    product in a homeowner's words ("heat pump" finds the business whose
    category is "HP & Air Handler": `asked_kind`). `query` goes
    through the query step (mirror/query): "plumber" finds businesses with
    the plumbing trade, "AC repair" those selling air conditioners (then the
    HVAC ones), "water heater installation" those selling water heaters;
    a ZIP in it is the postal code when none is given. Returns the first
    `limit` matches (best first, then by name and key) and the number of
    matches in all.

    Every filter is inside one statement, on an index or a tag the sync
    keeps (the ZIPs a business serves, the kinds of product it sells,
    mirror/sync/concepts.py), and only the page's businesses are read, with
    their asked category's prices, in that same statement, beside the
    category's range across all the matches (one aggregate over their
    offer groups and tags, never their products): a question with a ZIP
    costs about the same on 45 businesses and on 10,000; one without reads
    the category's businesses as a set. The statement is built once per
    shape of question (`_Shape`) and its values bound.
    """
    understood = understand(query) if query else None
    if understood is not None and postal_code is None:
        postal_code = understood.postal_code
    shape, params = _shape_and_values(understood, postal_code, category)
    page = _statements(shape)
    rows = rows_by_name(page, statement_rows(session, page, params | {"limit": limit}))
    matches = [_match(row) for row in rows]
    total = rows[0].total if rows else 0
    spread = _spread(rows[0].spread, matches, params.get("category_label")) if shape.category and rows else None
    return BusinessSearch(matches, total, postal_code, understood, spread)


_BUSINESS_FIELDS = tuple(field.name for field in fields(FeedBusiness))
_BUSINESS_COLUMNS = tuple(getattr(Company, name) for name in _BUSINESS_FIELDS)
_GROUP_FIELDS = tuple(field.name for field in fields(CategoryPrices))


def _match(row) -> BusinessMatch:
    group = getattr(row, "asked_group", None)  # a column only when a category is asked
    return BusinessMatch(
        company=FeedBusiness(**{name: getattr(row, name) for name in _BUSINESS_FIELDS}),
        group=CategoryPrices(**{name: group[name] for name in _GROUP_FIELDS if name in group}) if group else None,
        category_count=row.categories,
    )


def _shape_and_values(understood: UnderstoodQuery | None, postal_code: str | None, category: str | None):
    """The question's shape and the values its statement binds."""
    params: dict = {}
    concept_trades: list[int] = []
    trades = terms = 0
    if understood is not None:
        for i, (recognised, members) in enumerate(zip(understood.concepts, _concept_members(understood), strict=True)):
            params[f"sells_{i}"] = _slugs(members)
            for j, trade in enumerate(recognised.trades):
                params[f"concept_{i}_trade_{j}"] = _trade_query(trade)
            concept_trades.append(len(recognised.trades))
        for i, trade in enumerate(understood.trades):
            members = tuple(m for slug in trade_concepts(trade, understood.kind) for m in catalog_match(slug))
            params[f"trade_{i}"] = _trade_query(trade)
            params[f"trade_{i}_sells"] = _slugs(members)
            trades += 1
        found = list(dict.fromkeys(ft.Term.of(words) for words in map(ft.words, understood.keywords) if words))
        for i, term in enumerate(found[: ft.MAX_TERMS]):
            params[f"name_{i}"] = ft.term_query(term, "A", compact=False)
            params[f"trades_{i}"] = ft.term_query(term, "B", compact=False)
            params[f"category_{i}"] = ft.term_query(term, compact=False)
            terms += 1
    if postal_code is not None:
        params["postal_code"] = postal_code
    kind = None
    if category is not None:
        params["category"] = category.strip().lower()
        kind = asked_kind(category)
    if kind is not None:
        members = catalog_match(kind.slug)
        params["category_sells"] = _slugs(members)
        params["category_label"] = kind.label
    shape = _Shape(
        tuple(concept_trades), trades, terms, postal_code is not None, category is not None, kind is not None
    )
    return shape, params


def asked_kind(category: str) -> Recognised | None:
    """The kind of product a category argument names in a homeowner's words ("heat pump", "HP", "water
    heaters"), read by the query step; None when it names none. The first kind when it names several: a
    category is one kind."""
    concepts = understand(category).concepts
    return concepts[0] if concepts else None


def _slugs(members: tuple) -> list[str]:
    return sorted({member.slug for member in members})


def _trade_query(trade: str) -> str:
    return ft.term_query(ft.Term.of([trade]), "B", compact=False)


@lru_cache(maxsize=256)
def _statements(shape: _Shape):
    """The page statement for one shape of question."""
    conditions = [Company.in_feed.is_(True)]
    if shape.postal_code:
        conditions.append(_serves())
    if shape.category:
        conditions.append(_sells_category(shape))
        return planned_per_call(_category_page(shape, conditions))
    matched = _matched(shape, conditions).subquery("matched")
    page = (
        select(*_BUSINESS_COLUMNS, func.count().over().label("total"), _CATEGORIES.label("categories"))
        .join(matched, matched.c.plugin_key == Company.plugin_key)
        .order_by(matched.c.score.desc(), Company.name, Company.plugin_key)
        .limit(bindparam("limit"))
    )
    return planned_per_call(page)


# How many categories (offer groups) a business lists.
_CATEGORIES = select(func.count()).where(OfferGroup.plugin_key == Company.plugin_key).scalar_subquery()


def _category_page(shape: _Shape, conditions: list):
    """With a category asked: the page, each business with its prices of the category (`_asked_group`), and on
    every row the category's range across all the matches (`_spread_of`).

    The matches are one materialised set (key, score, name, currency) that both read: the page is its
    first `limit` by score and name, then those businesses' rows, and the range one aggregate over it.
    Inlined, the page's LIMIT led the planner to walk every business in name order against the category
    (it misses that counting the matches reads them all), and a second statement read the set again.
    """
    found = _matched(shape, conditions, (Company.name, Company.currency)).cte("found").prefix_with("MATERIALIZED")
    top = (
        select(found.c.plugin_key, found.c.score, func.count().over().label("total"))
        .order_by(found.c.score.desc(), found.c.name, found.c.plugin_key)
        .limit(bindparam("limit"))
        .subquery("top")
    )
    columns = (
        *_BUSINESS_COLUMNS,
        top.c.total,
        _CATEGORIES.label("categories"),
        _asked_group(shape.category_kind).label("asked_group"),
        _spread_of(found, shape.category_kind).label("spread"),
    )
    return (
        select(*columns)
        .join(top, top.c.plugin_key == Company.plugin_key)
        .order_by(top.c.score.desc(), Company.name, Company.plugin_key)
    )


def _asked_group(kind: bool):
    """The business's first offer group (by slug) of the asked category, as one JSON object; with a `kind`
    asked, else its prices of that kind (`_kind_prices`). Read for the page's rows only (past its LIMIT)."""
    group = func.json_build_object(
        *(part for name in _GROUP_FIELDS if name != "kind" for part in (name, getattr(OfferGroup, name)))
    )
    exact = (
        select(group)
        .where(OfferGroup.plugin_key == Company.plugin_key, _is_category())
        .order_by(OfferGroup.category_slug)
        .limit(1)
        .scalar_subquery()
    )
    return func.coalesce(exact, _kind_prices()) if kind else exact


def _kind_prices():
    """The business's public products of the asked kind: their range and count, under the category of the
    cheapest, as one JSON object (NULL when it has none).

    From its concept tags of the kind's slugs, which the sync writes with those products' prices
    (mirror/sync/concepts.py): one row per slug, never its products. A kind of several slugs ("water heater":
    tank, tankless...) adds their counts: a product stored as two of them counts twice.
    """
    cheapest = (CompanyConcept.price_low_cents, CompanyConcept.category_slug)
    prices = func.json_build_object(
        "category_name", func.array_agg(aggregate_order_by(CompanyConcept.category_name, *cheapest))[1],
        "category_slug", func.array_agg(aggregate_order_by(CompanyConcept.category_slug, *cheapest))[1],
        "price_low_cents", func.min(CompanyConcept.price_low_cents),
        "price_high_cents", func.max(CompanyConcept.price_high_cents),
        "offer_count", func.sum(CompanyConcept.offer_count),
        "currency", Company.currency,
        "kind", bindparam("category_label", type_=String),
    )  # fmt: skip
    mine = CompanyConcept.plugin_key == Company.plugin_key
    return select(prices).where(mine, _priced_tag()).having(func.count() > 0).scalar_subquery()


def _sells_category(shape: _Shape):
    """Whether the business has an offer group of the asked category; with a kind asked, or sells that kind
    (a concept tag of one of its slugs, mirror/sync/concepts.py).

    With a ZIP, each business serving it is probed on its keys (tens of them). Without, the category's
    businesses are one set read on the category's and the tags' indexes (migration 0015): probing each of
    the 10,005 feed businesses took 140-250 ms, and an OR of two probes was costed high enough for the
    planner to compile the statement (JIT, 55 ms more).
    """
    if shape.postal_code:
        has_category = exists().where(OfferGroup.plugin_key == Company.plugin_key, _is_category())
        sells = exists().where(CompanyConcept.plugin_key == Company.plugin_key, _of_kind())
        return or_(has_category, sells) if shape.category_kind else has_category
    grouped = Company.plugin_key.in_(select(OfferGroup.plugin_key).where(_is_category()))
    sells = Company.plugin_key.in_(select(CompanyConcept.plugin_key).where(_of_kind()))
    return or_(grouped, sells) if shape.category_kind else grouped


def _of_kind():
    """A concept tag of one of the asked kind's slugs (bound as `category_sells`)."""
    return CompanyConcept.concept == any_(bindparam("category_sells", type_=ARRAY(String)))


def _priced_tag():
    """A concept tag of the asked kind with its prices (an older release's scheduler, during an upgrade, writes
    tags without them: mirror/sync/concepts.py `TAG_SHAPE`)."""
    return and_(_of_kind(), CompanyConcept.offer_count.is_not(None))


def _matched(shape: _Shape, conditions: list, extra: tuple = ()):
    """(plugin_key, score, *`extra` columns of the company) of every business the conditions and the question
    match.

    The question's points are computed once per business, in a materialised
    CTE (inlined, Postgres evaluated every case of the score three times: in
    the filter, the order and the output).
    """
    # Words that name nothing to look for ("who works in 63376?") filter nothing but their ZIP.
    if not shape.asks:
        return select(Company.plugin_key, literal_column("0").label("score"), *extra).where(*conditions)
    named, keywords = _query_points(shape)
    scored = select(Company.plugin_key, named.label("named"), keywords.label("keywords"), *extra)
    scored = scored.select_from(Company).join(_TAGS, true())  # each business's tags as one array (`_sells`), by key
    scored = scored.where(*conditions).cte("scored").prefix_with("MATERIALIZED")
    # A business with none of what was named does not match on keywords alone.
    needed = scored.c.named if shape.concept_trades or shape.trades else scored.c.keywords
    score = (scored.c.named + scored.c.keywords).label("score")
    return select(scored.c.plugin_key, score, *(scored.c[column.key] for column in extra)).where(needed > 0)


def _spread_of(found, kind: bool):
    """The asked category's range across every business `found` (key, currency), as one JSON object: their
    offer groups of the category; with a `kind` asked, and for each business with none, its prices of that
    kind (its tags, as `_kind_prices`). One aggregate over those groups and tags, computed once per
    statement, never a subquery per business."""
    keys = select(found.c.plugin_key)
    groups = select(
        OfferGroup.plugin_key,
        OfferGroup.price_low_cents.label("low"),
        OfferGroup.price_high_cents.label("high"),
        OfferGroup.currency,
        false().label("by_kind"),
    ).where(OfferGroup.plugin_key.in_(keys), _is_category())
    each = groups
    if kind:
        has_category = exists().where(OfferGroup.plugin_key == CompanyConcept.plugin_key, _is_category())
        tags = (
            select(
                CompanyConcept.plugin_key,
                CompanyConcept.price_low_cents,
                CompanyConcept.price_high_cents,
                found.c.currency,
                true(),
            )
            .join(found, found.c.plugin_key == CompanyConcept.plugin_key)
            .where(_priced_tag(), ~has_category)
        )
        each = union_all(groups, tags)
    each = each.subquery("each")
    spread = func.json_build_object(
        "low", func.min(each.c.low),
        "high", func.max(each.c.high),
        "businesses", func.count(distinct(each.c.plugin_key)),
        "currencies", func.count(distinct(each.c.currency)),
        "currency", func.min(each.c.currency),
        "by_kind", func.count().filter(each.c.by_kind),
    )  # fmt: skip
    return select(spread).scalar_subquery()


def _spread(spread: dict, page: list[BusinessMatch], kind_label: str | None) -> PriceSpread | None:
    """The asked category's prices across every business matched (not only the page): under the first
    group's name when every business had the category itself, else under the kind's label (one business's
    own category name is no label for another's products of that kind)."""
    first = next((m.group for m in page if m.group is not None), None)
    if not spread["businesses"] or first is None:
        return None
    currency = spread["currency"] if spread["currencies"] == 1 else None
    by_kind = bool(spread["by_kind"])
    named = kind_label if by_kind and kind_label else first.category_name
    return PriceSpread(named, spread["low"], spread["high"], spread["businesses"], currency, kind=by_kind)


def _serves():
    """Whether a business lists the asked ZIP among the ZIPs it serves (on a GIN index, migration 0009)."""
    asked = cast(func.json_build_array(bindparam("postal_code", type_=String)), JSONB)
    return cast(Company.service_postal_codes, JSONB).op("@>")(asked)


def _is_category():
    """An offer group of the asked category (bound lower-cased and stripped): its slug, or its name in any case."""
    wanted = bindparam("category", type_=String)
    return or_(OfferGroup.category_slug == wanted, func.lower(OfferGroup.category_name) == wanted)


def _query_points(shape: _Shape):
    """(points for what was named, points for the keywords) of a business, in SQL.

    Each concept named: 2 when the business sells it (a public product that is it), else 1 when it has one of
    the concept's trades. Each trade named: 2 when the business has it, else 1 when it sells a
    category of that trade. Each keyword: 3 in the name, else 2 in the trades, else 1 in a category
    sold. A question naming concepts or trades needs one of those to score; keywords alone, any.
    """
    named = []
    for i, trades in enumerate(shape.concept_trades):
        sells = _sells(f"sells_{i}")
        if trades:
            has_trade = or_(*(_has_trade(f"concept_{i}_trade_{j}") for j in range(trades)))
            named.append(case((sells, 2), (has_trade, 1), else_=0))
        else:
            named.append(case((sells, 2), else_=0))
    for i in range(shape.trades):
        named.append(case((_has_trade(f"trade_{i}"), 2), (_sells(f"trade_{i}_sells"), 1), else_=0))
    keywords = []
    for i in range(shape.terms):
        name, trades, category = _term_matches(i)
        keywords.append(case((name, 3), (trades, 2), (category, 1), else_=0))
    return sum(named, start=literal_column("0")), sum(keywords, start=literal_column("0"))


def _concept_members(understood: UnderstoodQuery) -> list[tuple]:
    return [catalog_match(r.slug) for r in understood.concepts]


def _sells(name: str):
    """Whether the business has a public product of the kinds bound as `name` (their slugs): its concept tags.

    The business's tags, aggregated once per business by key (`_TAGS`), against one array: no subplan
    (Postgres hashed every tag of the asked concepts per question, 45 ms on 10,000 businesses even when
    the ZIP left 54). The array is one parameter, so the statement's text is the same whatever the
    concepts. An empty array matches nothing.
    """
    return _TAGS.c.concepts.op("&&")(bindparam(name, type_=ARRAY(String)))


# A business's concept tags as one array, read by key (the primary key starts with it).
_TAGS = (
    select(func.array_agg(CompanyConcept.concept).label("concepts"))
    .where(CompanyConcept.plugin_key == Company.plugin_key)
    .lateral("tags")
)


def _has_trade(name: str):
    """Whether the business lists the trade bound as `name` (its full-text query) among its trades."""
    return ft.matches("companies", None, name)


def _term_matches(i: int):
    """(in the name, in the trades, in a category sold) for the `i`th keyword term."""
    in_category = exists().where(
        OfferGroup.plugin_key == Company.plugin_key,
        ft.matches("offer_groups", None, f"category_{i}"),
    )
    return (
        ft.matches("companies", None, f"name_{i}"),
        ft.matches("companies", None, f"trades_{i}"),
        in_category,
    )
