"""The sync's bulk writes: COPY and set-wise UPDATE.

Each write can be *isolated* (`refused=`): it runs in a savepoint, and when
the database refuses some row's values (a data exception, a value too large
for an index, text a driver cannot encode), the rows are halved until each
refused one stands alone; every other row is written and each refused row is
handed, with its error, to `refused`. One bad record therefore costs the run
that record, never the run itself. Anything else the database says (a lost
connection, a constraint the sync's own de-duplication should have made
impossible, a full disk) still fails the run, which then changes nothing.
"""

from __future__ import annotations

import json
import logging
import operator
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import orjson
import psycopg
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Integer,
    String,
    Text,
    any_,
    bindparam,
    event,
    func,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

# A row the database refused, and why: the isolating writes call it once per such row.
Refused = Callable[[dict, BaseException], None]

# Keys per statement where the sync lists them (a DELETE's key list, a read of some companies'
# rows): enough to amortise a round trip, few enough to keep each statement and its result small.
KEYS_PER_STATEMENT = 500


def batches(items: Sequence, size: int = KEYS_PER_STATEMENT) -> Iterator[Sequence]:
    """`items` in consecutive slices of at most `size`, in order."""
    return (items[start : start + size] for start in range(0, len(items), size))


# What a row's values can make a driver or the database raise (as the error
# itself, or as the `orig` SQLAlchemy wraps it in).
_ROW_ERRORS = (
    psycopg.errors.DataError,  # SQLSTATE class 22: invalid text, numbers out of range, NUL
    psycopg.errors.ProgramLimitExceeded,  # class 54: a value too large for its index (a huge tsvector)
    UnicodeError,  # a lone surrogate, which no driver can encode as UTF-8
)


def refused_by_the_database(error: BaseException) -> bool:
    """Whether an error is the database refusing some row's values (not the statement, connection or server)."""
    cause = getattr(error, "orig", None) or error
    return isinstance(cause, _ROW_ERRORS) or isinstance(error, _ROW_ERRORS)


def refusal_reason(error: BaseException) -> str:
    """A short, value-free reason for the run's summary ("refused by the database (DataError 22021)")."""
    cause = getattr(error, "orig", None) or error
    code = getattr(cause, "sqlstate", None)
    return f"refused by the database ({type(cause).__name__}{f' {code}' if code else ''})"


def write_isolated(rows: list[dict], write: Callable[[list[dict]], None], savepoint, refused: Refused) -> None:
    """`write(rows)` in a savepoint; on a refusal, each half the same way, down to single rows.

    `savepoint()` is a context manager that rolls its work back when the
    block raises. A batch with one refused row costs about 2·log2(n)
    writes of shrinking halves, once.
    """
    try:
        with savepoint():
            write(rows)
    except Exception as error:
        if not refused_by_the_database(error):
            raise
        if len(rows) == 1:
            refused(rows[0], error)
            return
        half = len(rows) // 2
        write_isolated(rows[:half], write, savepoint, refused)
        write_isolated(rows[half:], write, savepoint, refused)


def keys_in(column, keys):
    """`column IN keys` as `column = ANY(array)`: one parameter however many keys (an
    IN list of 1,229 company keys took 14 ms to send, plan and run, the array 7 ms)."""
    return column == any_(bindparam("keys", list(keys), type_=ARRAY(Text), unique=True))


def keys_in_set(column, keys):
    """`column IN keys` as a hashed semi-join (`IN (SELECT unnest(array))`), for statements testing
    many rows: `= ANY(array)` compares each row with every key (tagging 2,000 companies' 60,000 products
    took 0.39 s for one company's key against 0.014 s this way)."""
    return column.in_(select(func.unnest(bindparam("keys", list(keys), type_=ARRAY(Text), unique=True))))


def insert_rows(session: Session, model, rows: list[dict], *, refused: Refused | None = None) -> None:
    """Bulk-insert rows that all have the same keys (isolated with `refused`, see the module's docstring).

    COPY (an order of magnitude faster than INSERTs for the tens of
    thousands of rows a full run writes), on a writer thread
    (`_BackgroundCopy`).
    """
    if not rows:
        return
    _copy_in_background(session, model.__table__, rows, refused)


