"""Record-level rules of the demo upstream: absent fields, money, timestamps, product rows.

What the platform API (docs/contracts/upstream.md) says a record looks like,
as the demo upstream stores and serves it. A product is kept compact (the
benchmark holds 200,000 of them in one process): a `ProductRow` is a tuple
pointing at a `ProductTemplate` shared by every company selling the same
brand/size/tier, and the JSON dict is only built when a record is served
(`render_product`).
"""

from __future__ import annotations

import functools
import math
import re
import string
import time
from datetime import datetime
from typing import Any, NamedTuple


class _Missing:
    """Marks a field that is absent from a record (not null: absent)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

MONEY_RE = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")
_RFC3339_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_KEY_ALPHABET = string.digits + string.ascii_letters


@functools.lru_cache(maxsize=65536)
def iso_utc(ts: float) -> str:
    """Render epoch seconds as RFC 3339 UTC with a "Z" (whole seconds)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def parse_rfc3339(text: str) -> float:
    """Parse an RFC 3339 timestamp (offset required) into epoch seconds."""
    if not isinstance(text, str) or not _RFC3339_RE.match(text):
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    return datetime.fromisoformat(text.upper()).timestamp()


def to_epoch(value: Any) -> int:
    """Accept epoch seconds or an RFC 3339 string; return whole seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    return math.floor(parse_rfc3339(value))


class ProductTemplate(NamedTuple):
    """The part of a product shared by every company selling the same item."""

    sku: str
    name: str
    category: dict
    tier: str | None
    brand: str | None
    model_numbers: tuple
    description: str
    dealer_notes: str  # private upstream field: the mirror drops it at the boundary
    image_url: str
    specs: dict
    base_cents: int  # good-tier-adjusted list price before the company's markup


class ProductRow(NamedTuple):
    """One product (or tombstone) as stored; `extra` overrides template fields.

    A value of MISSING anywhere means the key is absent from the record.
    """

    plugin_key: str
    sku: str
    template: ProductTemplate | None
    price: Any
    cost: Any
    published: Any
    ts: int
    deleted: bool = False
    extra: dict | None = None


def render_product(row: ProductRow) -> dict:
    """Build the upstream JSON record for a stored row.

    The dict is new but shares nested values (category, specs) with the
    shared template, which keeps a 500-record page cheap: serialise it, never
    mutate it (the catalog's public getters hand out deep copies).
    """
    if row.deleted:
        return {"plugin_key": row.plugin_key, "sku": row.sku, "deleted": True, "updated_at": iso_utc(row.ts)}
    t = row.template
    if t is None:  # made through set_product(): only what was given
        record = {
            "plugin_key": row.plugin_key,
            "sku": row.sku,
            "price": row.price,
            "cost": row.cost,
            "published": row.published,
        }
    else:
        record = {
            "plugin_key": row.plugin_key,
            "sku": row.sku,
            "name": t.name,
            "category": t.category,
            "tier": t.tier,
            "brand": t.brand,
            "model_numbers": t.model_numbers,
            "description": t.description,
            "price": row.price,
            "cost": row.cost,
            "dealer_notes": t.dealer_notes,  # private upstream field: the mirror drops it at the boundary
            "published": row.published,
            "image_url": t.image_url,
            "specs": t.specs,
        }
    if row.extra:
        record.update(row.extra)
    record["updated_at"] = iso_utc(row.ts)
    if t is None or row.extra:  # only these can hold MISSING
        return {key: value for key, value in record.items() if value is not MISSING}
    return record


def product_is_valid(record: Any) -> bool:
    """The contract's validity rule for a product or tombstone record."""
    if not isinstance(record, dict):
        return False
    if record.get("deleted") is True:
        required: tuple = ("plugin_key", "sku", "updated_at")
    else:
        required = ("plugin_key", "sku", "name", "category", "price", "published", "updated_at")
    if any(record.get(name) is None for name in required):
        return False
    try:
        parse_rfc3339(record["updated_at"])
    except ValueError:
        return False
    price = record.get("price")
    return record.get("deleted") is True or (isinstance(price, str) and bool(MONEY_RE.match(price)))


def format_cents(cents: int, whole_dollars_style: bool = False) -> str:
    """Decimal string for integer cents ("8500.00", or "8500" when asked)."""
    if whole_dollars_style and cents % 100 == 0:
        return str(cents // 100)
    return f"{cents // 100}.{cents % 100:02d}"


def money_to_cents(text: str) -> int:
    """Integer cents of a valid money string (no float on the way)."""
    whole, _, frac = text.partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])
