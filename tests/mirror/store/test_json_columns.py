"""JSON columns decode to exactly what the standard library's `json.loads` gives (mirror.store.db.load_json).

The engines decode stored JSON with orjson, which is faster but reads an
integer beyond 64 bits as a float; those values, and text orjson refuses,
must still come back as `json.loads` reads them, on both databases.
"""

from __future__ import annotations

import json
import math

import pytest
from sqlalchemy import JSON, text

from mirror.store.db import load_json

TEXTS = [
    '{"line1": "1 Main St", "postal_code": "02139", "latitude": 42.3601, "longitude": -71.0942}',
    '{"pricing": false, "mcp": true}',
    '["HVAC", "Plumbing", "Électricité", "\\u00e9"]',
    "123456789012345678901234567890",  # beyond 64 bits: orjson would give 1.2345678901234568e+29
    '{"ton": 18446744073709551616, "x": -9223372036854775809}',
    "0.1000000000000000055511151231257827",
    '"\\ud800"',  # a lone surrogate escape: orjson refuses it
    "1e400",  # beyond a double: orjson refuses, json reads inf
    '{"a": 1, "a": 2}',
    "[]",
]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isinf(a):
        return a == b
    return type(a) is type(b) and a == b and json.dumps(a) == json.dumps(b)


@pytest.mark.parametrize("text", TEXTS)
def test_load_json_is_json_loads(text):
    assert _same(load_json(text.encode()), json.loads(text))
    assert _same(load_json(text), json.loads(text))


def test_the_engines_decode_json_columns_like_json_loads(mirror):
    # A json-typed value, as a JSON column hands it to the engine.
    statement = text("SELECT CAST(:value AS json) AS value").columns(value=JSON)
    with mirror.engine.connect() as connection:
        for stored in TEXTS:
            found = connection.execute(statement, {"value": stored}).scalar()
            assert _same(found, json.loads(stored)), stored
