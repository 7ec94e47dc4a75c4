"""JSON text, written one way everywhere: compact and UTF-8 as `json.dumps` writes it, by orjson where that is the same.

Every body, record, tool result and message is serialised by these (the
surfaces through web/responses.py and web/jsonrpc.py; the tool declarations
directly). JSON knows no NaN or infinity: `finite` turns them into null
where a payload could carry one.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal

import orjson

# A number in exponent form (1e-05, 1.5e+16) is the one place orjson's digits differ from json's.
# Found as "a digit, then e or E": every digit maps to 0, e and E to e, the rest to a space, and
# the text is searched for "0e" (a translation and a search, four times a regex's speed); each
# place found counts only where it ends a token that starts as a JSON number does (after `:`, `,`,
# `[` or a space), so a company's key ("7lScpX0eQ...": a digit and an e about one time in six, and
# a tool result lists ten) does not send the payload to the slow encoder.
_NUMBER_BYTES = frozenset(b"0123456789.+-")
_BEFORE_A_NUMBER = frozenset(b":,[ \n")
_DIGIT_E = bytes(ord("0") if chr(c).isdigit() and c < 128 else ord("e") if c in b"eE" else ord(" ") for c in range(256))


def decimal_number(value: Decimal | None) -> int | float | None:
    """A Decimal as the JSON number with its own digits (11006, 60.05, 15.2); None stays None.

    A decimal of up to 15 significant digits (every two-decimal price below
    10**13) round-trips exactly through a double's shortest repr, so the
    emitted digits are the decimal's own.
    """
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def dumps(payload) -> str:
    """Compact JSON that keeps non-ASCII text as is: `json.dumps(payload, ensure_ascii=False, separators=(",",
    ":"))`, NaN and the infinities as null (JSON has neither: `finite`).

    Written by orjson wherever that is the same text (`orjson_text`): a sync
    renders every document of each company it changed, and the standard
    library's encoder was a twentieth of that.
    """
    fast = orjson_text(payload, 0)
    return fast if fast is not None else json.dumps(finite(payload), ensure_ascii=False, separators=(",", ":"))


def orjson_text(payload, option: int) -> str | None:
    """orjson's text for `payload` when it is the standard library's too, else None.

    orjson writes what `json.dumps(..., ensure_ascii=False)` writes (same
    separators, same escapes, the same shortest float digits), except a
    float in exponent form (`1e-07` against `1e-7`; `1e-05` against
    `0.00001`), an integer beyond 64
    bits or a lone surrogate (which it refuses), and NaN or an infinity
    (which it writes as null). Anything where an `e` follows a digit outside
    a string is left to the standard library, as is anything orjson refuses.
    """
    try:
        fast = orjson.dumps(payload, option=option)
    except TypeError:
        return None
    # Below 1e-4 the standard library writes an exponent (1e-05); orjson does so only below 1e-6 (0.00001).
    if b"0.0000" in fast or _has_exponent_number(fast):
        return None
    return fast.decode("utf-8")


def _has_exponent_number(text: bytes) -> bool:
    """Whether `text` may hold a number in exponent form (never a false no; rarely a false yes, in a string)."""
    marks = text.translate(_DIGIT_E)
    at = marks.find(b"0e")
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in _NUMBER_BYTES:
            start -= 1
        if start == 0 or text[start - 1] in _BEFORE_A_NUMBER:
            return True
        at = marks.find(b"0e", at + 2)
    return False


def pretty_dumps(payload) -> str:
    """`json.dumps(payload, indent=2, ensure_ascii=False)`, NaN and the infinities as null.

    With an indent the standard library encodes in pure Python (its C
    encoder only writes compact JSON), which was a fifth of an MCP tool
    call: orjson writes it wherever it writes the same text.
    """
    fast = orjson_text(payload, orjson.OPT_INDENT_2)
    return fast if fast is not None else json.dumps(finite(payload), indent=2, ensure_ascii=False)


def finite(value):
    """`value` with every NaN or infinite float replaced by None (containers copied, the rest as is)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value
