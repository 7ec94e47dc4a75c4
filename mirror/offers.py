"""Offer groups: per company and category, the public products' prices.

Pure functions over product rows, so the rebuild is easy to test and the
content version is a function of exactly the public pricing content.
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Iterable

import orjson

from mirror.catalog import is_public_product
from mirror.records import TIERS


def _group_sort_key(group: dict) -> tuple:
    return (group["kind"] != "system", group["category_name"].lower(), group["category_slug"])


def build_offer_groups(plugin_key: str, currency: str, products: Iterable, *, company_public: bool) -> list[dict]:
    """Summarise a company's products into offer-group rows.

    Only public products count (mirror.catalog: a company that is not public
    has no offer groups). Accessory groups carry no tier prices; a tier with
    no product is None.
    """
    by_slug: dict[str, list] = defaultdict(list)
    for product in products:
        if is_public_product(product, company_public=company_public):
            by_slug[product.category_slug].append(product)
    groups = [_summarise(plugin_key, currency, slug, items) for slug, items in by_slug.items()]
    return sorted(groups, key=_group_sort_key)


def _summarise(plugin_key: str, currency: str, slug: str, items: list) -> dict:
    prices = [p.price_cents for p in items]
    # Several products may spell the category differently; pick one
    # deterministically so the content version does not flap.
    name = min(p.category_name for p in items)
    kind = "system" if any(p.category_kind == "system" for p in items) else "accessory"
    tiers = {tier: None for tier in TIERS}
    if kind == "system":
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
    }


def content_version(currency: str, price_description: str | None, groups: list[dict]) -> str:
    """A short hash of the public pricing content (not of sync bookkeeping)."""
    content = {
        "currency": currency,
        "price_description": price_description,
        "groups": [{k: v for k, v in g.items() if k != "plugin_key"} for g in groups],
    }
    return stable_hash(content, 16)


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
