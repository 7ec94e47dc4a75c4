"""One sync at a time across every process and host sharing a database.

Postgres: a session-level advisory lock on a dedicated connection; the server
drops it when that connection dies, so a killed sync never leaves it held.
SQLite: an OS file lock beside the database file, released by the kernel when
the process exits, however it exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
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
    if engine.dialect.name == "postgresql":
        with _advisory_lock(engine):
            yield
    else:
        with _file_lock(_lock_path(engine)):
            yield


@contextlib.contextmanager
def _advisory_lock(engine: Engine) -> Iterator[None]:
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        acquired = connection.execute(text("SELECT pg_try_advisory_lock(:id)"), {"id": SYNC_LOCK_ID}).scalar()
        if not acquired:
            raise SyncBusy("another sync holds the lock")
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": SYNC_LOCK_ID})


def _lock_path(engine: Engine) -> str:
    database = engine.url.database
    if not database or database == ":memory:":
        return os.path.join(os.getcwd(), "instance", "memory.sync.lock")
    return database + ".sync.lock"


@contextlib.contextmanager
def _file_lock(path: str) -> Iterator[None]:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SyncBusy("another sync holds the lock") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def sync_running(engine: Engine) -> bool | None:
    """Whether some process holds the sync lock right now, asked without taking it.

    None when this platform cannot tell (no /proc/locks for the SQLite file lock).
    """
    if engine.dialect.name == "postgresql":
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
    return _file_locked(_lock_path(engine))


def _file_locked(path: str) -> bool | None:
    """Whether a flock() is held on `path`, read from /proc/locks (taking it to test would make a sync busy)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False  # no sync ever ran here
    try:
        with open("/proc/locks") as handle:
            table = handle.read()
    except OSError:
        return None
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    return any(
        len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == device
        for fields in (line.split() for line in table.splitlines())
    )
