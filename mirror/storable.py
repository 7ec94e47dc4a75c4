"""Text the database can store: the one check every surface applies to client input.

Postgres `text` cannot hold NUL (U+0000), and no UTF-8 database holds a lone
surrogate (U+D800..U+DFFF; JSON's `"\\ud800"` decodes to one in Python), so a
driver raises on either. Client input carrying them is refused at the
boundary instead, the same way on SQLite and Postgres: the MCP and UCP tools
answer their normal invalid-argument error naming the argument (their input
base models call `first_unstorable()`), and a key in a URL path answers the
surface's 404 (the gate calls `storable()`).
"""

from __future__ import annotations

import re
from typing import Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REASON = "text contains a NUL or an unpaired surrogate character, which cannot be stored"


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
