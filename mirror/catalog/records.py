"""Upstream records, validated and normalised at the boundary.

This is the only place raw upstream JSON is read. Each model declares just the
public fields it keeps, each with an annotated type that says how its value is
read (mirror/values/storable.py and the normalisers below); everything else is
ignored by pydantic, so the private fields (`internal_id`, `owner`, `cost`,
`dealer_notes`) never reach the database. A record missing a required field,
or with one unparseable, is invalid (skipped and counted by the sync); any
other malformed field counts as missing and the record is kept.

Every string a record keeps goes through one of two types: `Text` (and the
types built on it), which repairs unstorable characters (U+FFFD), and `Key`,
which refuses them (the record is invalid). JSON fields are `JsonObject`,
whose every string, key or value, is repaired the same way. A record whose
text was repaired is reported to the caller that asks (`on_repair`): the
sync names it in its summary.

Every field is held to a size (the caps in mirror/store/models.py, declared
once): text past its cap is cut at a word boundary, a list or JSON object
past its cap counts as missing, and an `updated_at` later than the caller's
clock allows (`latest_stamp`: now plus UPSTREAM_MAX_CLOCK_SKEW_SECONDS) is
held to it. A record so held is reported too (`on_cap`).
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from encodings.idna import nameprep
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from mirror.catalog.channels import CHANNELS
from mirror.catalog.trades import ACCESSORY, KNOWN_TRADES, SYSTEM, TIERS, CategoryKind
from mirror.runtime.config import default
from mirror.store.models import (
    DESCRIPTION_MAX_CHARS,
    KEY_LENGTH,
    MAX_CENTS,
    MODEL_NUMBERS_MAX,
    NAME_MAX_CHARS,
    SERVICE_AREA_MAX_POSTAL_CODES,
    SKU_LENGTH,
    SLUG_LENGTH,
    SPECS_MAX_BYTES,
    SPECS_MAX_DEPTH,
    STATUS_LENGTH,
)
from mirror.values.addresses import address_allowed
from mirror.values.money import to_cents
from mirror.values.storable import cut_at_word, refuse_unstorable, repaired_json, repaired_text, storable

PRICE_RE = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")
_ZIP_RE = re.compile(r"^(\d{5})(-?\d{4})?$")
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")  # compiled once: slugify runs for every product
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
# Where a validation notes the fields whose text it repaired, and those it held to a cap (pydantic's
# validation context), and where it finds the latest `updated_at` it keeps.
_REPAIRED, _CAPPED, _LATEST_STAMP = "repaired", "capped", "latest_stamp"


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


# The longest URL a record may publish, in characters. Every surface puts these URLs in a
# header or a page (the quote redirect's Location: a 20 KB one is a 502 through nginx), and
# browsers, proxies and crawlers handle 2,048 everywhere.
URL_MAX_LENGTH = 2048
# Characters no published host may hold, beyond Unicode's format characters (category Cf: soft
# hyphen, zero-width, bidi controls; checked by category): the other default-ignorable code
# points (combining grapheme joiner, Hangul fillers, variation selectors, tags). A browser drops
# or maps them, so the host a reader sees is not the host the browser goes to.
_DEFAULT_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# WHATWG's forbidden domain code points that can reach a host here (after the checks on the whole
# URL), and the label separators IDNA reads as a dot (a browser reads `10\u30020.0.1` as 10.0.0.1).
_FORBIDDEN_IN_HOST = re.compile("[#%/:<>?@\\[\\\\\\]^|\u3002\uff0e\uff61]")


def normalise_url(value: Any, *, bare_host_ok: bool = False) -> str | None:
    """An absolute http(s) URL every surface can publish and redirect to, in its normal form, else None.

    Parsed completely here, at sync time, the way a browser parses it (the
    WHATWG URL rules), so no surface can fail on it later (a Location
    Werkzeug cannot encode is a 500) and the host it names is the host a
    browser goes to: at most URL_MAX_LENGTH characters; scheme http or
    https; no backslash (a browser reads `https://evil.example\\.tudi.example/`
    as the host evil.example); no user information (`http://a@b@host/`
    names another host than it seems to); a host as a browser would write
    it (`_ascii_host`: no invisible characters, no percent-escapes, labels
    IDNA leaves as they are) that is a name with a dot (or localhost) or an
    IP address judged by what it is (`_publishable_host`); a port from 1 to
    65535 when one is given; and no spaces, control characters, NULs or
    unpaired surrogates anywhere. A bare host gets https:// if allowed. The
    URL is published with its scheme and host in lower case (and its port
    as a number), the rest as written.
    """
    if not isinstance(value, str):
        return None
    return _normalise_url_text(value, bare_host_ok)


@functools.lru_cache(maxsize=8192)  # a pure function; a catalog's image URLs repeat (the demo's: 191 of 200,000)
def _normalise_url_text(value: str, bare_host_ok: bool) -> str | None:
    text = value.strip()
    if not text or len(text) > URL_MAX_LENGTH or "\\" in text or _SPACE_OR_CONTROL.search(text) or not storable(text):
        return None
    if bare_host_ok and "://" not in text and not text.startswith("//"):
        text = "https://" + text
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port  # .port raises ValueError when out of range or not a number
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc:
        return None
    if port is not None and not 1 <= port <= 65535:
        return None
    ascii_host = _ascii_host(host)
    if ascii_host is None or not _publishable_host(ascii_host):
        return None
    netloc = (f"[{host}]" if ":" in host else host) + ("" if port is None else f":{port}")
    # urlsplit lower-cases the scheme and host it reports; the path, query and fragment stay as written.
    normal = f"{parts.scheme}://{netloc}{text[len(parts.scheme) + 3 + len(parts.netloc) :]}"
    return normal if len(normal) <= URL_MAX_LENGTH else None


@functools.lru_cache(maxsize=4096)  # hosts repeat: a catalog's images come from a few of them
def _ascii_host(host: str) -> str | None:
    """The host (lower case, no brackets) as the ASCII name a browser resolves, or None if it is not written as one.

    An IP literal is itself. A name is refused when it holds an invisible
    character (Cf or default-ignorable), a percent-escape or another
    character WHATWG forbids in a domain, or a label IDNA would rewrite
    (full-width letters, `ß`): the published host is then exactly the host
    a browser goes to, only in Unicode where the browser uses Punycode.
    """
    if ":" in host:
        return host  # an IPv6 literal (urlsplit checked the brackets); judged by _publishable_host
    if (
        _FORBIDDEN_IN_HOST.search(host)
        or _DEFAULT_IGNORABLE.search(host)
        or any(unicodedata.category(char) == "Cf" for char in host)
    ):
        return None
    try:
        if any(not label.isascii() and nameprep(label) != label for label in host.split(".")):
            return None
        return host.encode("idna").decode("ascii")
    except UnicodeError:  # an empty or over-long label, or a character IDNA refuses
        return None


@functools.lru_cache(maxsize=4096)  # hosts repeat: a catalog's images come from a few of them
def _publishable_host(host: str) -> bool:
    """Whether a URL's host (its ASCII form, lower case, no brackets) can be published.

    An IP address is judged by the address (mirror.values.addresses), however it is
    spelled: loopback, like `localhost`, or public unicast; never private,
    link-local or reserved space. A name must have a dot (or be localhost)
    and must not end in a numeric label (a browser reads `999.1.1.1` or
    `0x7f.1` as an IPv4 address, and refuses or rewrites it).
    """
    if ":" in host or host.replace(".", "").isdigit():
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return False if ":" in host else _publishable_name(host)
        return address_allowed(host, allow_loopback=True)
    return _publishable_name(host)


def _publishable_name(host: str) -> bool:
    if "." not in host and host != "localhost":
        return False
    return not _NUMERIC_LABEL.match(host.rstrip(".").rsplit(".", 1)[-1])


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


@functools.lru_cache(maxsize=4096)  # a pure function of a few hundred category names
def slugify(text: str) -> str:
    """A URL-safe slug for a category name without one (at most the column's length)."""
    slug = _NOT_SLUG.sub("-", text.lower()).strip("-")[:SLUG_LENGTH].rstrip("-")
    return slug or "category"


def _address(raw: Any, info: ValidationInfo) -> dict | None:
    if not isinstance(raw, dict):
        return None

    def line(name: str) -> str | None:
        return _held_to(_text(raw.get(name)), NAME_MAX_CHARS, info)

    address = {
        "line1": line("line1"),
        "line2": line("line2"),
        "locality": line("city"),
        "region": line("state"),
        "postal_code": normalise_postal_code(raw.get("postal_code")),
        "country": line("country"),
        "latitude": _coordinate(raw.get("latitude"), 90),
        "longitude": _coordinate(raw.get("longitude"), 180),
    }
    return address if any(v is not None for v in address.values()) else None


def _postal_codes(raw: Any, info: ValidationInfo) -> list[str]:
    codes = raw.get("postal_codes") if isinstance(raw, dict) else None
    if not isinstance(codes, list):
        return []
    zips = sorted({z for z in map(normalise_postal_code, codes) if z})
    if len(zips) > SERVICE_AREA_MAX_POSTAL_CODES:
        # More than any contractor serves: malformed, so missing. Keeping some of them would
        # publish an area nobody drew.
        _note(info, _CAPPED)
        return []
    return zips


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


def _string_list(raw: Any) -> list[str]:
    return [s.strip() for s in raw if isinstance(s, str) and s.strip()] if isinstance(raw, list) else []


def _settings(raw: Any) -> dict:
    return raw if isinstance(raw, dict) else {}


def _verified_estimate(settings: Any) -> str | None:
    """The contractor's own quote funnel: `systems_estimate_url`, only when `..._verified` is true."""
    settings = _settings(settings)
    return (
        normalise_url(settings.get("systems_estimate_url"))
        if settings.get("systems_estimate_url_verified") is True
        else None
    )


def _cents(raw: Any) -> int:
    if not isinstance(raw, str) or not PRICE_RE.fullmatch(raw):
        raise ValueError("a price is a decimal string with up to two decimals")
    cents = to_cents(raw)  # exact: PRICE_RE allows two decimals at most
    if cents > MAX_CENTS:
        raise ValueError("a price too large to store")
    return cents


def _category(raw: Any) -> dict:
    if not isinstance(raw, dict):
        raise ValueError("a category is an object")
    return raw


def _category_name(raw: Any) -> str:
    name = _text(_category(raw).get("name"))
    if not name:
        raise ValueError("a category needs a name")
    return name


def _category_slug(raw: Any) -> str:
    category = _category(raw)
    return slugify(_text(category.get("slug")) or _text(category.get("name")) or "")


def _category_kind(raw: Any) -> str:
    kind = _category(raw).get("kind")
    return SYSTEM if isinstance(kind, str) and kind.strip().lower() == SYSTEM else ACCESSORY


def _with_offset(value: datetime, info: ValidationInfo) -> datetime:
    """An upstream timestamp in UTC: it must say its offset (docs/contracts/upstream.md), and one later than
    the context's latest stamp (the clock plus the allowed skew) is held to it."""
    if value.tzinfo is None:
        raise ValueError("timestamp without a UTC offset")
    try:
        value = value.astimezone(UTC)
    except OverflowError:  # beyond the last (or before the first) representable day once in UTC
        if value.year == 1:
            raise ValueError("timestamp out of range") from None
        value = datetime.max.replace(tzinfo=UTC)
    latest = latest_stamp_of(info.context)
    if value > latest:
        _note(info, _CAPPED)
        return latest
    return value


def latest_stamp_of(context: dict | None) -> datetime:
    """The latest `updated_at` a record keeps: the context's, else now plus the default allowed skew."""
    latest = context.get(_LATEST_STAMP) if context is not None else None
    return latest or datetime.now(UTC) + timedelta(seconds=default("upstream_max_clock_skew_seconds"))


# --- the annotated types: how each kind of value is read ------------------------


def _note(info: ValidationInfo, kind: str) -> None:
    """Note the field being validated as repaired or capped, when the caller asked (a validation context)."""
    if info.context is not None:
        info.context.setdefault(kind, set()).add(info.field_name)


def _held_to(text: str | None, limit: int, info: ValidationInfo) -> str | None:
    """Text cut at a word boundary past `limit` characters (noted as capped); None stays None."""
    if text is None or len(text) <= limit:
        return text
    _note(info, _CAPPED)
    return cut_at_word(text, limit)


def _capped(limit: int) -> AfterValidator:
    """The validator holding a text field to `limit` characters."""
    return AfterValidator(lambda text, info: _held_to(text, limit, info))


def _first_model_numbers(numbers: list[str], info: ValidationInfo) -> list[str]:
    if len(numbers) <= MODEL_NUMBERS_MAX:
        return numbers
    _note(info, _CAPPED)
    return numbers[:MODEL_NUMBERS_MAX]


def _depth(value: Any) -> int:
    """Levels of nesting of a JSON value (a scalar is 0); stops counting past SPECS_MAX_DEPTH."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    deepest = 0
    for child in children:
        if isinstance(child, dict | list):
            deepest = max(deepest, _depth(child))
            if deepest >= SPECS_MAX_DEPTH:
                break
    return 1 + deepest


def _bounded_specs(specs: dict, info: ValidationInfo) -> dict:
    """Specs nested deeper or larger than their caps count as missing ({}): no catalog fact needs them."""
    if _depth(specs) > SPECS_MAX_DEPTH or len(orjson.dumps(specs)) > SPECS_MAX_BYTES:
        _note(info, _CAPPED)
        return {}
    return specs


def _not_empty(text: str) -> str:
    if not text:
        raise ValueError("must not be empty")
    return text


def _repaired(text: str, info: ValidationInfo) -> str:
    """Text with its unstorable characters replaced (mirror/values/storable.py), noted in the validation context."""
    if storable(text):
        return text
    _note(info, _REPAIRED)
    return repaired_text(text)


def _repaired_object(value: dict, info: ValidationInfo) -> dict:
    """A JSON object with every string repaired; one nested too deep counts as missing ({})."""
    try:
        repaired = repaired_json(value)
    except ValueError:
        repaired = {}
    if repaired is not value:
        _note(info, _REPAIRED)
    return repaired


# Contractor text: any string, its unstorable characters repaired.
Text = Annotated[StrictStr, AfterValidator(_repaired)]
# Identifiers: refused, not repaired, when they cannot be stored.
Key = Annotated[StrictStr, StringConstraints(min_length=1, max_length=KEY_LENGTH), AfterValidator(refuse_unstorable)]
Sku = Annotated[StrictStr, StringConstraints(min_length=1, max_length=SKU_LENGTH), AfterValidator(refuse_unstorable)]
# A required name: a non-empty string, at most NAME_MAX_CHARS. (Checked after the repair:
# pydantic refuses a lone surrogate in a string it measures.)
Name = Annotated[Text, AfterValidator(_not_empty), _capped(NAME_MAX_CHARS)]
# Optional text: trimmed, and missing when empty or not a string.
OptionalText = Annotated[Text | None, BeforeValidator(_text)]
ShortText = Annotated[OptionalText, _capped(NAME_MAX_CHARS)]
LongText = Annotated[OptionalText, _capped(DESCRIPTION_MAX_CHARS)]
TextList = Annotated[list[Annotated[Text, _capped(NAME_MAX_CHARS)]], BeforeValidator(_string_list)]
JsonObject = Annotated[dict, AfterValidator(_repaired_object)]
# A URL every surface can publish (normalise_url); missing when malformed.
Url = Annotated[StrictStr | None, BeforeValidator(normalise_url)]
UtcTimestamp = Annotated[datetime, AfterValidator(_with_offset)]


# --- records ------------------------------------------------------------------


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# Called with a record whose text was repaired (or, OnCap, that was held to a cap), and the names of those fields.
OnRepair = Callable[[Any, list[str]], None]
OnCap = OnRepair


def _validated(
    model: type[_Record], raw: Any, on_repair: OnRepair | None, on_cap: OnCap | None, latest_stamp: datetime | None
):
    """`model.model_validate(raw)`, calling `on_repair` and `on_cap` for a record repaired or capped."""
    context: dict = {_LATEST_STAMP: latest_stamp}
    record = model.model_validate(raw, context=context)
    if on_repair is not None and _REPAIRED in context:
        on_repair(record, sorted(context[_REPAIRED]))
    if on_cap is not None and _CAPPED in context:
        on_cap(record, sorted(context[_CAPPED]))
    return record


class CompanyRecord(_Record):
    """A company's public facts, normalised."""

    plugin_key: Key
    name: Annotated[Name, AfterValidator(lambda name: name.strip() or name)]
    status: Annotated[Name, AfterValidator(lambda s: s.strip().lower())]
    updated_at: UtcTimestamp
    trades: Annotated[list[str], BeforeValidator(_trades)] = []
    storefront_live: Annotated[bool, BeforeValidator(lambda value: value is True)] = False
    phone: Annotated[StrictStr | None, BeforeValidator(normalise_phone)] = None
    website: Annotated[Url, BeforeValidator(lambda value: normalise_url(value, bare_host_ok=True))] = None
    address: Annotated[JsonObject | None, BeforeValidator(_address)] = None
    service_postal_codes: Annotated[list[str], BeforeValidator(_postal_codes)] = Field(
        [], validation_alias="service_area"
    )
    # The settings object's facts (a missing or malformed settings object counts as empty).
    currency: Annotated[str, BeforeValidator(lambda s: _currency(_settings(s).get("currency")))] = Field(
        "USD", validation_alias="settings"
    )
    price_description: Annotated[LongText, BeforeValidator(lambda s: _settings(s).get("price_description"))] = Field(
        None, validation_alias="settings"
    )
    estimate_url: Annotated[Url, BeforeValidator(_verified_estimate)] = Field(None, validation_alias="settings")
    shop_url: Annotated[Url, BeforeValidator(lambda s: _settings(s).get("concom_shop_url"))] = Field(
        None, validation_alias="settings"
    )
    channels: Annotated[dict[str, bool], BeforeValidator(lambda s: _channels(_settings(s).get("channels")))] = Field(
        default_factory=lambda: _channels(None), validation_alias="settings"
    )

    @field_validator("status")
    @classmethod
    def _fits_its_column(cls, status: str) -> str:
        if len(status) > STATUS_LENGTH:
            raise ValueError("not a status this mirror knows")
        return status

    @property
    def is_public(self) -> bool:
        """Public only while active and live on the storefront."""
        return self.status == "active" and self.storefront_live


class ProductRecord(_Record):
    """A product's public facts, normalised; price in cents."""

    plugin_key: Key
    sku: Sku
    name: Name
    # Three facts of the upstream `category` object (it must be one, with a name).
    category_name: Annotated[Text, BeforeValidator(_category_name), _capped(NAME_MAX_CHARS)] = Field(
        validation_alias="category"
    )
    category_slug: Annotated[str, BeforeValidator(_category_slug)] = Field(validation_alias="category")
    category_kind: Annotated[CategoryKind, BeforeValidator(_category_kind)] = Field(validation_alias="category")
    price_cents: Annotated[int, BeforeValidator(_cents)] = Field(validation_alias="price")
    published: StrictBool
    updated_at: UtcTimestamp
    tier: str | None = None
    brand: ShortText = None
    model_numbers: Annotated[TextList, AfterValidator(_first_model_numbers)] = []
    description: LongText = None
    image_url: Url = None
    specs: Annotated[
        JsonObject,
        BeforeValidator(lambda value: value if isinstance(value, dict) else {}),
        AfterValidator(_bounded_specs),
    ] = {}

    @field_validator("tier", mode="before")
    @classmethod
    def _tier_of_a_system(cls, raw: Any, info: ValidationInfo) -> str | None:
        # Any other value, or a tier on an accessory, counts as none.
        tier = raw.strip().lower() if isinstance(raw, str) else None
        return tier if info.data.get("category_kind") == SYSTEM and tier in TIERS else None


class Tombstone(_Record):
    """A product deleted upstream."""

    plugin_key: Key
    sku: Sku
    deleted: Literal[True]
    updated_at: UtcTimestamp


class InvalidRecord(BaseModel):
    """A record that could not be used; its key, when readable, protects what is held."""

    plugin_key: str | None
    sku: str | None
    reason: str


def _keys_of(raw: Any) -> tuple[str | None, str | None]:
    if not isinstance(raw, dict):
        return None, None
    key, sku = raw.get("plugin_key"), raw.get("sku")
    return (
        key if isinstance(key, str) and key and storable(key) else None,
        sku if isinstance(sku, str) and sku and storable(sku) else None,
    )


def _invalid(raw: Any, error: ValidationError) -> InvalidRecord:
    key, sku = _keys_of(raw)
    fields = sorted({".".join(str(p) for p in e["loc"]) or "record" for e in error.errors(include_input=False)})
    return InvalidRecord(plugin_key=key, sku=sku, reason="invalid " + ", ".join(fields))


def parse_company(
    raw: Any, on_repair: OnRepair | None = None, *, on_cap: OnCap | None = None, latest_stamp: datetime | None = None
) -> CompanyRecord | InvalidRecord:
    """Validate and normalise one upstream company record (`latest_stamp`: see latest_stamp_of)."""
    try:
        return _validated(CompanyRecord, raw, on_repair, on_cap, latest_stamp)
    except ValidationError as error:
        return _invalid(raw, error)


def parse_product(
    raw: Any, on_repair: OnRepair | None = None, *, on_cap: OnCap | None = None, latest_stamp: datetime | None = None
) -> ProductRecord | Tombstone | InvalidRecord:
    """Validate and normalise one upstream product record or tombstone (`latest_stamp`: see latest_stamp_of)."""
    model = Tombstone if isinstance(raw, dict) and raw.get("deleted") is True else ProductRecord
    try:
        return _validated(model, raw, on_repair, on_cap, latest_stamp)
    except ValidationError as error:
        return _invalid(raw, error)
