"""Text the database can store: the two rules, one for each side of the mirror.

Postgres `text` cannot hold NUL (U+0000), and no UTF-8 database holds a lone
surrogate (U+D800..U+DFFF; JSON's `"\\ud800"` decodes to one in Python), so a
driver raises on either. Each boundary where text enters applies one rule:

- **Client input is refused** (`storable`, `first_unstorable`): the MCP and
  UCP tools answer their normal invalid-argument error naming the argument
  (their input base models call `first_unstorable()`), the JSON-RPC core
  answers -32600 for an envelope field it would echo, and a key in a URL
  path answers the surface's 404 (the gate calls `storable()`). A client can
  correct its request; the 4xx tells it how.
- **Upstream text is repaired** (`repaired_text`, `repaired_json`): each
  unstorable character of a contractor's text becomes U+FFFD REPLACEMENT
  CHARACTER, the way a browser turns a lone surrogate into a USVString, and
  the record is stored. One pasted character must not keep a contractor's
  new prices out of the mirror (refusing the record would keep its last
  valid version, stale, until someone noticed). Identifiers (plugin keys,
  SKUs) are never repaired: a repaired key would name another record, so a
  record whose key cannot be stored is invalid (`refuse_unstorable`).
  The records' annotated types (mirror/catalog/records.py) apply these to every
  string field and every string of a JSON field.
"""

from __future__ import annotations

import math
import re
from typing import Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REASON = "text contains a NUL or an unpaired surrogate character, which cannot be stored"
REPLACEMENT = "\ufffd"
# Deeper JSON than this in an upstream field counts as malformed: Postgres and
# the serialisers have recursion limits of their own, and no catalog fact needs
# more than a few levels.
MAX_JSON_DEPTH = 32


def storable(text: str) -> bool:
    """Whether the database can store this string as it is."""
    return _UNSTORABLE.search(text) is None


def first_unstorable(value: Any, path: tuple[str, ...] = ()) -> str | None:
    """The dotted path ("ids.0", "filters") of the first unstorable string in a JSON value, keys included."""
    if isinstance(value, str):
        return None if storable(value) else (".".join(path) or "arguments")
    if isinstance(value, dict):
        for key, item in value.items():
            name = key if isinstance(key, str) else str(key)
            if not storable(name):
                return ".".join(path) or "arguments"
            found = first_unstorable(item, (*path, name))
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = first_unstorable(item, (*path, str(index)))
            if found is not None:
                return found
    return None


def refuse_unstorable(text: str) -> str:
    """An identifier as it is; ValueError when it cannot be stored (a repaired key would name another record)."""
    if _UNSTORABLE.search(text) is not None:
        raise ValueError(REASON)
    return text


def cut_at_word(text: str, limit: int) -> str:
    """Text longer than `limit` characters cut there at a word boundary, with an ellipsis; shorter text as it is.

    The one cut for contractor text held to a length: an answer's quotation
    (mirror/answers/sentences.py) and a field past its size cap at the
    upstream boundary (mirror/catalog/records.py).
    """
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",.;:") + "…"


def repaired_text(text: str) -> str:
    """The text with each unstorable character replaced by U+FFFD (the same object when there is none)."""
    return text if _UNSTORABLE.search(text) is None else _UNSTORABLE.sub(REPLACEMENT, text)


def repaired_json(value: Any) -> Any:
    """A JSON value the database can store: strings (keys too) repaired, non-finite numbers null.

    ValueError when it nests deeper than MAX_JSON_DEPTH (the caller treats
    the field as malformed). The same object when nothing needs repair (the
    common case, checked first without copying anything).
    """
    return value if _clean_json(value, 0) else _repair_json(value, 0)


def _clean_json(value: Any, depth: int) -> bool:
    # Written for speed: the sync checks every product's specs, nearly always a
    # small flat object of numbers and short strings.
    kind = type(value)
    if kind is str:
        return _UNSTORABLE.search(value) is None
    if kind is float:
        return math.isfinite(value)
    if kind is not dict and kind is not list:
        return True
    if depth >= MAX_JSON_DEPTH:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    search = _UNSTORABLE.search
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or search(key) is not None:
                return False
            item_kind = type(item)
            if item_kind is str:
                if search(item) is not None:
                    return False
            elif (item_kind is float or item_kind is dict or item_kind is list) and not _clean_json(item, depth + 1):
                return False
        return True
    return all(_clean_json(item, depth + 1) for item in value)


def _repair_json(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return repaired_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # NaN and Infinity are not JSON
    if isinstance(value, list | dict) and depth >= MAX_JSON_DEPTH:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, list):
        return [_repair_json(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {repaired_text(str(k)): _repair_json(v, depth + 1) for k, v in value.items()}
    return value
