"""The one-statement read path (mirror.store.db.autocommit_rows and its AutocommitReader).

The gate's lookup, the cold snapshot and the feed page run on
dedicated autocommit connections, prepared once per connection, with rows
decoded by the connection's own loaders only when their bytes are new. These
tests pin what that must never change: the values are exactly what a
psycopg cursor on an engine connection returns; a statement is parsed and
planned once per connection; a failed statement is the driver's own error and
costs only that connection; a connection the server closed is replaced
unseen; disposing the engine closes them all. Inside a transaction the path
does not apply and says so (None), so callers take their transactional path.
"""

from __future__ import annotations

import json
import threading
import time

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from mirror.store.db import AutocommitReader, _ReaderConnection, autocommit_rows
from tests.mirror_helpers import postgres_statements
from tests.surface_helpers import add_company, sync_unrendered

VALUES_SQL = (
    "SELECT %(text)s::text, %(number)s::bigint, NULL::text, true, "
    'CAST(\'{"a": [1, 2.5, "é"], "ton": 18446744073709551616}\' AS json), '
    "TIMESTAMPTZ '2026-12-01 12:00:00.123456+00', %(number)s::bigint + 1"
)
PARAMS = {"text": "Heat & Air — ½ off", "number": 41}


def test_a_session_before_its_first_query_reads_by_one_autocommit_statement(mirror):
    with Session(mirror.engine) as session:
        assert autocommit_rows(session, "SELECT 1", {}) == [(1,)]
        assert not session.in_transaction()


def test_a_session_in_a_transaction_keeps_its_own_snapshot(mirror):
    with Session(mirror.engine) as session:
        session.execute(text("SELECT 1"))
        assert autocommit_rows(session, "SELECT 1", {}) is None


def test_values_are_exactly_what_a_cursor_returns(mirror):
    with mirror.engine.connect() as connection:
        expected = connection.exec_driver_sql(VALUES_SQL, PARAMS).fetchall()
    with Session(mirror.engine) as session:
        first = autocommit_rows(session, VALUES_SQL, PARAMS)
        again = autocommit_rows(session, VALUES_SQL, PARAMS)
    assert first == [tuple(expected[0])]
    assert [type(v) for v in first[0]] == [type(v) for v in expected[0]]
    assert json.dumps(first[0][4]) == json.dumps(expected[0][4])  # the JSON column by load_json: 2**64 stays an int
    assert again[0] is first[0]  # the same bytes again: decoded once, shared (read-only)


def test_a_statement_is_prepared_once_per_connection(mirror):
    prepared = []
    reader = AutocommitReader(mirror.engine)
    connection = reader._checkout()
    real = connection.pgconn

    class Counting:
        def __getattr__(self, name):
            return getattr(real, name)

        def prepare(self, name, sql, *args):
            prepared.append(sql)
            return real.prepare(name, sql, *args)

    connection.pgconn = Counting()
    reader._idle.append(connection)
    for number in range(5):
        assert reader.rows("SELECT %(n)s::int + 1", {"n": number}) == [(number + 1,)]
    assert prepared == [b"SELECT $1::int + 1"]
    reader.close()


def test_a_failed_statement_raises_the_drivers_error_and_the_next_read_works(mirror):
    reader = AutocommitReader(mirror.engine)
    with pytest.raises(psycopg.errors.UndefinedTable):
        reader.rows("SELECT * FROM no_such_table WHERE x = %(x)s", {"x": "1"})
    assert reader._idle == []  # the connection that failed is not reused
    assert reader.rows("SELECT %(x)s::text", {"x": "ok"}) == [("ok",)]
    with pytest.raises(TypeError):
        reader.rows("SELECT %(x)s::text", {"x": 1.5})  # only str, int and None are sent
    reader.close()


