"""Offer groups: per company and category, the public products' prices.

Two spellings of one summary, kept side by side so they cannot drift (the
tests rebuild every company's groups in memory and compare them with what the
sync stored):

- `build_offer_groups()`: pure Python over product rows, the definition;
- `offer_groups_query()`: the same summary computed set-wise by the database
  for many companies at once, which is what the sync runs (a full run would
  otherwise read every product row into Python), through
  `changed_offer_groups_query()`: only the groups that differ from the
  stored ones come back.

The content version is a function of exactly the public pricing content.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable

import orjson
from sqlalchemy import (
    CompoundSelect,
    Select,
    Text,
    and_,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    null,
    or_,
    select,
    text,
    union_all,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by, array

from mirror.catalog.public_products import is_public_product, public_products_filter
from mirror.catalog.trades import ACCESSORY, SYSTEM, TIERS, category_order
from mirror.store.models import Company, OfferGroup, Product

# The columns of an offer-group row, in the order both spellings build them.
GROUP_COLUMNS = (
    "plugin_key",
    "category_slug",
    "category_name",
    "kind",
    "currency",
    "price_low_cents",
    "price_high_cents",
    "offer_count",
    "good_cents",
    "better_cents",
    "best_cents",
    "image_url",
    "options_digest",
)


def build_offer_groups(plugin_key: str, currency: str, products: Iterable, *, company_public: bool) -> list[dict]:
    """Summarise a company's products into offer-group rows.

    Only public products count (mirror.catalog.public_products: a company that is not public
    has no offer groups). Accessory groups carry no tier prices; a tier with
    no product is None.
    """
    by_slug: dict[str, list] = defaultdict(list)
    for product in products:
        if is_public_product(product, company_public=company_public):
            by_slug[product.category_slug].append(product)
    groups = [_summarise(plugin_key, currency, slug, items) for slug, items in by_slug.items()]
    return sort_offer_groups(groups)


def _summarise(plugin_key: str, currency: str, slug: str, items: list) -> dict:
    prices = [p.price_cents for p in items]
    # Several products may spell the category differently; pick one
    # deterministically so the content version does not flap.
    name = min(p.category_name for p in items)
    kind = SYSTEM if any(p.category_kind == SYSTEM for p in items) else ACCESSORY
    tiers = dict.fromkeys(TIERS)
    if kind == SYSTEM:
        for product in items:
            if product.tier in tiers:
                current = tiers[product.tier]
                tiers[product.tier] = product.price_cents if current is None else min(current, product.price_cents)
    with_images = sorted((p.price_cents, p.sku, p.image_url) for p in items if p.image_url)
    return {
        "plugin_key": plugin_key,
        "category_slug": slug,
        "category_name": name,
        "kind": kind,
        "currency": currency,
        "price_low_cents": min(prices),
        "price_high_cents": max(prices),
        "offer_count": len(items),
        "good_cents": tiers["good"],
        "better_cents": tiers["better"],
        "best_cents": tiers["best"],
        "image_url": with_images[0][2] if with_images else None,
        "options_digest": options_digest(p.record_hash for p in sorted(items, key=lambda p: p.sku)),
    }


def options_digest(record_hashes) -> str:
    """The md5 of a group's public products' record_hash values joined by commas, in SKU (code point) order.

    What the database computes in `offer_groups_query()` (md5 over an
    ordered string_agg), so the stored digest moves exactly when a
    product's stored facts do.
    """
    return hashlib.md5(",".join(record_hashes).encode("utf-8"), usedforsecurity=False).hexdigest()


def offer_groups_query(plugin_keys: list[str], pairs: list[tuple[str, str]] = ()) -> Select:
    """`build_offer_groups()` for several companies at once, as one SELECT.

    Every group of the companies in `plugin_keys`, and the groups named by
    the (plugin_key, category_slug) `pairs`. Each row is (plugin_key, category_slug, category_name, kind, low, high,
    count, good, better, best, image_url): with the company's currency,
    the values of the dict `build_offer_groups()` returns. Strings are compared by code point,
    as Python compares them, whatever the database's collation.
    """
    p = Product
    # Pass companies or pairs: under an OR, the pairs cannot
    # become a join and every product is read.
    scopes = [p.plugin_key.in_(plugin_keys)] if plugin_keys or not pairs else []
    if pairs:
        scopes.append(groups_in(p.__table__, pairs))
    scope = or_(*scopes)
    # mirror.catalog.public_products's rule for one company, with the company bound to each
    # row's own key (a tautology), is the rule for every company in scope.
    public = and_(scope, public_products_filter(p.plugin_key))

    def codepoints(column):
        return column.collate("C")

    has_image = and_(p.image_url.is_not(None), p.image_url != "")
    # The image is the least (price, SKU, URL) of the group's products
    # with one, as one aggregate: the least text array [zero-padded
    # price, SKU, URL], compared in code-point order (public prices are
    # positive, so their padded digits order as the numbers do). No
    # window, so no sort of every product in scope: 0.09 s instead of
    # 0.135 s for the benchmark's 23,000 products of 1,782 groups.
    padded_price = func.lpad(cast(p.price_cents, Text), 20, "0", type_=Text)
    image_key = case((has_image, array([padded_price, codepoints(p.sku), codepoints(p.image_url)])))
    ranked = (
        select(
            p.plugin_key,
            p.category_slug,
            p.category_name,
            p.category_kind,
            p.tier,
            p.price_cents,
            p.sku,
            image_key.label("image_key"),
            p.record_hash.label("hashes"),
        )
        .where(public)
        .subquery()
    )
    r = ranked.c
    image = func.min(r.image_key)[3]
    digest = func.md5(func.string_agg(r.hashes, aggregate_order_by(literal(","), r.sku.collate("C"))))
    is_system = func.max(case((r.category_kind == SYSTEM, 1), else_=0)) == 1

    def tier_low(tier: str):
        return case((is_system, func.min(case((r.tier == tier, r.price_cents))))).label(f"{tier}_cents")

    return select(
        r.plugin_key,
        r.category_slug,
        func.min(codepoints(r.category_name)).label("category_name"),
        case((is_system, SYSTEM), else_=ACCESSORY).label("kind"),
        func.min(r.price_cents).label("low"),
        func.max(r.price_cents).label("high"),
        func.count().label("count"),
        *(tier_low(tier) for tier in TIERS),
        image.label("image_url"),
        digest.label("options_digest"),
    ).group_by(r.plugin_key, r.category_slug)


# The columns of offer_groups_query() and, in order, the stored columns they summarise.
_SUMMARY_VS_STORED = (
    ("category_name", "category_name"),
    ("kind", "kind"),
    ("low", "price_low_cents"),
    ("high", "price_high_cents"),
    ("count", "offer_count"),
    ("good_cents", "good_cents"),
    ("better_cents", "better_cents"),
    ("best_cents", "best_cents"),
    ("image_url", "image_url"),
    ("options_digest", "options_digest"),
)


def changed_offer_groups_query(plugin_keys: list[str], pairs: list[tuple[str, str]] = ()) -> CompoundSelect:
    """The groups `offer_groups_query()` makes that differ from the stored ones, and the stored ones it no longer makes.

    Same scope as `offer_groups_query()`. Each row is `gone` and GROUP_COLUMNS, each under its name:
    a group to write (new, or one of its values changed, the company's
    currency included) with `gone` false, or a stored group of the scope
    that no product makes any more, with `gone` true and only its
    plugin_key and category_slug. A group none of whose products' stored
    facts changed returns nothing (its options digest is the stored one), so
    the caller handles only what changed.
    """
    summary = offer_groups_query(plugin_keys, pairs).cte("summary")
    s, g, company = summary.c, OfferGroup.__table__.c, Company.__table__.c
    differs = or_(
        g.plugin_key.is_(None),
        g.currency != company.currency,
        *(s[made].is_distinct_from(g[stored]) for made, stored in _SUMMARY_VS_STORED),
    )
    written = (
        select(
            literal(False).label("gone"),
            s.plugin_key,
            s.category_slug,
            s.category_name,
            s.kind,
            company.currency,
            *(s[made].label(stored) for made, stored in _SUMMARY_VS_STORED[2:]),
        )
        .select_from(
            summary.join(Company.__table__, company.plugin_key == s.plugin_key).outerjoin(
                OfferGroup.__table__, and_(g.plugin_key == s.plugin_key, g.category_slug == s.category_slug)
            )
        )
        .where(differs)
    )
    scopes = [g.plugin_key.in_(plugin_keys)] if plugin_keys else []
    if pairs:
        scopes.append(groups_in(OfferGroup.__table__, pairs))
    gone = select(
        literal(True).label("gone"), g.plugin_key, g.category_slug, *(null() for _ in GROUP_COLUMNS[2:])
    ).where(
        or_(*scopes) if scopes else false(),
        ~exists().where(s.plugin_key == g.plugin_key, s.category_slug == g.category_slug),
    )
    return union_all(written, gone)


def groups_in(table, pairs: list[tuple[str, str]]):
    """WHERE (plugin_key, category_slug) is one of `pairs`, for the products or offer_groups table.

    Two array parameters, however many pairs.
    """
    return text(
        f"({table.name}.plugin_key, {table.name}.category_slug) IN "
        "(SELECT * FROM unnest(CAST(:group_keys AS text[]), CAST(:group_slugs AS text[])))"
    ).bindparams(group_keys=[k for k, _ in pairs], group_slugs=[s for _, s in pairs])


def sort_offer_groups(groups: list[dict]) -> list[dict]:
    """A company's groups in their published order (mirror.catalog.trades.category_order: systems first, then by name)."""
    return sorted(groups, key=lambda g: category_order(g["kind"], g["category_name"], g["category_slug"]))


