"""The one rule for times: stored and compared as aware UTC, published as RFC 3339 with a Z.

Everything the mirror stores is UTC, so a naive value *is* UTC (`aware`). Every time a payload, a log line
or the upstream client spells is `rfc3339` (microseconds kept when present).
An upstream timestamp must carry its offset (`parse_rfc3339`); the upstream
record models refuse one without (mirror/catalog/records.py).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime


def aware(value: datetime | None) -> datetime | None:
    """The same instant as an aware datetime: a naive value is UTC; None stays None."""
    return value if value is None or value.tzinfo is not None else value.replace(tzinfo=UTC)


@functools.lru_cache(maxsize=1024)  # the same few stamps (a run's end, a product's update) on every request
def rfc3339(value: datetime | None) -> str | None:
    """RFC 3339 in UTC with a Z (`2026-09-01T17:30:17Z`), or None."""
    if value is None:
        return None
    return aware(value).astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_rfc3339(text: str) -> datetime:
    """An RFC 3339 timestamp with a UTC offset as an aware UTC datetime; ValueError without an offset."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError("timestamp without offset")
    return value.astimezone(UTC)
