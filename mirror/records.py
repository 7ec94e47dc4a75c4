"""Upstream records, validated and normalised at the boundary.

This is the only place raw upstream JSON is read. Each model declares just the
public fields it keeps; everything else is ignored by pydantic, so the
private fields (`internal_id`, `owner`, `cost`, `dealer_notes`) never reach the
database. A record missing a required field, or with one
unparseable, is invalid (skipped and counted by the sync); any other malformed
field counts as missing and the record is kept.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError, field_validator

from mirror.storable import storable

KNOWN_TRADES = ("hvac", "plumbing", "electrical", "roofing")
CHANNELS = ("jsonld", "mcp", "webmcp", "feed", "pricing", "quote", "a2a")
TIERS = ("good", "better", "best")
PRICE_RE = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")
_ZIP_RE = re.compile(r"^(\d{5})(-?\d{4})?$")
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")  # compiled once: slugify runs for every product


# --- normalisers: each returns the honest normal form or None -----------------


def normalise_phone(value: Any) -> str | None:
    """A US number as E.164 (+1 and ten digits, NANP rules), else None."""
    if not isinstance(value, str):
        return None
    if re.search(r"[^\d\s().+\-]", value):
        return None
    digits = re.sub(r"\D", "", value)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    elif value.strip().startswith("+"):
        return None
    if len(digits) != 10 or digits[0] in "01" or digits[3] in "01":
        return None
    return "+1" + digits


def normalise_url(value: Any, *, bare_host_ok: bool = False) -> str | None:
    """An absolute http(s) URL every surface can publish and redirect to, else None.

    Parsed completely here, at sync time, so no surface can fail on it later
    (a Location Werkzeug cannot encode is a 500): scheme http or https, a
    host with a dot (or localhost) that IDNA can encode, a port from 1 to
    65535 when one is given, and no spaces, control characters, NULs or
    unpaired surrogates anywhere. A bare host gets https:// if allowed.
    """
    if not isinstance(value, str):
        return None
    return _normalise_url_text(value, bare_host_ok)


@functools.lru_cache(maxsize=8192)  # a pure function; a catalog's image URLs repeat (the demo's: 191 of 200,000)
def _normalise_url_text(value: str, bare_host_ok: bool) -> str | None:
    text = value.strip()
    if not text or _SPACE_OR_CONTROL.search(text) or not storable(text):
        return None
    if bare_host_ok and "://" not in text and not text.startswith("//"):
        text = "https://" + text
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port  # .port raises ValueError when out of range or not a number
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host or ("." not in host and host != "localhost"):
        return None
    if port is not None and not 1 <= port <= 65535:
        return None
    return text if _idna_encodable(host) else None


@functools.lru_cache(maxsize=4096)  # hosts repeat: a catalog's images come from a few of them
def _idna_encodable(host: str) -> bool:
    """Whether the host can be written in a URI (Punycode for names; IP literals as they are)."""
    # Every string ip_address accepts has a colon (IPv6) or is digits and
    # dots (IPv4): others skip it, whose ValueError cost more than the check.
    if ":" in host or host.replace(".", "").isdigit():
        try:
            ipaddress.ip_address(host)
            return True
        except ValueError:
            pass
    try:
        host.encode("idna")
    except UnicodeError:  # an empty or over-long label, or a character IDNA refuses
        return False
    return True


def normalise_postal_code(value: Any) -> str | None:
    """The 5-digit ZIP of a US postal code (ZIP+4 and spaces accepted)."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return None
    text = re.sub(r"\s+", "", str(value))
    match = _ZIP_RE.match(text)
    return match.group(1) if match else None


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text or None


def _coordinate(value: Any, limit: int) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if -limit <= number <= limit else None


def price_to_cents(price: str) -> int:
    """'8500.00' -> 850000, exactly (Decimal, never float)."""
    return int(Decimal(price) * 100)


@functools.lru_cache(maxsize=4096)  # a pure function of a few hundred category names
def slugify(text: str) -> str:
    """A URL-safe slug for a category name without one."""
    slug = _NOT_SLUG.sub("-", text.lower()).strip("-")
    return slug or "category"


# --- records ------------------------------------------------------------------


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class CompanyRecord(_Record):
    """A company's public facts, normalised."""

    plugin_key: str = Field(min_length=1, max_length=128)
    name: str = Field(min_length=1)
    status: str
    updated_at: datetime
    trades: list[str] = []
    storefront_live: bool = False
    phone: str | None = None
    website: str | None = None
    address: dict | None = None
    service_postal_codes: list[str] = []
    currency: str = "USD"
    price_description: str | None = None
    estimate_url: str | None = None
    shop_url: str | None = None
    channels: dict[str, bool] = {}

    @property
    def is_public(self) -> bool:
        """Public only while active and live on the storefront."""
        return self.status == "active" and self.storefront_live