def content_version(currency: str, price_description: str | None, groups: list[dict]) -> str:
    """A short hash of the public pricing content (not of sync bookkeeping): `stable_hash(content, 16)`.

    The content is strings, integers and None (stored columns), which
    orjson with sorted keys writes byte for byte as stable_hash's json.dumps
    does, several times faster (an incremental run versions hundreds of
    companies; tests/mirror/sync/test_sync.py compares the two on hostile strings). A
    value orjson refuses (an integer beyond 64 bits) goes to stable_hash.
    """
    content = {
        "currency": currency,
        "price_description": price_description,
        "groups": [{k: v for k, v in g.items() if k != "plugin_key"} for g in groups],
    }
    try:
        text = orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError
        return stable_hash(content, 16)
    return hashlib.sha256(text).hexdigest()[:16]


def stable_hash(value, length: int = 32) -> str:
    """A hex digest of a JSON-serialisable value, independent of key order."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def record_hash(values: dict) -> str:
    """The change-detection hash of one stored record's values (32 hex digits).

    The sync computes one per record it reads, so this is `stable_hash`'s
    job done by orjson (sorted keys; several times faster). A value orjson
    cannot serialise (an integer beyond 64 bits) is hashed by `stable_hash`.
    The two spell some values differently; a mirror synced before orjson
    sees each record as changed once, at its next sync, and writes it again
    (no public body changes: the content version is still `stable_hash`).
    """
    try:
        text = orjson.dumps(values, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError
        return stable_hash(values)
    return hashlib.sha256(text).hexdigest()[:32]
