"""Unstorable text (NUL, lone surrogates) in an upstream record, field by field (docs/core.md,
"Text the database cannot store"): contractor text is repaired with U+FFFD, keys make the
record invalid, and no string a record keeps can stop a write."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mirror.catalog.offers import record_hash
from mirror.catalog.records import CompanyRecord, InvalidRecord, ProductRecord, parse_company, parse_product
from mirror.values.storable import first_unstorable
from tests.mcp_helpers import TUDI_ADDRESS

# The contract's example records (docs/contracts/upstream.md), every field filled.
COMPANY = {
    "plugin_key": "000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq",
    "internal_id": 48213,
    "name": "Tudi Mechanical Systems",
    "trades": ["hvac"],
    "status": "active",
    "storefront_live": True,
    "phone": "(415) 555-1234",
    "website": "tudi-mechanical.example",
    "address": {**TUDI_ADDRESS, "updated_at": "2026-08-30T19:33:42Z"},
    "service_area": {"postal_codes": ["63376", "63385"]},
    "settings": {
        "currency": "USD",
        "price_description": "Fully-installed price. Includes installation and permits.",
        "systems_estimate_url": "https://tudi.example/estimate?ref=site",
        "systems_estimate_url_verified": True,
        "concom_shop_url": "https://shop.example/tudi/",
        "channels": {"jsonld": True, "mcp": True, "webmcp": True, "feed": True, "pricing": True, "quote": True},
    },
    "owner": {"name": "Jane Tudi", "email": "jane@tudi.example", "phone": "+13145550000"},
    "updated_at": "2026-08-30T19:33:42Z",
}
PRODUCT = {
    "plugin_key": "000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq",
    "sku": "HPAH-16-3T-BETTER",
    "name": "Lennox 16 SEER2 Heat Pump & Air Handler, 3 ton",
    "category": {"name": "HP & Air Handler", "slug": "hp-air-handler", "kind": "system"},
    "tier": "better",
    "brand": "Lennox",
    "model_numbers": ["ML17XP1-036", "CBA25UHV-036"],
    "description": "A quiet, efficient heat pump.",
    "price": "10200.00",
    "cost": "6120.00",
    "dealer_notes": "call first",
    "published": True,
    "image_url": "https://img.example/hpah.jpg",
    "specs": {"seer2": 16.2, "tonnage": 3, "refrigerant": "R-454B", "sizes": ["2 ton", "3 ton"]},
    "updated_at": "2026-08-30T19:33:42Z",
}
BAD_TEXT = {"nul": "before\x00after", "surrogate": "before\ud800after", "half emoji": "before\ud83dafter"}
IDENTIFIERS = {("plugin_key",), ("sku",)}
# Required fields that must parse (a price, a timestamp): unstorable text there is unparseable.
PARSED = {("price",), ("updated_at",)}


def _string_leaves(value, path=()):
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _string_leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _string_leaves(item, (*path, index))


def _with(record: dict, path: tuple, value) -> dict:
    copy = orjson.loads(orjson.dumps(record))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


CASES = [
    (kind, parse, raw, path)
    for kind, parse, raw in (("company", parse_company, COMPANY), ("product", parse_product, PRODUCT))
    for path in _string_leaves(raw)
]


@pytest.mark.parametrize("bad", BAD_TEXT.values(), ids=BAD_TEXT.keys())
@pytest.mark.parametrize("kind, parse, raw, path", CASES, ids=[f"{c[0]}:{'.'.join(map(str, c[3]))}" for c in CASES])
def test_unstorable_text_in_any_field_is_repaired_and_a_key_refuses_the_record(kind, parse, raw, path, bad):
    repairs: list = []
    parsed = parse(_with(raw, path, bad), lambda record, fields: repairs.append((record, fields)))
    if path in IDENTIFIERS | PARSED:
        assert isinstance(parsed, InvalidRecord) and parsed.reason == f"invalid {path[0]}"
        if path in IDENTIFIERS:  # never echoed: the summary could not print it
            assert parsed.plugin_key is None if path == ("plugin_key",) else parsed.sku is None
        return
    assert isinstance(parsed, CompanyRecord | ProductRecord), parsed
    kept = parsed.model_dump()
    assert first_unstorable(kept) is None, kept
    text = repr(kept)
    if "before\ufffdafter" in text:  # the field is one the record keeps as text
        assert [record for record, _fields in repairs] == [parsed]
    else:  # a private field, or one normalised away (a URL, a phone, a ZIP, a currency)
        assert repairs == []
    assert "before\x00" not in text


def test_a_repaired_record_names_its_repaired_fields():
    repairs: list = []
    raw = _with(_with(PRODUCT, ("description",), "a\x00b"), ("specs", "refrigerant"), "R\ud800")
    product = parse_product(raw, lambda record, fields: repairs.append((record, fields)))
    assert product.description == "a\ufffdb" and product.specs["refrigerant"] == "R\ufffd"
    assert repairs == [(product, ["description", "specs"])]


def test_json_fields_hold_only_storable_finite_values():
    raw = _with(PRODUCT, ("specs",), {"k\x00": float("nan"), "deep": [{"x": float("inf")}], "ok": 1})
    product = parse_product(raw)
    assert product.specs == {"k\ufffd": None, "deep": [{"x": None}], "ok": 1}


def test_json_nested_too_deep_counts_as_missing():
    deep: dict = {}
    inner = deep
    for _ in range(100):
        inner["k"] = {}
        inner = inner["k"]
    product = parse_product(_with(PRODUCT, ("specs",), deep))
    assert isinstance(product, ProductRecord) and product.specs == {}


# --- fuzzing the record models (Hypothesis; `make fuzz` runs many more examples) ---------

# Any code point, surrogates and NUL included, and those most often.
JSON_TEXT = st.text(alphabet=st.characters(codec=None) | st.sampled_from("\x00\ud800\udfff\ud83d"), max_size=12)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | JSON_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(JSON_TEXT, children, max_size=4),
    max_leaves=40,
)
COMPANY_FIELDS = list(_string_leaves(COMPANY)) + [
    ("address",),
    ("settings",),
    ("trades",),
    ("storefront_live",),
]
PRODUCT_FIELDS = list(_string_leaves(PRODUCT)) + [
    ("category",),
    ("specs",),
    ("model_numbers",),
    ("price",),
    ("published",),
]


def _storable_everywhere(record) -> None:
    dumped = record.model_dump()
    assert first_unstorable(dumped) is None
    # What the database write needs: standard JSON text (no NaN or Infinity, which Postgres's
    # json type refuses) and the record's change hash.
    json.dumps(dumped, allow_nan=False, default=str)
    record_hash(dumped)


@pytest.mark.parametrize(
    "parse, example, fields",
    [(parse_company, COMPANY, COMPANY_FIELDS), (parse_product, PRODUCT, PRODUCT_FIELDS)],
    ids=["company", "product"],
)
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_fuzzed_records_parse_or_are_invalid_never_raise(parse, example, fields, data):
    path = data.draw(st.sampled_from(fields))
    value, extra = data.draw(JSON_VALUES), data.draw(st.dictionaries(JSON_TEXT, JSON_VALUES, max_size=3))
    parsed = parse({**_with(example, path, value), **extra})
    if not isinstance(parsed, InvalidRecord):
        _storable_everywhere(parsed)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(raw=JSON_VALUES)
def test_any_json_value_as_a_record_is_invalid_or_storable(raw):
    for parse in (parse_company, parse_product):
        parsed = parse(raw)
        if not isinstance(parsed, InvalidRecord):
            _storable_everywhere(parsed)