class ProductRecord(_Record):
    """A product's public facts, normalised; price in cents."""

    plugin_key: str = Field(min_length=1, max_length=128)
    sku: str = Field(min_length=1, max_length=255)
    name: str = Field(min_length=1)
    category_name: str = Field(min_length=1)
    category_slug: str
    category_kind: Literal["system", "accessory"]
    price_cents: int
    published: bool
    updated_at: datetime
    tier: str | None = None
    brand: str | None = None
    model_numbers: list[str] = []
    description: str | None = None
    image_url: str | None = None
    specs: dict = {}


class Tombstone(_Record):
    """A product deleted upstream."""

    plugin_key: str = Field(min_length=1, max_length=128)
    sku: str = Field(min_length=1, max_length=255)
    updated_at: datetime


class InvalidRecord(BaseModel):
    """A record that could not be used; its key, when readable, protects what is held."""

    plugin_key: str | None
    sku: str | None
    reason: str


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("timestamp without a UTC offset")
    return value.astimezone(UTC)


class _Required(_Record):
    """The fields whose absence or malformation makes a record invalid."""

    @field_validator("updated_at", check_fields=False)
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return _aware(value)


class _CompanyRequired(_Required):
    plugin_key: StrictStr = Field(min_length=1, max_length=128)
    name: StrictStr = Field(min_length=1)
    status: StrictStr = Field(min_length=1)
    updated_at: datetime


class _ProductRequired(_Required):
    plugin_key: StrictStr = Field(min_length=1, max_length=128)
    sku: StrictStr = Field(min_length=1, max_length=255)
    name: StrictStr = Field(min_length=1)
    category: dict
    price: str = Field(pattern=PRICE_RE.pattern)
    published: StrictBool
    updated_at: datetime


class _TombstoneRequired(_Required):
    plugin_key: StrictStr = Field(min_length=1, max_length=128)
    sku: StrictStr = Field(min_length=1, max_length=255)
    deleted: Literal[True]
    updated_at: datetime


# The plain spelling of an RFC 3339 UTC-offset timestamp that both pydantic and
# `datetime.fromisoformat` read the same way; anything else goes to pydantic.
_PLAIN_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")


class _PlainProductFields:
    """The required fields of `_ProductRequired`, read without pydantic (same attributes)."""

    __slots__ = ("plugin_key", "sku", "name", "category", "price", "published", "updated_at")

    def __init__(self, plugin_key, sku, name, category, price, published, updated_at) -> None:
        self.plugin_key, self.sku, self.name, self.category = plugin_key, sku, name, category
        self.price, self.published, self.updated_at = price, published, updated_at


def _product_required(raw: Any) -> _ProductRequired | _PlainProductFields:
    """Validate the required product fields once; raises ValidationError or ValueError.

    Almost every record of a sync is plainly valid, so the common case is
    checked here in plain Python (several times cheaper than the pydantic
    model). It accepts only values `_ProductRequired` accepts and yields the
    same values; anything else, valid or not, is left to the model, so the
    verdict and the reason of an invalid record are the model's.
    """
    if type(raw) is dict:
        key, sku, name = raw.get("plugin_key"), raw.get("sku"), raw.get("name")
        category, price, published, updated = (
            raw.get("category"),
            raw.get("price"),
            raw.get("published"),
            raw.get("updated_at"),
        )
        if (
            type(key) is str
            and 0 < len(key) <= 128
            and type(sku) is str
            and 0 < len(sku) <= 255
            and type(name) is str
            and name
            and type(category) is dict
            and type(price) is str
            and PRICE_RE.fullmatch(price)
            and type(published) is bool
            and type(updated) is str
            and _PLAIN_TIMESTAMP.fullmatch(updated)
        ):
            try:
                stamp = datetime.fromisoformat(updated)
            except ValueError:
                stamp = None  # e.g. month 13: the model says how it is wrong
            if stamp is not None:
                return _PlainProductFields(key, sku, name, category, price, published, _aware(stamp))
    return _ProductRequired.model_validate(raw)


def _keys_of(raw: Any) -> tuple[str | None, str | None]:
    if not isinstance(raw, dict):
        return None, None
    key, sku = raw.get("plugin_key"), raw.get("sku")
    return (key if isinstance(key, str) and key else None, sku if isinstance(sku, str) and sku else None)


def _invalid(raw: Any, error: Exception) -> InvalidRecord:
    key, sku = _keys_of(raw)
    if isinstance(error, ValidationError):
        fields = sorted({".".join(str(p) for p in e["loc"]) or "record" for e in error.errors()})
        reason = "invalid " + ", ".join(fields)
    else:
        reason = str(error)[:200]
    return InvalidRecord(plugin_key=key, sku=sku, reason=reason)


def _address(raw: Any) -> dict | None:
    if not isinstance(raw, dict):
        return None
    address = {
        "line1": _text(raw.get("line1")),
        "line2": _text(raw.get("line2")),
        "locality": _text(raw.get("city")),
        "region": _text(raw.get("state")),
        "postal_code": normalise_postal_code(raw.get("postal_code")),
        "country": _text(raw.get("country")),
        "latitude": _coordinate(raw.get("latitude"), 90),
        "longitude": _coordinate(raw.get("longitude"), 180),
    }
    return address if any(v is not None for v in address.values()) else None


