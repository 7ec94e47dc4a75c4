"""One sync at a time across every process and host sharing a database.

A session-level advisory lock on a dedicated connection; the server drops it
when that connection dies, so a killed sync never leaves it held.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import text
from sqlalchemy.engine import Engine

# An arbitrary constant that names "the mirror sync" among advisory locks.
SYNC_LOCK_ID = 0x6D6972726F72


class SyncBusy(RuntimeError):
    """Another process is running a sync right now."""


class SyncRecent(SyncBusy):
    """A scheduled run found, holding the lock, that a whole run ended moments ago (another process synced)."""

    def __init__(self, age_seconds: float) -> None:
        super().__init__(f"the last run ended {age_seconds:.0f}s ago")
        self.age_seconds = age_seconds


@contextlib.contextmanager
def sync_lock(engine: Engine) -> Iterator[None]:
    """Hold the cross-process sync lock, or raise SyncBusy at once."""
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        acquired = connection.execute(text("SELECT pg_try_advisory_lock(:id)"), {"id": SYNC_LOCK_ID}).scalar()
        if not acquired:
            raise SyncBusy("another sync holds the lock")
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": SYNC_LOCK_ID})


def sync_running(engine: Engine) -> bool:
    """Whether some process holds the sync lock right now, asked without taking it."""
    with engine.connect() as connection:
        # A bigint advisory key is stored as classid (high 32 bits), objid (low 32 bits), objsubid 1.
        return bool(
            connection.execute(
                text(
                    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
                    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                    "AND classid::text::bigint = :high AND objid::text::bigint = :low AND objsubid = 1)"
                ),
                {"high": SYNC_LOCK_ID >> 32, "low": SYNC_LOCK_ID & 0xFFFFFFFF},
            ).scalar()
        )