def test_cold_reads_go_through_it_and_disposing_closes_its_connections(mirror, upstream, client, app):
    """A render-cache miss reads its snapshot as one autocommit statement on one reused connection (the warm
    path reads nothing: the gate state and the render cache answer it)."""
    key = add_company(upstream)
    sync_unrendered(mirror)  # the pages are rendered from the view
    seen: list[str] = []
    assert client.get(f"/companies/{key}/pricing").status_code == 200  # the engine's first connect
    reads = []
    me = threading.get_ident()  # the background writers' statements are theirs
    original = _ReaderConnection.execute

    def traced(self, sql, values, **kwargs):
        reads.append(self.connection.info.backend_pid)
        return original(self, sql, values, **kwargs)

    _ReaderConnection.execute = traced
    try:
        with postgres_statements(lambda sql: threading.get_ident() == me and seen.append(sql)):
            for _ in range(3):
                app.extensions["render_cache"].clear()  # each one a miss
                assert client.get(f"/companies/{key}/pricing").status_code == 200  # the hosted page: a view
    finally:
        _ReaderConnection.execute = original
    # Each miss looks for the stored page (there is none) and reads the snapshot: one connection, reused.
    assert len(reads) == 6 and len(set(reads)) == 1
    assert len(seen) == 6
    assert all("rendered_documents" in s for s in seen[0::2])
    assert all("FROM companies" in s and "offer_groups" in s for s in seen[1::2])
    pid = reads[0]
    mirror.engine.dispose()
    # The server's backend leaves a moment after the client closes its end: on a loaded machine, not at once.
    deadline = time.monotonic() + 5
    while True:
        with mirror.writer_engine.connect() as admin:
            alive = admin.execute(text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}).scalar()
        if alive == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert alive == 0


def test_rows_that_repeat_cells_decode_like_a_cursor(mirror):
    # A join repeats the company's cells in every row: each cell is decoded
    # once and reused while it repeats; any cell that differs is its own.
    sql = (
        "SELECT * FROM (VALUES "
        "(1, CAST('{\"a\": 1}' AS json), NULL::text, 'x'), "
        "(1, CAST('{\"a\": 1}' AS json), 'y', 'x'), "
        "(2, CAST('{\"a\": 2}' AS json), NULL::text, 'x'), "
        "(2, CAST('[1, 2]' AS json), NULL::text, %(last)s)) AS v(n, j, t, s)"
    )
    with mirror.engine.connect() as connection:
        expected = [tuple(row) for row in connection.exec_driver_sql(sql, {"last": "z"}).fetchall()]
    with Session(mirror.engine) as session:
        rows = autocommit_rows(session, sql, {"last": "z"})
    assert rows == expected
    assert rows[0][1] is rows[1][1] and rows[2][1] is not rows[1][1]  # decoded once while it repeats


def test_a_list_of_strings_is_one_text_array_parameter(mirror):
    items = ['say "hi"', "back\\slash", "", "NULL", "a,b", "{braces}", "é"]
    with Session(mirror.engine) as session:
        rows = autocommit_rows(session, "SELECT %(items)s::text[], cardinality(%(items)s::text[])", {"items": items})
    assert rows == [(items, len(items))]


def test_a_readers_connections_never_jit_compile_nor_scan_a_table_an_index_serves_and_the_writer_keeps_the_server(
    mirror,
):
    """A request's read of one company is never worth a JIT compile, nor a sequential scan of a table an index
    serves (mirror.store.db._reader_options); the sync's writer plans as the server says."""
    settings = ("jit", "enable_seqscan")
    with Session(mirror.engine) as session:
        for setting in settings:
            assert autocommit_rows(session, f"SHOW {setting}", {}) == [("off",)]  # the one-statement reader's
        for setting in settings:
            assert session.execute(text(f"SHOW {setting}")).scalar() == "off"  # and the engine's pool
    url = mirror.writer_engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url) as plain, mirror.writer_engine.connect() as connection:
        for setting in settings:
            server = plain.execute(f"SHOW {setting}").fetchone()[0]  # what any other client of the server gets
            assert connection.execute(text(f"SHOW {setting}")).scalar() == server
