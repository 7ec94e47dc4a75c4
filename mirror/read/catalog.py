"""One company's catalog as the read layer serves it: the search, and the products of a category's tiers.

A read for a gated company (a `GateEntry`) also reads the company's stamp in
the same statement and raises `StateMoved` when the database is at another
state than the process's gate (mirror/read/company.py, `check_stamp`).

Catalog search answers what a question asks for (docs/search.md). The query
step (mirror/query) reads the question: the kinds of product it names
(concepts: "central air" is an air conditioner, "furnace filter" an air
filter), trades, sizes, tiers, price words, and the keywords left (brands,
model numbers). One statement over the database's full-text index
(mirror/store/fulltext.py; migration 0003: `ts_rank_cd` over a weighted tsvector under a
GIN index) returns the page of hits and
the number of matches, whatever the catalog size; only mirror.catalog.public_products's rule
decides which products are searched.

What matches:
- a question that names concepts (or a trade): the products that are one of
  them, by the kinds the sync read and stored with each product
  (`products.kinds`, mirror/query/product_reading.py: from its name,
  category, model numbers, specs keys and the trade's abbreviations; a
  product only mentioning "furnace" in its description is not a furnace); a
  product of which the sync could read no kind, by its names and category on
  the full-text index;
- otherwise its keywords, sizes and features: products matching any of them
  (a feature by the features the sync stored, `products.features`);
- a question of price, tier or kind words alone ("cheapest system"): every
  product (of that kind).
The order, best first:
1. products that are more of the concepts asked ("furnace and AC": the
   A/C & furnace systems first); then, of several concepts, each kind in
   turn, the best of each first (`_each_kind`, mirror/query/ranking.py);
2. products of the kind asked (a system question: systems before accessories);
3. products matching more of the rest: each keyword, each size (its stored
   `measures`: from `specs`, else the name), the tier asked ("best air
   conditioner"), each feature asked that it states ("wi-fi thermostat");
4. for each size asked, the nearest measure first;
5. efficiency asked ("most efficient furnace"): the rating the kind is judged
   by (its stored measure), highest first, then the tier, Best first;
6. the products that are only the kinds asked before those that are also
   another (an air conditioner before an A/C and furnace system);
7. price, when the question asks for an order ("cheapest heat pump");
8. a model number equal to the keywords, separators ignored (`ML17XP1-036`);
9. with keywords, their relevance: a word in the name or model numbers
   (weight A), the brand (B), the category, SKU or tier (C) outweighs one
   only in the description (D); concepts without keywords: the cheapest first;
10. then price, name and SKU, so ties are stable.
Words are stemmed (filters = filter) and keywords match by prefix from three
letters. When a keyword matched nothing, the catalog's spelling list
(mirror/read/words.py) corrects or splits it, and the search runs again with
what it meant ("lenox furnase" -> "lennox furnace"); two statements more,
only then.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from sqlalchemy import (
    Integer,
    Numeric,
    String,
    and_,
    bindparam,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    literal_column,
    or_,
    select,
    union,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import array as pg_array
from sqlalchemy.orm import Session

from mirror.catalog.public_products import public_products_filter, select_public_products
from mirror.catalog.trades import TIERS
from mirror.catalog.units import QUANTITIES, Size
from mirror.query import UnderstoodQuery, understand
from mirror.query.ranking import ratings_to_rank_by
from mirror.read.company import check_stamp, stamp_columns
from mirror.read.gate import GateEntry
from mirror.read.words import CatalogLexicon
from mirror.runtime.deadline import check_deadline
from mirror.store import fulltext as ft
from mirror.store.db import planned_per_call, rows_by_name, statement_rows
from mirror.store.models import Product

# ts_rank_cd weights for {D, C, B, A}: one word in the name outweighs the
# same word repeated throughout a description.
RANK_WEIGHTS = "{0.02,0.2,0.6,1.0}"
MAX_SIZES = 4
MAX_TIERS = 3
MAX_FEATURES = 4
# Matches ranked per search at most: beyond, the best are chosen among the products matching every
# keyword and the first MAX_RANKED the index finds, and the total says "more than MAX_RANKED" (`complete`).
# Ranking scores each candidate: 25,000 matches of "pump" on a 100,000-product company cost 600 ms ranked
# whole, about 30 ms with the pool (docs/search.md, "Bounded ranking").
MAX_RANKED = 1_000
# A catalog of at most this many public products (the gate's `offer_count`) is searched by reading its rows by
# the company's key and testing each (about 1 us a row), never on the full-text index: the index's prefix
# lookups (`pump:*`) collect every product of the mirror holding a word they begin before keeping the
# company's, so its cost grows with the mirror (16 ms for a 20-product company beside 300,000 products, against
# 0.5 ms for its rows). A larger catalog needs the index (a rare word among 100,000 products).
SMALL_CATALOG = 2_000
CONCEPTS, WORDS, BROWSE = "concepts", "words", "browse"
MATCHED = "matched"  # the search statement's column: per keyword searched, whether any product matched it


@dataclass(frozen=True)
class CatalogHit:
    """One public product that matched a search."""

    sku: str
    name: str
    brand: str | None
    category_name: str
    category_slug: str
    category_kind: str
    tier: str | None
    price_cents: int
    model_numbers: list[str]
    description: str | None


@dataclass(frozen=True)
class CatalogSearch:
    """The ranked hits (at most `limit`), how many products matched in all, and what the question was read as."""

    hits: list[CatalogHit]
    total: int
    terms: list[str]
    understood: UnderstoodQuery | None = None
    # The keywords no product matched (after any correction): "no Bosch here".
    unmatched: tuple[str, ...] = field(default=())
    # False: more than `total` products matched (MAX_RANKED); the hits are the best of those ranked.
    complete: bool = True
    # The features asked (mirror/query/ranking.py slugs) that no product ranked states ("no variable speed here").
    unstated: tuple[str, ...] = ()


def _words_of(terms: list[ft.Term]) -> list[str]:
    return list(dict.fromkeys(part for term in terms for part in term.parts))


@dataclass(frozen=True)
class _Filters:
    """What the caller filters on, beside the question: a category, a tier, a price ceiling."""

    category_slug: str | None = None
    tier: str | None = None
    max_price_cents: int | None = None


def search_catalog(
    session: Session,
    company: GateEntry | str,
    query: str | UnderstoodQuery,
    *,
    category_slug: str | None = None,
    tier: str | None = None,
    max_price_cents: int | None = None,
    limit: int = 10,
) -> CatalogSearch:
    """Public products of one company answering `query` (text, or an understood query), best first.

    `company`: its gate entry, or a bare key. One statement, its own
    snapshot (one autocommit round trip); when a keyword
    matched nothing, one lexicon lookup and, if it corrected something, one
    more search.
    """
    gated, plugin_key = _company(company)
    understood = query if isinstance(query, UnderstoodQuery) else understand(query)
    filters = _Filters(category_slug, tier, max_price_cents)
    found = _search(session, gated, plugin_key, understood, filters, limit)
    if found.unmatched and any(word.isalpha() for word in found.unmatched):
        check_deadline()  # the spelling step is the search's dearest: never started past the deadline
        checked = {word for keyword in found.unmatched for word in keyword.split() if word.isalpha()}
        better = understand(understood.text, CatalogLexicon(session, plugin_key), check=checked)
        # The keywords that matched nothing in the whole catalog (a complete search) never will: still unmatched.
        dead = tuple(k for k in better.keywords if k in found.unmatched) if found.complete else ()
        if better.corrections:
            searched = _searched_keywords(understood, filters)
            found = _search(session, gated, plugin_key, _narrowed(better, searched, dead), filters, limit)
        unmatched = found.unmatched if found.complete else _unknown_to_catalog(found.unmatched, better)
        found = replace(found, understood=better, unmatched=tuple(dict.fromkeys((*dead, *unmatched))))
    return found


def _searched_keywords(understood: UnderstoodQuery, filters: _Filters) -> tuple[str, ...]:
    """The keywords a search of `understood` looks for (the first ft.MAX_TERMS that make a term)."""
    plan = _plan(understood, filters)
    return tuple(k for k in _term_keywords(understood, list(plan.terms)) if k is not None)


def _narrowed(better: UnderstoodQuery, searched: tuple[str, ...], dead: tuple[str, ...]) -> UnderstoodQuery:
    """The corrected question as the second search looks for it: the keywords the first searched and did not find
    left out (each would be tested on every candidate again, for nothing: on 100,000 products, seven dead words
    cost 45 ms of ranking), and no keyword the first left unsearched (the bound on words stays the first's).
    """
    meant = {word for correction in better.corrections for word in correction.meant.split()}
    kept = tuple(
        keyword
        for keyword in better.keywords
        if keyword not in dead and (keyword in searched or any(word in meant for word in keyword.split()))
    )
    return replace(better, keywords=kept)


def _unknown_to_catalog(keywords: tuple[str, ...], understood: UnderstoodQuery) -> tuple[str, ...]:
    """Of the keywords an incomplete pool did not hold, those the company's words lack too (it may sell them)."""
    unknown = set(understood.unrecognised)
    return tuple(k for k in keywords if all(word in unknown for word in k.split() if word.isalpha()))


def _company(company: GateEntry | str) -> tuple[GateEntry | None, str]:
    return (company, company.plugin_key) if isinstance(company, GateEntry) else (None, company)


# --- one search: the plan, the statement, its rows --------------------------------------


@dataclass(frozen=True)
class _Plan:
    """A question as the statement needs it: its shape (the cache key) and its parameters."""

    mode: str | None  # CONCEPTS, WORDS, BROWSE; None: nothing to look for
    concepts: tuple
    terms: tuple[ft.Term, ...]
    sizes: tuple[Size, ...]
    features: tuple[str, ...]
    ratings: tuple[tuple[str, ...], ...]  # the ratings ranked by, highest first: per concept part (one without)
    kind: str | None
    tiers: tuple[str, ...]
    order: str | None
    min_cents: int | None
    max_cents: int | None


def _plan(understood: UnderstoodQuery, filters: _Filters) -> _Plan:
    parts = understood.concept_parts()
    concepts = tuple(members for _, members in parts)
    rank = understood.rank
    ratings = tuple(ratings_to_rank_by(rank, slug) for slug, _ in parts) or (ratings_to_rank_by(rank, None),)
    terms = tuple(dict.fromkeys(_terms_by_keyword(understood).values()))[: ft.MAX_TERMS]
    sizes = tuple(s for s in understood.sizes if QUANTITIES[s.quantity].spec_keys)[:MAX_SIZES]
    price = understood.price
    ceilings = [c for c in (price.max_cents, filters.max_price_cents) if c is not None]
    intent = understood.asks_price
    if concepts:
        mode = CONCEPTS
    elif terms or sizes or rank.features:
        mode = WORDS
    elif intent or understood.kind or rank.said:
        mode = BROWSE
    else:
        mode = None
    return _Plan(
        mode=mode,
        concepts=concepts,
        terms=terms,
        sizes=sizes,
        features=rank.features[:MAX_FEATURES],
        ratings=ratings if any(ratings) else (),
        kind=understood.preferred_kind,
        tiers=tuple(understood.tiers)[:MAX_TIERS],
        order=price.order,
        min_cents=price.min_cents,
        max_cents=min(ceilings) if ceilings else None,
    )


def _search(
    session: Session,
    gated: GateEntry | None,
    plugin_key: str,
    understood: UnderstoodQuery,
    filters: _Filters,
    limit: int,
) -> CatalogSearch:
    plan = _plan(understood, filters)
    terms = list(plan.terms)
    if plan.mode is None:  # nothing to look for ("what do you have?"): the no-match answer says what there is
        return CatalogSearch(hits=[], total=0, terms=[], understood=understood)
    shape = _Shape(
        mode=plan.mode,
        concepts=len(plan.concepts),
        terms=len(terms),
        sizes=tuple((s.quantity, len(s.spec_texts())) for s in plan.sizes),
        features=len(plan.features),
        ratings=plan.ratings,
        kind=plan.kind is not None,
        kind_said=understood.kind is not None or not plan.concepts,
        tiers=len(plan.tiers),
        order=plan.order,
        by_category=filters.category_slug is not None,
        by_tier=filters.tier is not None,
        by_max=plan.max_cents is not None,
        by_min=plan.min_cents is not None,
        small=gated is not None and gated.offer_count is not None and gated.offer_count <= SMALL_CATALOG,
    )
    params = {
        "plugin_key": plugin_key,
        "category_slug": filters.category_slug,
        "tier": filters.tier,
        "max_price_cents": plan.max_cents,
        "min_price_cents": plan.min_cents,
        "kind": plan.kind,
        "limit": limit,
        "compact": "".join(t.compact for t in terms),
        **{f"want_tier_{i}": tier for i, tier in enumerate(plan.tiers)},
        **_match_params(plan),
    }
    statement = _statement(shape)
    rows = rows_by_name(statement, statement_rows(session, statement, params))
    check_stamp(session, gated, statement, rows)
    first = rows[0] if rows else None
    total = first.total if first else 0  # the ranked pool's count
    complete = total <= MAX_RANKED
    unmatched = tuple(
        keyword
        for i, keyword in enumerate(_term_keywords(understood, terms))
        if keyword is not None and (first is None or not first.matched[i])
    )
    unstated = tuple(
        feature
        for i, feature in enumerate(plan.features)
        if complete and first is not None and not getattr(first, _stated(i))
    )
    return CatalogSearch(
        hits=[_hit(row) for row in rows],
        total=total if complete else MAX_RANKED,
        terms=_words_of(terms),
        understood=understood,
        unmatched=unmatched,
        complete=complete,
        unstated=unstated,
    )


def _stated(i: int) -> str:
    """The search statement's column saying whether any product states feature `i` (its max over all matches)."""
    return f"stated_{i}"


def _terms_by_keyword(understood: UnderstoodQuery) -> dict[str, ft.Term]:
    """The term each keyword is searched as, in order, up to the first ft.MAX_TERMS distinct terms (the search
    looks for no more; keywords with no letter or digit make none).

    A keyword made of words the spelling step corrected to ("pmup" -> "pump") matches them whole
    (`ft.Term.whole`).
    """
    meant = {word for correction in understood.corrections for word in ft.words(correction.meant)}
    terms: dict[str, ft.Term] = {}
    distinct: set[ft.Term] = set()
    for keyword in understood.keywords:
        found = ft.words(keyword)
        if not found:
            continue
        term = ft.Term.of(found, whole=all(word in meant for word in found))
        if term not in distinct and len(distinct) == ft.MAX_TERMS:
            break  # a 200-character question holds forty words: the rest are never searched
        distinct.add(term)
        terms[keyword] = term
    return terms


def _term_keywords(understood: UnderstoodQuery, terms: list[ft.Term]) -> list[str | None]:
    """The keyword each term came from (the step's spelling, lower case)."""
    by_term: dict[ft.Term, str] = {}
    for keyword, term in _terms_by_keyword(understood).items():
        by_term.setdefault(term, keyword)
    return [by_term.get(term) for term in terms]


@dataclass(frozen=True)
class _Shape:
    """One shape of search statement (every value a bound parameter): its cache key."""

    mode: str
    concepts: int
    terms: int
    sizes: tuple[tuple[str, int], ...]  # per size: its quantity, and how many text forms its specs may hold
    features: int
    ratings: tuple[tuple[str, ...], ...]  # the ratings ranked by (quantities), per concept part (one without)
    kind: bool
    kind_said: bool  # the kind was asked outright ("system"), or a trade alone: it ranks first
    tiers: int
    order: str | None
    by_category: bool
    by_tier: bool
    by_max: bool
    by_min: bool
    # The company has at most SMALL_CATALOG public products: its rows are read by its key and each tested, never
    # through the full-text index (whose prefix lookups collect the whole mirror's matches: `SMALL_CATALOG`).
    # Its statement is prepared, not planned per call: whatever the words, the plan reads the company's rows by
    # its key, so one generic plan serves every small catalog and a search saves its planning (about 1 ms, most
    # of what the database spends on it); its queries are parsed once per execution (`ft.tsquery`).
    small: bool = False

    @property
    def per_call(self) -> bool:
        """Whether its statement is planned for its values on every call (a large catalog's: `small`)."""
        return not self.small


def _match_params(plan: _Plan) -> dict:
    """The full-text query texts (`any_match`, `rank_query`, `concept_i`, `term_i`, `size_i`) and size bounds.

    `rank_query` is what relevance ranks by: the keywords (and, without concepts, the sizes). Concepts only
    choose and order the candidates: ranking by a concept's many names cost a millisecond a row on
    Postgres and told nothing the order did not.
    """
    params: dict = {}
    concepts = [ft.concept_query(c, ft.CONCEPT_WEIGHTS) for c in plan.concepts]  # for a product of no kind read
    terms = [ft.term_query(t) for t in plan.terms]
    sizes = [ft.any_phrase(s.name_phrases(), "ABC") for s in plan.sizes]
    if plan.mode == CONCEPTS:
        params["any_match"] = " | ".join(f"({c})" for c in concepts)
        params["any_kinds"] = kinds_parameter(m.slug for part in plan.concepts for m in part)
    elif plan.mode == WORDS:
        params["any_match"] = " | ".join(f"({t})" for t in (*terms, *sizes))
    if _all_terms(plan.mode, len(terms), len(sizes)):
        params["all_match"] = " & ".join(f"({t})" for t in terms)
    ranked_by = [*terms, *sizes] if plan.mode == WORDS else terms  # relevance is the keywords' (and sizes')
    if ranked_by:
        params["rank_query"] = " | ".join(f"({t})" for t in ranked_by)
    for i, (text, part) in enumerate(zip(concepts, plan.concepts, strict=True)):
        params[f"concept_{i}"] = text
        params[f"kinds_{i}"] = kinds_parameter(m.slug for m in part)
    for i, text in enumerate(terms):
        params[f"term_{i}"] = text
    for i, feature in enumerate(plan.features):
        params[f"feature_{i}"] = kinds_parameter((feature,))
    for i, (size, text) in enumerate(zip(plan.sizes, sizes, strict=True)):
        low, high = size.bounds()
        params[f"size_{i}"] = text
        params[f"size_{i}_low"], params[f"size_{i}_high"] = str(low), str(high)
        params[f"size_{i}_value"] = str(size.value)
        for j, form in enumerate(size.spec_texts()):
            params[f"size_{i}_text_{j}"] = form.lower()
    return params


def kinds_parameter(slugs) -> str:
    """Concept (or feature) slugs as one array parameter ('{heat-pump,ductless-mini-split}': letters and hyphens
    only)."""
    return "{" + ",".join(sorted(set(slugs))) + "}"


_COLUMNS = (
    Product.sku,
    Product.name,
    Product.brand,
    Product.category_name,
    Product.category_slug,
    Product.category_kind,
    Product.tier,
    Product.price_cents,
    Product.model_numbers,
    Product.description,
)


@lru_cache(maxsize=256)
def _statement(shape: _Shape):
    """The search statement for one shape of request, every value a bound parameter.

    Built once per shape and reused: constructing it costs about as much as
    the database takes to answer it.
    """
    match = _matcher(shape.small)
    concept_hits = [ft.as_int(of_kinds(f"kinds_{i}", match(f"concept_{i}"))) for i in range(shape.concepts)]
    term_hits = [ft.as_int(match(f"term_{i}")) for i in range(shape.terms)]
    feature_hits = [ft.as_int(_states(f"feature_{i}")) for i in range(shape.features)]
    size_matches = [
        _size_match(quantity, i, texts, match(f"size_{i}")) for i, (quantity, texts) in enumerate(shape.sizes)
    ]
    size_hits = [ft.as_int(size) for size in size_matches]
    parts = [*term_hits, *size_hits, *feature_hits]  # a feature stated counts as a keyword matched
    if shape.tiers:
        parts.append(
            ft.as_int(Product.tier.in_([bindparam(f"want_tier_{i}", type_=String) for i in range(shape.tiers)]))
        )
    kind_hit = ft.as_int(Product.category_kind == bindparam("kind", type_=String)) if shape.kind else None

    stamp = stamp_columns(bindparam("plugin_key"))
    stated_any = [func.max(hit).over().label(_stated(i)) for i, hit in enumerate(feature_hits)]
    base = [public_products_filter(bindparam("plugin_key")), *_caller_filters(shape)]
    if shape.mode == CONCEPTS or shape.mode == WORDS:
        words = [match(f"term_{i}") for i in range(shape.terms)] + size_matches if shape.mode == WORDS else []
        candidates = _candidates(shape, words)
        if shape.mode == WORDS and shape.features:  # "wi-fi": the products stating it, beside the words' matches
            stating = or_(*(_states(f"feature_{i}") for i in range(shape.features)))
            candidates = or_(candidates, stating) if shape.terms or shape.sizes else stating
        all_terms = _all_terms(shape.mode, shape.terms, len(shape.sizes))
        pool = _pool(base, candidates, all_terms=all_terms, implied=shape.mode == WORDS, small=shape.small)
    else:  # a browse ("cheapest system", "best"): every product (of the kind), in price order
        kind = [Product.category_kind == bindparam("kind", type_=String)] if shape.kind else []
        pool = _browse_pool([*base, *kind], shape)
    # Ranking scores each row: the statement ranks a bounded pool (MAX_RANKED) and counts it. As a window
    # over the joined rows, the count was costed as if rows streamed, and the planner read a 100,000-product
    # company in price order to join each row to the pool (36 s).
    mine = and_(Product.plugin_key == bindparam("plugin_key"), Product.sku == pool.c.sku)
    # Price orders read the pool's copy of the price: ordered by the product's, the planner walked the company's
    # price index to join each product to the pool ("most expensive part" where the parts are the cheapest:
    # every system of a 100,000-product company first). By the pool's, it joins the pool's rows, then sorts them.
    price = pool.c.price_cents
    # Whether each keyword matched, and the relevance query: read once over the pool's vectors (as a window over
    # the joined rows, it kept every wide row of the pool in the window's store, and tested each keyword twice).
    reading = _pool_reading(shape, pool) if shape.mode != BROWSE and _rank_parts(shape) else None
    relevance = _relevance(reading, per_call=shape.per_call) if reading is not None else None
    term_any = [select(reading.c.held).scalar_subquery().label(MATCHED)] if shape.terms else []
    total = select(func.count()).select_from(pool).scalar_subquery()
    statement = select(*_COLUMNS, *stamp, *term_any, *stated_any, total.label("total")).join(pool, mine)

    order = []  # several parts ("furnace and AC"): the products that are more of them first (`_each_kind`)
    said_kind = kind_hit is not None and shape.mode != BROWSE
    if said_kind and shape.kind_said:  # "HVAC system", "plumbing": the kind asked outright first
        order.append(kind_hit.desc())
    if parts:
        order.append(_sum(parts).desc())
    if concept_hits:  # then what is only what was asked: an air conditioner before an A/C and furnace system,
        # an air handler sold alone before a heat pump and air handler system, whatever the category calls them
        order.append(func.coalesce(func.cardinality(Product.kinds), 1) - _sum(concept_hits))
    if said_kind and not shape.kind_said:  # the kind the concepts are (a system) before the rest (its parts)
        order.append(kind_hit.desc())
    # Then the sizes nearest the one asked: "4-ton heat pump" where the largest is 3 ton lists the 3-ton first.
    order += [_size_distance(quantity, i).nulls_last() for i, (quantity, _) in enumerate(shape.sizes)]
    # "most efficient furnace": the highest AFUE first, then the Best tier of those stating none (mirror/query/ranking.py)
    order += _by_rating(shape.ratings, concept_hits)
    if shape.ratings and shape.order is None:  # equal ratings and tiers (a catalog rounding its ratings, or stating
        order.append(price.desc())  # none): the dearer first, as a line's price rises with what the rounding hides
    if shape.features and not shape.ratings:  # a feature no product states ("two-stage"): a contractor's tiers
        order.append(_tier_rank().desc().nulls_last())  # add features, so the Best tier first
    if shape.order == "price_low":
        order.append(price)
    elif shape.order == "price_high":
        order.append(price.desc())
    if term_hits:  # a model number equal to the keywords holds them all (guarded: a regular expression per model)
        ranked = _ranked_words(per_call=shape.per_call)
        order.append(case((and_(ranked, _may_hold_model()), _exact_model()), else_=0).desc())
    if shape.mode == CONCEPTS and not term_hits:  # all what was asked: the cheapest first, as a price list starts
        order.append(price)
    if relevance is not None:
        order.append(relevance)
    order += [price, Product.name.collate("C"), Product.sku]
    if len(concept_hits) > 1:
        order = _each_kind(concept_hits, order)
    statement = statement.order_by(*order).limit(bindparam("limit", type_=Integer))
    return planned_per_call(statement) if shape.per_call else statement


def _each_kind(concept_hits: list, order: list) -> list:
    """A question naming several kinds ("furnace and heat pump") answers each: the products that are more of them
    first ("furnace and AC": the A/C and furnace systems), then the best of each kind in turn (`order` ranks
    within a kind), in the order the question names them, so no kind is left out for want of a product that is
    both.
    """
    turn = func.row_number().over(partition_by=concept_hits, order_by=order)
    named_first = case(*((hit == 1, i) for i, hit in enumerate(concept_hits)), else_=len(concept_hits))
    return [_sum(concept_hits).desc(), turn, named_first, *order]


def _by_rating(ratings: tuple[tuple[str, ...], ...], concept_hits: list) -> list:
    """The order by rating, highest first (nothing when the question asks for no rating): each rating ranked by in
    turn (its stored measure; a product without it after those with it), then the tier, Best first.

    Per concept part, the ratings that kind is judged by ("most efficient furnace and heat pump": a furnace's
    AFUE, a heat pump's HSPF2); without concepts, the rating named ("highest SEER2").
    """
    if not any(ratings):
        return []
    order = []
    for turn in range(max(len(r) for r in ratings)):
        if len(ratings) == 1:
            value = _measure(ratings[0][turn])
        else:
            judged = [
                (hit == 1, _measure(r[turn])) for hit, r in zip(concept_hits, ratings, strict=True) if turn < len(r)
            ]
            value = case(*judged, else_=None) if judged else None
        if value is not None:
            order.append(value.desc().nulls_last())
    return [*order, _tier_rank().desc().nulls_last()]


def _tier_rank():
    """A product's tier as a number (Good 0, Better 1, Best 2); NULL without one."""
    return case(*((Product.tier == slug, rank) for rank, slug in enumerate(TIERS)), else_=None)


def _states(feature: str):
    """Whether a product states the feature bound as `feature` (its stored features, read by the sync)."""
    stated = Product.features.overlap(cast(bindparam(feature, type_=String), ARRAY(String)))
    return func.coalesce(stated, false())


def _pool(base: list, candidates, *, all_terms: bool, implied: bool, small: bool):
    """The SKUs ranked, with their prices (the order reads them) and vectors: at most MAX_RANKED + 1 of those the
    `base` filters and `candidates` select.

    With several keywords, or keywords beside kinds, the candidates matching all the keywords come first (the
    index's `all_match`), so the best are ranked even when thousands match one keyword or kind. One more than
    MAX_RANKED tells the total is not complete. Materialised: the rows are read once, then joined by key.

    The products matching every keyword are only looked for when the candidates overflow the pool: otherwise
    the pool holds them already. Postgres then skips that scan (a one-time filter on the first part's count).
    The scan it saves is dear whatever it finds: a prefix (`old:*`) collects every product of the mirror
    holding a word it begins (300,000 on the benchmark: 20-40 ms, for a 20-product company as for a large
    one). `implied`: every keyword matched implies a candidate (a keyword search), so the condition is not
    tested twice.
    """
    pooled = (Product.sku, Product.price_cents, ft.vector("products").label("search_vector"))  # `_pool_reading`
    first = select(*pooled).where(*base, candidates).limit(MAX_RANKED + 1)
    if not all_terms:
        return first.cte("pool").prefix_with("MATERIALIZED")
    found = first.cte("found").prefix_with("MATERIALIZED")
    overflowing = select(func.count()).select_from(found).scalar_subquery() > MAX_RANKED
    every_keyword = ft.matches("products", None, "all_match", per_call=not small, indexed=not small)
    conditions = [*base, every_keyword] if implied else [*base, candidates, every_keyword]
    everything = select(*pooled).where(*conditions, overflowing).limit(MAX_RANKED + 1)
    return union(everything, select(found)).cte("pool").prefix_with("MATERIALIZED")


def _held(rows, names: list[str], per_call: bool) -> list:
    """Per query parameter in `names`: whether one of `rows` (a pool, with its vectors) matches it (one pass)."""
    return [
        func.coalesce(func.bool_or(rows.c.search_vector.op("@@")(ft.tsquery(None, name, per_call=per_call))), false())
        for name in names
    ]


def _browse_pool(filters: list, shape: _Shape):
    """A browse's SKUs ranked (with their prices): the MAX_RANKED + 1 first in price order (the tiers asked first).

    A browse ends in price order, so the cheapest (or dearest: "most expensive") are the ones its page can
    show; with tiers asked ("best system"), the tiers' own cheapest come first. Read on the index by company
    and price (migration 0010), not by sorting every product of a large catalog.
    """
    price = Product.price_cents.desc() if shape.order == "price_high" else Product.price_cents
    order = (price, Product.name.collate("C"), Product.sku)
    pool = select(Product.sku, Product.price_cents).where(*filters).order_by(*order).limit(MAX_RANKED + 1)
    if shape.tiers:
        wanted = Product.tier.in_([bindparam(f"want_tier_{i}", type_=String) for i in range(shape.tiers)])
        tiers = select(Product.sku, Product.price_cents).where(*filters, wanted).order_by(*order).limit(MAX_RANKED + 1)
        pool = union(tiers, pool)
    return pool.cte("pool").prefix_with("MATERIALIZED")


def _all_terms(mode: str | None, terms: int, sizes: int) -> bool:
    """Whether the pool first takes the products matching every keyword: several keywords and no size, or
    keywords beside the kinds asked ("Lennox heat pump": the Lennox heat pumps, wherever they are among the
    heat pumps the index finds)."""
    return (mode == WORDS and terms > 1 and not sizes) or (mode == CONCEPTS and terms > 0)


def _sum(values):
    return sum(values[1:], start=values[0])


def _caller_filters(shape: _Shape) -> list:
    filters = []
    if shape.by_category:
        filters.append(Product.category_slug == bindparam("category_slug"))
    if shape.by_tier:
        filters.append(Product.tier == bindparam("tier"))
    if shape.by_max:
        filters.append(Product.price_cents <= bindparam("max_price_cents", type_=Integer))
    if shape.by_min:
        filters.append(Product.price_cents >= bindparam("min_price_cents", type_=Integer))
    return filters


def _matcher(small: bool):
    """A condition `name`'s query matches; on a small catalog never on the index, parsed once per execution
    (`_Shape.small`)."""
    return lambda name: ft.matches("products", None, name, per_call=not small, indexed=not small)


def _candidates(shape: _Shape, words: list):
    """The condition for a candidate.

    Concepts: the products the index finds for `any_match`. Keywords and sizes (`words`): the products
    matching one of them, a size as `_size_match` says (the index finds names, not `specs`).
    """
    vector = ft.vector("products", indexed=not shape.small)
    # Sizes are also read from `specs`, which no index holds: with one asked, each row is tested. Without,
    # the one `any_match` query lets the index find the candidates (an OR of the terms' own matches was
    # read row by row: 70 ms for eight unknown words on a 100,000-product catalog, against 8 ms).
    indexed = not words or not shape.sizes
    any_match = ft.tsquery(None, "any_match", per_call=shape.per_call)
    candidates = vector.op("@@")(any_match) if indexed else or_(*words)
    if shape.mode == CONCEPTS:
        candidates = of_kinds("any_kinds", candidates)
    return candidates


def _rank_parts(shape: _Shape) -> list[str]:
    """The parameters whose queries relevance ranks by (`rank_query` is their OR, in this order): the keywords'
    terms, and without concepts the sizes. Empty: nothing to rank by (concepts alone)."""
    parts = [f"term_{i}" for i in range(shape.terms)]
    if shape.mode == WORDS:
        parts += [f"size_{i}" for i in range(len(shape.sizes))]
    return parts


def _relevance(reading, *, per_call: bool):
    """The relevance order (highest first), by the pool's `reading`.

    `ts_rank_cd` ranks by the query of the parts some pooled product matches (`_pool_reading`): a part no
    ranked product holds adds nothing to any rank, but costs each one (on 1,001 products, eight prefixes of
    which one matches: 16 ms, against 1.7 ms for that one alone; the ranks are the same).
    """
    live = select(reading.c.rank_query).scalar_subquery()
    rank = func.ts_rank_cd(literal_column(f"'{RANK_WEIGHTS}'::float4[]"), ft.vector("products"), live)
    return case((_ranked_words(per_call), rank), else_=0).desc()


def _pool_reading(shape: _Shape, pool):
    """One row read once over the pool's vectors: `held`, per part relevance ranks by (`_rank_parts`), whether a
    pooled product matches it; `rank_query`, the OR of the parts held (NULL when none is)."""
    parts = _rank_parts(shape)
    held = _held(pool, parts, per_call=shape.per_call)
    live = [
        case((hit, literal("(") + bindparam(name, type_=String) + literal(")")), else_=None)
        for hit, name in zip(held, parts, strict=True)
    ]
    text = func.nullif(func.concat_ws(literal(" | "), *live), literal(""))
    rank_query = func.to_tsquery(literal_column(f"'{ft.TS_CONFIG}'::regconfig"), text)
    reading = select(pg_array(held).label("held"), rank_query.label("rank_query")).select_from(pool)
    return reading.cte("pool_reading").prefix_with("MATERIALIZED")


def _ranked_words(per_call: bool):
    """Whether a product matches any word relevance ranks by (`rank_query`).

    It guards the dear per-row parts of the order, which are 0 for a product matching no such word anyway:
    `ts_rank_cd` costs about 34 us a product for a query of eight prefixes none of which it holds (on the
    1,001 candidates of a 100,000-product company, "havc" read as HVAC beside seven unknown words: 34 ms),
    the test for one word costs well under one.
    """
    return ft.matches("products", None, "rank_query", per_call=per_call)


def of_kinds(kinds: str, unread):
    """Whether a product is one of the kinds in the array parameter `kinds` (its stored kinds, read by the sync);
    for a product of which the sync read no kind, `unread` (its names and category on the full-text index)."""
    asked = cast(bindparam(kinds, type_=String), ARRAY(String))
    return or_(Product.kinds.overlap(asked), and_(func.coalesce(func.cardinality(Product.kinds), 0) == 0, unread))


def _size_match(quantity: str, i: int, texts: int, in_name):
    """Whether a product is size `i`: by its stored measure of the quantity (from its `specs`, else its name,
    read by the sync), else by its name on the index.

    A name's numbers read on the index can mislead ("3.5 ton" holds the words "5 ton"); the measures are
    the catalog's own figures.
    """
    stated = _measure(quantity).is_not(None)
    if QUANTITIES[quantity].text_specs:
        stated = or_(stated, _measure_text(quantity).is_not(None))
    return case((stated, _measure_match(quantity, i, texts)), else_=in_name)


def _measure_match(quantity: str, i: int, texts: int):
    """Whether a product's measure of `quantity` is size `i`: a number in [low, high), or one of its texts."""
    low = cast(bindparam(f"size_{i}_low", type_=String), Numeric)
    high = cast(bindparam(f"size_{i}_high", type_=String), Numeric)
    value = _measure(quantity)
    conditions = [and_(value >= low, value < high)]
    for j in range(texts):
        conditions.append(func.lower(_measure_text(quantity)) == bindparam(f"size_{i}_text_{j}", type_=String))
    # A value that is no number is NULL, and `x OR NULL` is NULL: false instead (NULL sorts first, descending).
    return func.coalesce(or_(*conditions), false())


def _size_distance(quantity: str, i: int):
    """How far a product's measure of `quantity` is from size `i` (in its unit); NULL when it has none.

    The exact sizes come first anyway (the size hits); this orders what is left, nearest first.
    """
    wanted = cast(bindparam(f"size_{i}_value", type_=String), Numeric)
    return func.abs(_measure(quantity) - wanted)


def _measure(quantity: str):
    """The product's stored measure of `quantity` (in its unit) when it is a number, else NULL."""
    value = Product.measures[quantity]
    return case((func.json_typeof(value) == "number", cast(value.as_string(), Numeric)), else_=None)


def _measure_text(quantity: str):
    return Product.measures[quantity].as_string()


# Every printable ASCII character that is not a letter or digit: deleted from a model number's text, what is left
# holds its normalised form (`ft.normalised_model`).
_ASCII_SEPARATORS = "".join(chr(c) for c in range(0x20, 0x7F) if not chr(c).isalnum())


def _may_hold_model():
    """Whether the product may have a model number equal to the keywords (`compact`): a test of its text that is
    true whenever `_exact_model` is, at a fifth of its cost.

    `_exact_model` decodes the JSON and runs a regular expression per model (4-6 ms over 1,000 ranked products);
    this deletes the ASCII separators and looks for `compact` in what is left. Text that is not all ASCII (or
    holds a JSON escape) is left to `_exact_model`.
    """
    models = cast(Product.model_numbers, String)
    compact = bindparam("compact", type_=String)
    held = func.strpos(func.translate(func.lower(models), literal(_ASCII_SEPARATORS), literal("")), compact) > 0
    return or_(held, func.octet_length(models) != func.length(models), func.strpos(models, literal("\\")) > 0)


def _exact_model():
    """1 when one of the product's model numbers is the keywords (`compact`), separators ignored."""
    compact = bindparam("compact", type_=String)
    models = func.json_array_elements_text(Product.model_numbers).table_valued("value").alias("model")
    return ft.as_int(exists(select(1).select_from(models).where(ft.normalised_model(models.c.value) == compact)))


@dataclass(frozen=True)
class TierProduct:
    """One public product of a system category, as the tier comparison shows it."""

    sku: str
    name: str
    brand: str | None
    tier: str | None
    price_cents: int
    model_numbers: list[str]
    description: str | None
    specs: dict
    kinds: tuple[str, ...] = ()  # what the sync read it as (`products.kinds`)
    measures: dict = field(default_factory=dict)  # its sizes and ratings, as the sync read them (`products.measures`)


_TIER_COLUMNS = (
    Product.sku,
    Product.name,
    Product.brand,
    Product.tier,
    Product.price_cents,
    Product.model_numbers,
    Product.description,
    Product.specs,
    Product.kinds,
    Product.measures,
)
_CATEGORY_PRODUCTS = (
    select_public_products(bindparam("plugin_key"), *_TIER_COLUMNS, *stamp_columns(bindparam("plugin_key")))
    .where(Product.category_slug == bindparam("category_slug"))
    .order_by(Product.price_cents, Product.name, Product.sku)
)


def category_products(session: Session, company: GateEntry | str, category_slug: str) -> list[TierProduct]:
    """A category's public products, cheapest first (then by name and SKU), in one statement."""
    gated, plugin_key = _company(company)
    params = {"plugin_key": plugin_key, "category_slug": category_slug}
    rows = rows_by_name(_CATEGORY_PRODUCTS, statement_rows(session, _CATEGORY_PRODUCTS, params))
    check_stamp(session, gated, _CATEGORY_PRODUCTS, rows)
    return [
        TierProduct(
            sku=row.sku,
            name=row.name,
            brand=row.brand,
            tier=row.tier,
            price_cents=row.price_cents,
            model_numbers=_models(row.model_numbers),
            description=row.description,
            **stored_reading(row),
        )
        for row in rows
    ]


def stored_reading(row) -> dict:
    """A product row's specs and what the sync read it as (`kinds`, `measures`), as the dataclasses hold them."""
    return {
        "specs": row.specs if isinstance(row.specs, dict) else {},
        "kinds": tuple(row.kinds or ()),
        "measures": row.measures if isinstance(row.measures, dict) else {},
    }


def _models(value) -> list[str]:
    return [m for m in value if isinstance(m, str)] if isinstance(value, list) else []


def _hit(row) -> CatalogHit:
    """A hit from a result row (read by name: `_COLUMNS`, then the stamp and counts)."""
    return CatalogHit(
        sku=row.sku,
        name=row.name,
        brand=row.brand,
        category_name=row.category_name,
        category_slug=row.category_slug,
        category_kind=row.category_kind,
        tier=row.tier,
        price_cents=row.price_cents,
        model_numbers=_models(row.model_numbers),
        description=row.description,
    )
