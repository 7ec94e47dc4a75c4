"""Database engine, sessions and the declarative base.

The schema itself is owned by Alembic (migrations/): every database, the
tests' included, is built by running the migrations; nothing calls `create_all`.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import operator
import os
import re
import select
import weakref
from collections import OrderedDict, namedtuple

import orjson
from psycopg import errors as psycopg_errors
from psycopg.adapt import Transformer
from psycopg.pq import ConnStatus, ExecStatus, Format
from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from mirror.runtime.deadline import (
    TIMEOUT_STEP_MS,
    bound_statements,
    cancelled_for_deadline,
    deadline_error,
    statement_timeout_ms,
)

# Stable constraint names on every database, so migrations can refer to them.
# An execution option a statement carries when its best plan depends on its values (a full-text search: a
# rare word is found on the index, a common one by the company's rows). Such a statement is sent unprepared,
# so Postgres plans it for the values at hand every time. A prepared one switches to a generic plan after
# five executions, and the generic plan read every product of a 100,000-product company for a misspelled
# word: 110 ms against 20 ms (docs/performance.md, "Issue 30").
PLAN_PER_CALL = "mirror_plan_per_call"


def planned_per_call(statement):
    """`statement`, marked to be planned for its values on every execution (see PLAN_PER_CALL)."""
    return statement.execution_options(**{PLAN_PER_CALL: True})


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
    """Create an engine for a normalised DATABASE_URL.

    Readers get snapshot transactions (REPEATABLE READ: a request never sees
    half a sync run); `writer=True` is for the sync. A reader's statements
    obey the running request's deadline (mirror/runtime/deadline.py); the sync's
    writer has none.
    """
    kwargs.setdefault("json_deserializer", load_json)
    if not writer:
        kwargs.setdefault("isolation_level", "REPEATABLE READ")
        kwargs["connect_args"] = _reader_options(kwargs.get("connect_args"))
    # Readers check a pooled connection without a round trip (see
    # _discard_closed_connections): a ping per checkout would double a cold
    # request's one statement. The sync keeps the classic ping.
    pre_ping = kwargs.setdefault("pool_pre_ping", writer)
    kwargs.setdefault("pool_size", 5)
    kwargs.setdefault("max_overflow", 10)
    engine = create_engine(database_url, **kwargs)
    event.listen(engine, "do_execute", _unprepared_when_marked)
    if not pre_ping:
        event.listen(engine, "checkout", _discard_closed_connections)
    if not writer:
        bound_statements(engine)
    return engine


def _reader_options(connect_args: dict | None) -> dict:
    """A reader's connection arguments: no JIT compilation, and no plan that reads a whole table where an
    index serves.

    JIT compiles a statement whose estimated cost passes `jit_above_cost`: worth it for a query that scans
    millions of rows, never for a request's read of one company, which it would delay by the compile itself
    (the directory's category question was costed high enough: 55 ms of compiling for a 45 ms statement).

    A request reads one company's rows (by its key, on its full-text and kind indexes) or the directory's
    (on the ZIP and concept indexes): a sequential scan of `products` is never what it means. The planner
    still chose one for a common word on a large catalog ("air" in 30,000 of a company's 100,000 products:
    "the first 1,001 matches will come soon"), costed as if the company's rows were spread evenly through
    the table. They are not: a scan reads the table from where the last one left off (synchronized scans),
    so it found them at once or first read every other company's rows: 2 ms, or 180-370 ms beside 300,000
    products, growing with the mirror (docs/performance.md, "Issue 30, seventh pass"). Off, the planner
    takes the index (the same CPU for such a word, measured) and falls back to a sequential scan only where
    no index can serve. The server's settings stay for everything else (the sync's writer, an operator's
    psql).
    """
    args = dict(connect_args or {})
    args["options"] = f"{args.get('options', '')} -c jit=off -c enable_seqscan=off".strip()
    return args


def _unprepared_when_marked(cursor, statement, parameters, context) -> bool | None:
    """Send a statement marked PLAN_PER_CALL unprepared (psycopg's `prepare=False`); others as SQLAlchemy does."""
    if not context.execution_options.get(PLAN_PER_CALL):
        return None
    cursor.execute(statement, parameters, prepare=False)
    return True


def _discard_closed_connections(dbapi_connection, _record, _proxy) -> None:
    """Refuse a pooled connection the server has closed, without a round trip.

    An idle connection's socket has nothing to read, unless the server hung
    up (a restart, pg_terminate_backend, an idle timeout: it sends its error
    and closes) or sent something unasked. Either way the pool drops the
    connection and hands out another (SQLAlchemy's DisconnectionError retry).
    """
    if getattr(dbapi_connection, "closed", False) or getattr(dbapi_connection, "broken", False):
        raise DisconnectionError("connection closed")
    if _socket_has_spoken(dbapi_connection.pgconn.socket):
        raise DisconnectionError("the server closed the connection while it was idle")


def _socket_has_spoken(socket: int) -> bool:
    """Whether an idle connection's socket has something to read: the server hung up (or spoke unasked)."""
    try:
        poller = select.poll()
        poller.register(socket, select.POLLIN)
    except Exception:
        return True
    return _readable(poller)


def _readable(poller) -> bool:
    """Whether a registered idle socket has something to read (a failed poll counts as yes: it is gone)."""
    try:
        return bool(poller.poll(0))
    except Exception:
        return True


def autocommit_rows(session: Session, sql: str, params: dict, *, prepare: bool = True) -> list[tuple] | None:
    """Run one read-only statement as its own autocommit transaction; None where that cannot apply.

    For a session that has not begun a transaction (a request's, before its
    first query), bound to an engine: the statement runs on one of the
    engine's autocommit reader connections (`AutocommitReader`), so it is
    its own consistent snapshot, with no BEGIN and ROLLBACK round trips and
    no ORM machinery. Elsewhere (a session already in a transaction, which
    must keep reading its own snapshot, or bound to one connection) it
    returns None and the caller takes its transactional path.

    `sql` uses psycopg's `%(name)s` placeholders; parameters are str, int or
    None. The rows' values are shared between requests: read-only. `prepare=False` sends it unprepared
    (PLAN_PER_CALL).
    """
    bind = session.get_bind()
    if session.in_transaction() or not isinstance(bind, Engine):
        return None
    reader = _READERS.get(bind)
    if reader is None:
        reader = _READERS.setdefault(bind, AutocommitReader(bind))
    return reader.rows(sql, params, prepare=prepare)


def statement_rows(session: Session, statement, params: dict) -> list:
    """The rows of one read-only SQLAlchemy statement, as one consistent snapshot.

    Before the session has begun a transaction (a request's), the
    statement runs by `autocommit_rows`: its SQL text is compiled once from
    this very statement (so the query is written once, with SQLAlchemy),
    with no BEGIN or ROLLBACK. Elsewhere it runs in the session's
    transaction. Rows are tuples in the statement's column order: read them
    by name through `rows_by_name`.
    """
    bind = session.get_bind()
    if not session.in_transaction() and isinstance(bind, Engine):
        sql, defaults = _compiled_for_postgres(statement)
        prepare = not statement.get_execution_options().get(PLAN_PER_CALL)
        rows = autocommit_rows(session, sql, {**defaults, **params}, prepare=prepare)
        if rows is not None:
            return rows
    return [tuple(row) for row in session.execute(statement, params)]


def rows_by_name(statement, rows, row_type: type[tuple] | None = None, *, prefix: str = "") -> list:
    """`rows` (in `statement`'s column order: `statement_rows`' tuples, or SQLAlchemy rows) as named tuples.

    Rows are read by name, never by position: each column is found by its
    name (its label) in the statement. By default every column, under its
    name (a column SQLAlchemy could not name, `_no_label`, is refused:
    label it). With `row_type` (a named tuple
    class) only its fields, read from the columns named `prefix` + field
    (a joined statement labels its second table's columns with a prefix).
    The mapping is worked out once per statement and type; a row then costs
    one tuple.
    """
    make, pick = _row_maker(statement, row_type, prefix)
    if pick is None:
        return list(map(make, rows))
    return [make(pick(row)) for row in rows]


@functools.lru_cache(maxsize=512)  # statements are built once per shape and reused (hashable by identity)
def _row_maker(statement, row_type: type[tuple] | None, prefix: str):
    """(make a `row_type` from a tuple of its fields, pick those fields from a row; None: the row is them)."""
    names = list(statement.selected_columns.keys())
    if row_type is None:
        unusable = [n for n in names if not n.isidentifier() or n.startswith("_")]
        if unusable:
            raise ValueError(f"columns without a name of their own (label them): {unusable}")
        row_type = namedtuple("Row", names)
    wanted = [prefix + field for field in row_type._fields]
    missing = [name for name in wanted if name not in names]
    if missing:
        raise ValueError(f"the statement has no columns named {missing}")
    make = functools.partial(tuple.__new__, row_type)
    at = [names.index(name) for name in wanted]
    if at == list(range(len(names))):
        return make, None
    pick = operator.itemgetter(*at) if len(at) > 1 else (lambda row, i=at[0]: (row[i],))
    return make, pick


@functools.lru_cache(maxsize=256)  # statements are built once per shape and reused (hashable by identity)
def _compiled_for_postgres(statement) -> tuple[str, dict]:
    """A statement's Postgres SQL (`%(name)s` placeholders) and the values of the literals it binds itself."""
    from sqlalchemy.dialects.postgresql import psycopg as psycopg_dialect

    compiled = statement.compile(dialect=psycopg_dialect.dialect())
    defaults = {name: value for name, value in compiled.params.items() if value is not None}
    return str(compiled), defaults


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@functools.lru_cache(maxsize=256)
def _numbered(sql: str) -> tuple[bytes, tuple[str, ...]]:
    """`%(name)s` placeholders as `$1, $2, ...` (each name once) and the names in that order."""
    names: list[str] = []

    def number(match: re.Match) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    numbered = _PLACEHOLDER.sub(number, sql)
    if "%" in numbered:
        raise ValueError("autocommit reads take only %(name)s placeholders")
    return numbered.encode("utf-8"), tuple(names)


def _parameter(value) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value).encode("ascii")
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return _text_array(value).encode("utf-8")
    raise TypeError(f"autocommit reads take str, int, a list of str or None parameters, not {type(value).__name__}")


