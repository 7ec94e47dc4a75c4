"""Statements whose best plan depends on their values are planned for them on every call (mirror.store.db.PLAN_PER_CALL).

A prepared statement switches to a generic plan after five executions, and
for a full-text search the generic plan is the wrong one: it read every
product of a 100,000-product company for a misspelled word (110 ms against
20 ms). The catalog search of a large catalog and the directory's search
carry the mark (the spelling lookup, whose every part reads the company's
word list on an index by its key whatever the words, is prepared); these tests ask the server which statements a connection
holds prepared, with an unmarked statement as the control, on both read
paths (the autocommit reader and a session's transaction).
"""

from __future__ import annotations

from sqlalchemy import literal_column, select, text

from mirror.read.businesses import search_feed_businesses
from mirror.read.catalog import search_catalog
from mirror.store.db import planned_per_call, statement_rows
from tests.surface_helpers import add_company, sync

RUNS = 12  # more than psycopg's prepare threshold (5) and Postgres' custom-plan count (5)
PREPARED = "SELECT statement FROM pg_prepared_statements"


def _marker(name: str):
    return select(literal_column(f"'{name}'").label("marker"), literal_column("1 + 1").label("two"))


def _prepared_on_reader(session) -> str:
    """The statements prepared on the reader connection `session`'s one-statement reads use (one at a time)."""
    return " ".join(row[0] for row in statement_rows(session, text(PREPARED), {}))


def test_a_marked_statement_is_never_prepared_on_the_reader(mirror):
    with mirror.Session() as session:
        for _ in range(RUNS):
            assert statement_rows(session, planned_per_call(_marker("per-call-mark")), {}) == [("per-call-mark", 2)]
            assert statement_rows(session, _marker("prepared-mark"), {}) == [("prepared-mark", 2)]
        held = _prepared_on_reader(session)
    assert "prepared-mark" in held  # the control: an unmarked statement is prepared
    assert "per-call-mark" not in held


def test_a_marked_statement_is_never_prepared_in_a_transaction(mirror):
    with mirror.Session() as session, session.begin():
        for _ in range(RUNS):
            assert session.execute(planned_per_call(_marker("per-call-mark"))).one() == ("per-call-mark", 2)
            assert session.execute(_marker("prepared-mark")).one() == ("prepared-mark", 2)
        held = " ".join(session.execute(text(PREPARED)).scalars())
    assert "prepared-mark" in held
    assert "per-call-mark" not in held


def test_the_searches_are_planned_for_their_values(mirror, upstream):
    key = add_company(upstream)
    sync(mirror)
    with mirror.Session() as session:
        for _ in range(RUNS):
            search_catalog(session, key, "furnace heat pump")
            search_catalog(session, key, "furnnace")  # a misspelling: the spelling lookup runs too
        held = _prepared_on_reader(session)
    assert "ts_rank_cd" not in held  # a bare key: searched as a large catalog
    assert "company_words" in held  # the spelling lookup: one plan serves every word (mirror/read/words.py)
    with mirror.Session() as session, session.begin():
        for _ in range(RUNS):
            search_feed_businesses(session, query="plumbing hvac near 63103", category="furnaces")
        held = " ".join(session.execute(text(PREPARED)).scalars())
    assert "service_postal_codes" not in held


def test_a_search_planned_per_call_shows_the_planner_its_full_text_queries(mirror, upstream):
    """Folded at planning, not hidden behind an InitPlan (mirror.store.fulltext.tsquery, `per_call`): behind one the
    planner guessed a few thousand matches for a word in nearly every product and built a bitmap of all of them."""
    from tests.mirror_helpers import postgres_statements

    key = add_company(upstream)
    sync(mirror)
    sent: list[str] = []
    with mirror.Session() as session, postgres_statements(sent.append):
        search_catalog(session, key, "lennox quiet furnace")
    searches = [sql for sql in sent if "ts_rank_cd" in sql]
    assert searches, sent
    for sql in searches:
        assert "to_tsquery(" in sql and "SELECT to_tsquery" not in sql