def update_rows(
    session: Session,
    model,
    rows: list[dict],
    *,
    generated_from: tuple[str, ...] = (),
    refused: Refused | None = None,
) -> None:
    """Bulk-update rows by primary key; all rows have the same keys, the primary key's included.

    The rows are COPYed into a staging table of this transaction and one
    UPDATE ... FROM it: an
    executemany UPDATE cost about 310 us a row (an incremental run's ~2,000
    changed products: 0.6 s), the set-wise one about 110 us, nearly all of
    it the new rows' search vectors and index entries.

    `generated_from`: the columns a stored generated column is computed
    from. Postgres evaluates that column again for every row of an UPDATE
    that assigns any of them, whatever the values. So the rows whose values
    in all of them equal the stored ones (compared as text, which is what
    the expression reads) are updated first without those columns, and only
    the others by the full statement: ~30 us a row instead of ~110 us for a
    repriced product (EXPLAIN ANALYZE, 1,918 rows).
    """
    if not rows:
        return
    _isolated(session, rows, lambda part: _update_from_staging(session, model.__table__, part, generated_from), refused)


def _isolated(session: Session, rows: list[dict], write: Callable[[list[dict]], None], refused: Refused | None) -> None:
    if refused is None:
        write(rows)
    else:
        write_isolated(rows, write, session.begin_nested, refused)


def _update_from_staging(session: Session, table, rows: list[dict], generated_from: tuple[str, ...]) -> None:
    columns = list(rows[0])
    keys = [c.name for c in table.primary_key.columns]
    staging = f"sync_staged_{table.name}"
    session.execute(
        text(
            f"CREATE TEMP TABLE {staging} ON COMMIT DROP AS SELECT {', '.join(columns)} FROM {table.name} WITH NO DATA"
        )
    )
    json_columns = {c.name for c in table.columns if isinstance(c.type, JSON)}
    _copy_rows(session.connection().connection.driver_connection, staging, table, rows)
    matches = " AND ".join(f"t.{c} = s.{c}" for c in keys)

    def update_from(assigned: list[str], condition: str = "") -> None:
        assignments = ", ".join(f"{c} = s.{c}" for c in assigned)
        session.execute(
            text(f"UPDATE {table.name} AS t SET {assignments} FROM {staging} AS s WHERE {matches}{condition}")
        )

    assigned = [c for c in columns if c not in keys]
    sources = [c for c in generated_from if c in assigned]
    if sources:
        same = " AND ".join(
            f"t.{c}::text IS NOT DISTINCT FROM s.{c}::text"
            if c in json_columns
            else f"t.{c} IS NOT DISTINCT FROM s.{c}"
            for c in sources
        )
        # The second statement sees the first one's rows, whose sources
        # still equal the staged ones: each row is updated once.
        update_from([c for c in assigned if c not in sources], f" AND {same}")
        update_from(assigned, f" AND NOT ({same})")
    else:
        update_from(assigned)
    session.execute(text(f"DROP TABLE {staging}"))


class _BackgroundCopy:
    """A COPY running on a writer thread, on the session's own connection.

    Postgres spends most of a full sync evaluating the rows a COPY sends
    (the generated search vector, the GIN index): meanwhile the caller
    parses the next batch, so the two cores work at once. The connection
    is used by one thread at a time all the same: every statement, commit
    or rollback on it first waits for the COPY (`_await_copy`, hooked to the
    connection's events by `_copy_in_background`), so the statements run in
    the order the sync issued them, in its one transaction, and an error of
    the COPY is raised in the caller at its next use of the database.

    An isolated COPY (`refused`) runs in a savepoint of its own, released
    when it is awaited; when the database refused a row, the savepoint is
    rolled back there and the rows are written again, isolated, on the
    caller's thread (`write_isolated`).
    """

    SAVEPOINT = "sync_bulk_copy"

    def __init__(self, driver, table, rows: list[dict], refused: Refused | None) -> None:
        self.driver, self.rows, self.refused = driver, rows, refused
        self.table = table
        if refused is not None:
            driver.execute(f"SAVEPOINT {self.SAVEPOINT}")
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="sync-copy", daemon=True)
        self.thread.start()

    def copy(self, rows: list[dict]) -> None:
        _copy_rows(self.driver, self.table.name, self.table, rows)

    def _run(self) -> None:
        try:
            self.copy(self.rows)
        except BaseException as error:  # handed to the caller by settle()
            self.error = error

    def settle(self, *, rolling_back: bool) -> None:
        """Wait for the COPY; release its savepoint, or isolate what the database refused; raise anything else."""
        self.thread.join()
        error, self.error = self.error, None
        if rolling_back:  # the whole transaction goes anyway
            if error is not None:
                log.debug("a COPY failed before the rollback", exc_info=error)
            return
        if error is not None and (self.refused is None or not refused_by_the_database(error)):
            raise error
        if self.refused is None:
            return
        if error is not None:
            self.driver.execute(f"ROLLBACK TO SAVEPOINT {self.SAVEPOINT}")
        self.driver.execute(f"RELEASE SAVEPOINT {self.SAVEPOINT}")
        if error is not None:
            half = len(self.rows) // 2
            for part in (self.rows[:half], self.rows[half:]) if half else (self.rows,):
                write_isolated(part, self.copy, lambda: _driver_savepoint(self.driver), self.refused)


