"""Database engine, sessions and the declarative base.

The schema itself is owned by Alembic (migrations/): every database, the
tests' included, is built by running the migrations; nothing calls `create_all`.
"""

from __future__ import annotations

import json
import re
import select
from pathlib import Path

import orjson
from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

# Stable constraint names on every database, so migrations can refer to them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with the naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _tune_sqlite(dbapi_connection, _record) -> None:
    # WAL lets readers keep reading the last committed state while a sync
    # writes its run in one long transaction; busy_timeout makes a second
    # writer wait instead of failing at once.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_transactions(engine: Engine, begin_statement: str) -> None:
    # pysqlite's legacy transaction handling runs each SELECT outside any
    # transaction, so two reads of one request could straddle a sync's
    # commit. Taking over BEGIN makes every session one consistent snapshot.
    @event.listens_for(engine, "connect")
    def _no_implicit_transactions(dbapi_connection, _record):
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(connection):
        connection.exec_driver_sql(begin_statement)


# orjson reads an integer beyond 64 bits as a float, and two parsers could
# round a float of 17 or more digits apart: such text goes to the standard library.
_LONG_NUMBER = re.compile(rb"[0-9]{17,}")


def load_json(data: bytes | str) -> object:
    """A JSON column's stored text as Python values: exactly what `json.loads` gives, several times faster.

    Every request decodes the company row's JSON columns, so this is orjson,
    except where it could answer differently: a run of 17 or more digits, or
    text orjson refuses (a lone surrogate escape, an exponent beyond a
    double's range), which the standard library reads as it always did.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if _LONG_NUMBER.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


def make_engine(database_url: str, *, writer: bool = False, **kwargs) -> Engine:
    """Create an engine for a normalised DATABASE_URL (SQLite or Postgres).

    Readers get snapshot transactions (a request never sees half a sync run);
    `writer=True` is for the sync, which on SQLite takes the write lock at
    BEGIN so it can never lose a race to upgrade its snapshot.
    """
    kwargs.setdefault("json_deserializer", load_json)
    if database_url.startswith("sqlite"):
        path = database_url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(database_url, connect_args={"timeout": 30, "check_same_thread": False}, **kwargs)
        event.listen(engine, "connect", _tune_sqlite)
        _sqlite_transactions(engine, "BEGIN IMMEDIATE" if writer else "BEGIN")
        return engine
    if not writer:
        kwargs.setdefault("isolation_level", "REPEATABLE READ")
    # Readers check a pooled connection without a round trip (see
    # _discard_closed_connections); a ping per checkout would be one of a
    # warm request's four round trips. The sync keeps the classic ping.
    kwargs.setdefault("pool_pre_ping", writer)
    kwargs.setdefault("pool_size", 5)
    kwargs.setdefault("max_overflow", 10)
    engine = create_engine(database_url, **kwargs)
    if not engine.pool._pre_ping:
        event.listen(engine, "checkout", _discard_closed_connections)
    return engine


def _discard_closed_connections(dbapi_connection, _record, _proxy) -> None:
    """Refuse a pooled connection the server has closed, without a round trip.

    An idle connection's socket has nothing to read, unless the server hung
    up (a restart, pg_terminate_backend, an idle timeout: it sends its error
    and closes) or sent something unasked. Either way the pool drops the
    connection and hands out another (SQLAlchemy's DisconnectionError retry).
    """
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        raise DisconnectionError("connection closed")
    try:
        poller = select.poll()
        poller.register(dbapi_connection.pgconn.socket, select.POLLIN)
        spoke = bool(poller.poll(0))
    except Exception:
        spoke = True
    if spoke:
        raise DisconnectionError("the server closed the connection while it was idle")


def autocommit_rows(session: Session, sql: str, params: dict) -> list[tuple] | None:
    """Run one read-only statement on Postgres as its own autocommit transaction; None where that cannot apply.

    For a session that has not begun a transaction (a request's, before its
    first query), on a Postgres engine: the statement runs on a pooled
    psycopg connection with autocommit on, so it is its own consistent
    snapshot, with no BEGIN and ROLLBACK round trips and no ORM machinery
    (most of a warm request's cost). Elsewhere (SQLite, a session already in
    a transaction, which must keep reading its own snapshot) it returns None
    and the caller takes its transactional path.
    """
    bind = session.get_bind()
    if session.in_transaction() or not isinstance(bind, Engine) or bind.dialect.name != "postgresql":
        return None
    pooled = bind.raw_connection()
    try:
        driver = pooled.driver_connection
        driver.autocommit = True
        try:
            return [tuple(row) for row in driver.execute(sql, params).fetchall()]
        finally:
            driver.autocommit = False
    finally:
        pooled.close()


def make_session_factory(engine: Engine) -> sessionmaker:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(bind=engine, expire_on_commit=False, future=True)


def is_postgres(engine: Engine) -> bool:
    """True when the engine talks to PostgreSQL."""
    return engine.dialect.name == "postgresql"
