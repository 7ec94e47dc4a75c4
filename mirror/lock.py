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
from typing import Iterator

from sqlalchemy import text
from sqlalchemy.engine import Engine

# An arbitrary constant that names "the mirror sync" among advisory locks.
SYNC_LOCK_ID = 0x6D6972726F72


class SyncBusy(RuntimeError):
    """Another process is running a sync right now."""


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