@contextmanager
def _driver_savepoint(driver) -> Iterator[None]:
    """A savepoint issued on the driver's connection itself (the COPY's; SQLAlchemy's hooks stay out)."""
    driver.execute("SAVEPOINT sync_bulk_part")
    try:
        yield
    except BaseException:
        driver.execute("ROLLBACK TO SAVEPOINT sync_bulk_part")
        driver.execute("RELEASE SAVEPOINT sync_bulk_part")
        raise
    driver.execute("RELEASE SAVEPOINT sync_bulk_part")


_PENDING_COPY, _HOOKED = "mirror.sync.bulk.pending_copy", "mirror.sync.bulk.copy_hooked"


def await_copy(session: Session, *, rolling_back: bool = False) -> None:
    """Settle the session's COPY in flight, if any (see `_BackgroundCopy.settle`)."""
    pending = session.info.pop(_PENDING_COPY, None)
    if pending is not None:
        pending.settle(rolling_back=rolling_back)


def _copy_in_background(session: Session, table, rows: list[dict], refused: Refused | None) -> None:
    await_copy(session)  # one COPY at a time, in order
    connection = session.connection()
    if session.info.get(_HOOKED) is not connection:
        # Per Connection object: the session keeps one for its transaction
        # (held here, so a later one is never mistaken for it).
        session.info[_HOOKED] = connection
        event.listen(connection, "before_cursor_execute", lambda *_, **__: await_copy(session))
        event.listen(connection, "commit", lambda *_: await_copy(session))
        event.listen(connection, "rollback", lambda *_: await_copy(session, rolling_back=True))
    driver = connection.connection.driver_connection
    session.info[_PENDING_COPY] = _BackgroundCopy(driver, table, rows, refused)


def _copy_rows(driver, table_name: str, table, rows: list[dict]) -> None:
    """COPY `rows` (all with the same keys, columns of `table`) into `table_name` (the table, or its staging copy)."""
    columns = list(rows[0])
    json_at = [i for i, c in enumerate(columns) if isinstance(table.c[c].type, JSON)]
    values_of = operator.itemgetter(*columns)
    statement = f"COPY {table_name} ({', '.join(columns)}) FROM STDIN"
    types = _copy_types(table, columns)
    with driver.cursor() as cursor, cursor.copy(statement) as copy:
        if types is not None:
            copy.set_types(types)
        for row in rows:
            values = list(values_of(row)) if len(columns) > 1 else [values_of(row)]
            for i in json_at:
                if values[i] is not None:
                    values[i] = _json_text(values[i])
            copy.write_row(values)


# How COPY's text format is written for each kind of column, by the Python value the sync holds for it: the same
# text psycopg writes when it picks a dumper for each value (a list's by looking through its items), without the
# picking, row after row (a fifth to a third of the COPY's own CPU for the products, with their two arrays).
_COPY_TYPES = (
    (JSON, "text"),
    (ARRAY, "text[]"),
    (String, "text"),
    (Boolean, "bool"),
    (BigInteger, "int8"),
    (Integer, "int8"),
)


def _copy_types(table, columns: list[str]) -> list[str] | None:
    """The psycopg type of each column for `Copy.set_types`; None when one is of a kind not listed (each value's
    own dumper then, as psycopg picks it)."""
    types = []
    for name in columns:
        column_type = table.c[name].type
        if isinstance(column_type, DateTime):
            types.append("timestamptz" if column_type.timezone else "timestamp")
            continue
        if isinstance(column_type, ARRAY) and not isinstance(column_type.item_type, String):
            return None
        found = next((pg for kind, pg in _COPY_TYPES if isinstance(column_type, kind)), None)
        if found is None:
            return None
        types.append(found)
    return types


def _json_text(value) -> str:
    # COPY's text format takes a JSON column as its text; orjson writes it
    # several times faster than json (a value it refuses goes to json).
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(value)
