"""The one background writer of what requests leave behind: source hits and invocations.

A request only appends rows to a bounded in-memory queue; one thread per
process, waking every `linger_seconds`, writes them in batches through its
own one-connection engine. So recording can never change a status or body,
never fail a request and never wait on the database (during a lock on a
table, the writer waits instead), and a `?source=` request costs one queue
and one writer whatever it records. A full queue drops the row and counts it.

The thread starts with the first row (so it survives gunicorn's fork) and,
after `idle_seconds` without rows, closes its connection and ends; the next
row starts it again. A process serving traffic keeps one connection for these
rows; an idle, closed or discarded app holds none.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import defaultdict

from sqlalchemy.orm import Session

from mirror.store.db import make_engine
from web.drain import Drain

log = logging.getLogger(__name__)


class RecordWriter:
    """A bounded queue of (model, row) and the thread that inserts them, each table in its own transaction."""

    batch_size = 500
    # Each wake-up is a transaction of its own: at 1 s, rows arrive in batches several times
    # larger than at 0.2 s, which cost a warm pricing.json request about 7% less CPU (measured).
    linger_seconds = 1.0
    idle_seconds = 5.0

    def __init__(self, database_url: str, capacity: int = 20000) -> None:
        # `database_url` is the primary's (DATABASE_URL), never DATABASE_READ_URL: these rows are writes,
        # and a streaming replica refuses them.
        self.database_url = database_url
        self.session_factory = self._session
        self.queue: queue.Queue = queue.Queue(maxsize=capacity)
        self.dropped = 0
        self._engine = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._drain = Drain(self.queue, self.batch_size)

    def record(self, model, row: dict) -> None:
        """Queue one row for `model`'s table; never raises, never blocks (a full queue drops and counts)."""
        try:
            self.queue.put_nowait((model, row))
        except queue.Full:
            self.dropped += 1
            return
        with self._lock:  # paired with the exit in _run: a queued row always has a writer
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="record-writer", daemon=True)
                self._thread.start()

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until every queued row is written or dropped (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while self.queue.unfinished_tasks and time.monotonic() < deadline:
            self._drain.wake()  # write now: a waiting caller must not wait out the linger
            time.sleep(0.01)

    def close(self, timeout: float = 5.0) -> None:
        """Flush, then end the thread and close its connection; a later row starts them again."""
        self.flush(timeout)
        with self._lock:
            thread = self._thread
            if thread is not None:
                try:
                    self._drain.stop()
                except queue.Full:  # rows keep arriving: the thread stays, as it should
                    thread = None
        if thread is not None:
            thread.join(timeout)

    def _session(self) -> Session:
        if self._engine is None:
            self._engine = make_engine(self.database_url, pool_size=1, max_overflow=0)
        return Session(self._engine)

    def _run(self) -> None:
        while True:
            # Up to batch_size rows each `linger_seconds`; idle for `idle_seconds` or closed: end (web/drain.py).
            batch, stop = self._drain.next_batch(self.linger_seconds, self.idle_seconds)
            if batch:
                self._write(batch)
            if stop:
                with self._lock:
                    if self.queue.empty():
                        self._thread = None
                        self._close_engine()
                        return

    def _write(self, batch: list[tuple]) -> None:
        tables = defaultdict(list)
        for model, row in batch:
            tables[model].append(row)
        unwritten = len(batch)
        try:
            with self.session_factory() as session:
                for model, rows in tables.items():
                    try:  # one table's trouble (a lock, a missing table) costs only its own rows
                        _insert(session, model, rows)
                        session.commit()
                    except Exception as error:
                        session.rollback()
                        self._lost(len(rows), model.__tablename__, error)
                    unwritten -= len(rows)
        except Exception as error:  # recording must never take anything down with it
            self._lost(unwritten, "rows", error)
        finally:
            for _ in batch:
                self.queue.task_done()

    def _lost(self, count: int, what: str, error: Exception) -> None:
        self.dropped += count
        log.warning("could not record %d %s: %s", count, what, type(error).__name__)

    def _close_engine(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.dispose()


def _insert(session: Session, model, rows: list[dict]) -> None:
    """Insert plain row dicts in the session's transaction, as cheaply as the database allows.

    One COPY per column set (a few microseconds a row), never the ORM's bulk
    path, whose per-row bookkeeping cost more CPU than the request that
    produced the row.
    """
    connection = session.connection()
    by_columns: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        by_columns[tuple(row)].append(row)
    cursor = connection.connection.driver_connection.cursor()
    try:
        for columns, same in by_columns.items():
            names = ", ".join(f'"{name}"' for name in columns)
            with cursor.copy(f'COPY "{model.__tablename__}" ({names}) FROM STDIN') as copy:
                for row in same:
                    copy.write_row([row[name] for name in columns])
    finally:
        cursor.close()