def _text_array(items) -> str:
    """A list of strings as Postgres's array input text: every element quoted, `"` and `\\` escaped."""
    quoted = ('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in items)
    return "{" + ",".join(quoted) + "}"


def _load_row(raw: tuple, loaders: list, previous: tuple[tuple, tuple] | None) -> tuple:
    """One row's values from its cells, reusing the previous row's value for an identical cell."""
    if previous is None:
        return tuple(None if value is None else load(value) for value, load in zip(raw, loaders, strict=True))
    before, values = previous
    return tuple(
        values[column] if value == before[column] else (None if value is None else loaders[column](value))
        for column, value in enumerate(raw)
    )


class _ReaderConnection:
    """One psycopg connection in autocommit mode, its prepared statements and its row decoder."""

    MAX_PREPARED = 64  # statements are built per channel set: a few dozen at most

    def __init__(self, connection) -> None:
        connection.autocommit = True
        self.connection = connection
        self.pgconn = connection.pgconn
        self.decoder = Transformer(connection)  # the connection's own loaders (JSON columns by load_json)
        self.prepared: dict[bytes, bytes] = {}
        self._loaders: dict[bytes, list] = {}  # per statement text, a few dozen
        self.statement_timeout: int | None = None  # ms, as last SET here; None: the server's default
        # One poller for the connection's life (its socket never changes): asking it is one syscall.
        self._poller = select.poll()
        self._poller.register(self.pgconn.socket, select.POLLIN)

    def bound(self, timeout: int | None) -> None:
        """Make this connection's statement_timeout fit the running request (`timeout` ms; None: no request).

        A round trip only when the value held would cut the statement early,
        or let it run more than a step past the deadline, or when a request's
        value is still set and no request runs (the CLI's reads are unbounded).
        """
        held = self.statement_timeout
        if timeout is None:
            if held is not None:
                self._check(self.pgconn.exec_(b"RESET statement_timeout"), ExecStatus.COMMAND_OK)
                self.statement_timeout = None
            return
        if held is not None and timeout <= held <= timeout + TIMEOUT_STEP_MS:
            return
        self._check(self.pgconn.exec_(b"SET statement_timeout = %d" % timeout), ExecStatus.COMMAND_OK)
        self.statement_timeout = timeout

    def execute(self, sql: bytes, values: list, *, prepare: bool = True):
        """The statement's result, prepared on this connection at first use (plan and parse once) unless not `prepare`."""
        name = self.prepared.get(sql) if prepare else None
        if name is None and prepare and len(self.prepared) < self.MAX_PREPARED:
            name = f"mirror_read_{len(self.prepared)}".encode()
            self._check(self.pgconn.prepare(name, sql), ExecStatus.COMMAND_OK)
            self.prepared[sql] = name
        result = self.pgconn.exec_prepared(name, values) if name else self.pgconn.exec_params(sql, values)
        return self._check(result, ExecStatus.TUPLES_OK)

    def _check(self, result, wanted: ExecStatus):
        if result is None or result.status != wanted:
            if result is None or self.pgconn.status != ConnStatus.OK:  # the connection itself failed
                raise psycopg_errors.OperationalError("the database connection was lost during a read")
            raise psycopg_errors.error_from_result(result, encoding=self.connection.info.encoding)
        return result

    def loaders(self, sql: bytes, result) -> list:
        """The load function of each column of `sql`'s results (fixed for a statement: looked up once)."""
        found = self._loaders.get(sql)
        if found is None:
            found = [
                self.decoder.get_loader(result.ftype(c), Format(result.fformat(c))).load for c in range(result.nfields)
            ]
            if len(self._loaders) < 4 * self.MAX_PREPARED:
                self._loaders[sql] = found
        return found

    def hung_up(self) -> bool:
        """Whether the server has closed this idle connection (no round trip: a socket poll)."""
        if self.connection.closed or self.pgconn.status != ConnStatus.OK:
            return True
        return _readable(self._poller)  # readable while idle: the server hung up (or spoke unasked)

    def close(self) -> None:
        """Close the connection (never raises)."""
        with contextlib.suppress(Exception):  # already gone: nothing to release
            self.connection.close()


class AutocommitReader:
    """One-statement reads on an engine's dedicated autocommit connections.

    The cold snapshot, the feed page and the catalog search each read with
    one statement, which is its own consistent snapshot (mirror.store.db.statement_rows
    compiles it from its SQLAlchemy form). Driving them through a pooled
    connection toggled into autocommit and a cursor cost most of such a
    request's database CPU in the client (bench/patch_costs.py: a cold
    pricing.json 1.78x as long through SQLAlchemy's AUTOCOMMIT connection): the toggle is a round trip's worth of
    driver work each way, the cursor and its placeholders are rebuilt per
    call, and the server parses and plans the statement every time.

    So each reader keeps a few connections of its own, opened by the engine
    (the same URL, arguments and JSON loaders) and detached from its pool,
    permanently in autocommit; each statement is prepared once per
    connection and then executed with libpq's PQexecPrepared (the GIL is
    released while it waits). A row is decoded by the connection's own
    loaders (exactly what a cursor would give) only when its bytes were not
    seen before: rows are kept, decoded, by their exact bytes, so a warm
    request decodes nothing.

    Connections are per process (a fork starts afresh), at most one per
    concurrent caller, checked without a round trip before use (a server
    that hung up is noticed and the connection replaced), discarded after
    any error, and closed when the engine is disposed.
    """

    MAX_DECODED = 4096  # rows kept decoded, by their bytes; oldest first out

    def __init__(self, engine: Engine) -> None:
        self._engine = weakref.ref(engine)  # the readers' registry is keyed by the engine: never hold it
        self._pid = os.getpid()
        self._idle: list[_ReaderConnection] = []
        # FIFO by insertion: popping a plain dict's first key slows down as
        # deleted slots pile up at its front (3% of a cold request, measured).
        self._decoded: OrderedDict[tuple, tuple] = OrderedDict()
        event.listen(engine, "engine_disposed", lambda _engine: self.close())

    def rows(self, sql: str, params: dict, *, prepare: bool = True) -> list[tuple]:
        """The statement's rows as tuples of Python values (read-only: shared between callers).

        `prepare=False`: planned for these values, never prepared (PLAN_PER_CALL).
        """
        numbered, names = _numbered(sql)
        values = [_parameter(params[name]) for name in names]
        timeout = statement_timeout_ms()  # the request's remaining time (DeadlineExceeded once it is spent)
        connection = self._checkout()
        try:
            connection.bound(timeout)
            result = connection.execute(numbered, values, prepare=prepare)
            rows = self._decode(numbered, result, connection)
        except BaseException as error:
            connection.close()
            if cancelled_for_deadline(error):
                raise deadline_error(error) from error
            raise
        self._idle.append(connection)
        return rows

    def _decode(self, sql: bytes, result, connection: _ReaderConnection) -> list[tuple]:
        """The result's rows: each one kept decoded by its bytes; a new one decoded cell by cell.

        A cell equal to the same column's cell in the row before is that
        row's value (a join repeats the company's columns in every offer
        group's row: their JSON is decoded once, not once per group).
        """
        width, decoded, cell = result.nfields, self._decoded, result.get_value
        columns = range(width)
        loaders = None
        previous: tuple[tuple, tuple] | None = None
        rows = []
        for index in range(result.ntuples):
            raw = tuple(map(cell, itertools.repeat(index, width), columns))  # no Python frame per cell
            key = (sql, raw)
            row = decoded.get(key)
            if row is None:
                if loaders is None:
                    loaders = connection.loaders(sql, result)
                row = _load_row(raw, loaders, previous)
                if len(decoded) >= self.MAX_DECODED:
                    with contextlib.suppress(KeyError):  # another thread emptied it meanwhile
                        decoded.popitem(last=False)
                decoded[key] = row
            previous = (raw, row)
            rows.append(row)
        return rows

    def _checkout(self) -> _ReaderConnection:
        if self._pid != os.getpid():  # a forked child: the parent's sockets are not ours to use
            self._pid, self._idle = os.getpid(), []
        while True:
            try:
                connection = self._idle.pop()
            except IndexError:
                return self._open()
            if not connection.hung_up():
                return connection
            connection.close()

    def _open(self) -> _ReaderConnection:
        engine = self._engine()
        if engine is None:
            raise RuntimeError("the engine of this reader is gone")
        pooled = engine.raw_connection()  # the engine's own connect arguments and set-up
        driver = pooled.driver_connection
        pooled.detach()  # ours from now on: the pool forgets it
        return _ReaderConnection(driver)

    def close(self) -> None:
        """Close every idle connection (the engine is being disposed)."""
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


_READERS: weakref.WeakKeyDictionary[Engine, AutocommitReader] = weakref.WeakKeyDictionary()


def make_session_factory(engine: Engine) -> sessionmaker:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(bind=engine, expire_on_commit=False, future=True)
