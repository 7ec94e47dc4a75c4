"""Named values committed together with the rows they describe.

Watermarks, the time of the last successful run, the business feed's change
clock and the state version every process's gate follows all live in `sync_state`, written inside the sync's transaction,
so they can never run ahead of the data.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from mirror.store.models import SyncState
from mirror.values.timestamps import parse_rfc3339, rfc3339

WATERMARK_COMPANIES = "watermark:/v1/companies"
WATERMARK_PRODUCTS = "watermark:/v1/products"
LAST_SUCCESS_AT = "last_success_at"
FEED_CLOCK_MS = "feed_clock_ms"
FEED_DEPARTED_MS = "feed_departed_ms"
# The id of the last run that committed: every process's gate state follows it (mirror/read/gate.py).
STATE_VERSION = "state_version"
# The vocabulary version the companies' concept tags were made with (mirror/sync/concepts.py).
CONCEPTS_VERSION = "concepts_version"
# The word rule the companies' spelling lists were made with (mirror/sync/words.py).
WORDS_VERSION = "words_version"
# The rules the products' kinds and measures were read with (mirror/sync/facts.py).
FACTS_VERSION = "facts_version"
# Rows the runs since the catalog tables were last analyzed wrote (mirror/sync/rebuild.py).
ROWS_SINCE_ANALYZE = "rows_since_analyze"


def read_state(session: Session) -> dict[str, str]:
    """All named values, in one query."""
    return dict(session.execute(select(SyncState.name, SyncState.value)).all())


def get_time(state: dict[str, str], name: str) -> datetime | None:
    """A stored timestamp, or None."""
    return parse_rfc3339(state[name]) if name in state else None


def get_int(state: dict[str, str], name: str) -> int:
    """A stored integer, or 0."""
    return int(state.get(name, "0"))


def put(session: Session, name: str, value: str | int | datetime) -> None:
    """Write one named value in the current transaction."""
    if isinstance(value, datetime):
        value = rfc3339(value)
    row = session.get(SyncState, name)
    if row is None:
        session.add(SyncState(name=name, value=str(value)))
    elif row.value != str(value):
        row.value = str(value)