def _postal_codes(raw: Any) -> list[str]:
    codes = raw.get("postal_codes") if isinstance(raw, dict) else None
    if not isinstance(codes, list):
        return []
    return sorted({z for z in map(normalise_postal_code, codes) if z})


def _trades(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        return []
    found = {t.strip().lower() for t in raw if isinstance(t, str)}
    return [t for t in KNOWN_TRADES if t in found]


def _channels(raw: Any) -> dict[str, bool]:
    raw = raw if isinstance(raw, dict) else {}
    # A missing switch means on; only an explicit "off" closes a surface.
    return {name: raw.get(name) not in (False, "false", 0, "off") for name in CHANNELS}


def _currency(raw: Any) -> str:
    return raw.upper() if isinstance(raw, str) and re.fullmatch(r"[A-Za-z]{3}", raw) else "USD"


def parse_company(raw: Any) -> CompanyRecord | InvalidRecord:
    """Validate and normalise one upstream company record."""
    try:
        required = _CompanyRequired.model_validate(raw)
    except (ValidationError, ValueError) as error:
        return _invalid(raw, error)
    settings = raw.get("settings") if isinstance(raw.get("settings"), dict) else {}
    estimate = normalise_url(settings.get("systems_estimate_url"))
    return CompanyRecord(
        plugin_key=required.plugin_key,
        name=required.name.strip() or required.name,
        status=required.status.strip().lower(),
        updated_at=required.updated_at,
        trades=_trades(raw.get("trades")),
        storefront_live=raw.get("storefront_live") is True,
        phone=normalise_phone(raw.get("phone")),
        website=normalise_url(raw.get("website"), bare_host_ok=True),
        address=_address(raw.get("address")),
        service_postal_codes=_postal_codes(raw.get("service_area")),
        currency=_currency(settings.get("currency")),
        price_description=_text(settings.get("price_description")),
        estimate_url=estimate if settings.get("systems_estimate_url_verified") is True else None,
        shop_url=normalise_url(settings.get("concom_shop_url")),
        channels=_channels(settings.get("channels")),
    )


def _category(raw: dict) -> tuple[str, str, str]:
    name = _text(raw.get("name"))
    if not name:
        raise ValueError("invalid category.name")
    slug = _text(raw.get("slug"))
    slug = slugify(slug) if slug else slugify(name)
    kind = raw.get("kind")
    kind = "system" if isinstance(kind, str) and kind.strip().lower() == "system" else "accessory"
    return name, slug, kind


def _tier(raw: Any, kind: str) -> str | None:
    tier = raw.strip().lower() if isinstance(raw, str) else None
    return tier if kind == "system" and tier in TIERS else None


def _string_list(raw: Any) -> list[str]:
    return [s.strip() for s in raw if isinstance(s, str) and s.strip()] if isinstance(raw, list) else []


def parse_product(raw: Any) -> ProductRecord | Tombstone | InvalidRecord:
    """Validate and normalise one upstream product record or tombstone."""
    try:
        if isinstance(raw, dict) and raw.get("deleted") is True:
            stone = _TombstoneRequired.model_validate(raw)
            return Tombstone(plugin_key=stone.plugin_key, sku=stone.sku, updated_at=stone.updated_at)
        required = _product_required(raw)
        category_name, category_slug, kind = _category(required.category)
    except (ValidationError, ValueError) as error:
        return _invalid(raw, error)
    # Every field below is already validated or normalised: construct without
    # a second validation pass (the sync parses every product of every run).
    return _construct(
        ProductRecord,
        plugin_key=required.plugin_key,
        sku=required.sku,
        name=required.name,
        category_name=category_name,
        category_slug=category_slug,
        category_kind=kind,
        price_cents=price_to_cents(required.price),
        published=required.published,
        updated_at=required.updated_at,
        tier=_tier(raw.get("tier"), kind),
        brand=_text(raw.get("brand")),
        model_numbers=_string_list(raw.get("model_numbers")),
        description=_text(raw.get("description")),
        image_url=normalise_url(raw.get("image_url")),
        specs=raw.get("specs") if isinstance(raw.get("specs"), dict) else {},
    )


def _construct(model: type[_Record], **values: Any) -> Any:
    """`model.model_construct(**values)` for values naming every field, without its per-field loop.

    Sets exactly what `model_construct` sets (the field values, the set of
    fields given, no extra, no private state) and, like it, validates
    nothing: the callers pass values they validated themselves. It costs a
    fraction of `model_construct`, which matters at one call per product.
    """
    record = model.__new__(model)
    setattr_ = object.__setattr__
    setattr_(record, "__dict__", values)
    setattr_(record, "__pydantic_fields_set__", set(values))
    setattr_(record, "__pydantic_extra__", None)
    setattr_(record, "__pydantic_private__", None)
    return record
