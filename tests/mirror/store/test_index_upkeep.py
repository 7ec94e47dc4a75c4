"""The GIN indexes' pending lists stay small and are empty between sync runs (migration 0010, mirror/sync/rebuild.py).

Every search reads a GIN index's whole pending list, unsorted; a large one
made a misspelled question on a 100,000-product company cost 88 ms instead
of 10 ms at the median. These tests ask the server: the cap each index
carries, and what the lists hold after a run that wrote rows
(`pgstatginindex`, from the contrib extension pgstattuple).
"""

from __future__ import annotations

from sqlalchemy import text

from tests.surface_helpers import add_company

GIN_INDEXES = text(
    "SELECT c.relname, c.reloptions FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'gin' ORDER BY c.relname"
)


def _pending(connection, index: str) -> int:
    return connection.execute(
        text("SELECT pending_tuples FROM pgstatginindex(CAST(:i AS regclass))"), {"i": index}
    ).scalar_one()


def test_every_gin_index_caps_its_pending_list(mirror):
    with mirror.engine.connect() as connection:
        indexes = connection.execute(GIN_INDEXES).all()
    assert {name for name, _ in indexes} >= {
        "ix_products_plugin_key_search_vector",
        "ix_products_plugin_key_kinds",
        "ix_companies_search_vector",
        "ix_offer_groups_search_vector",
        "ix_companies_service_postal_codes",
    }
    assert all("gin_pending_list_limit=256" in (options or []) for _, options in indexes), indexes


def test_a_run_that_wrote_rows_leaves_the_pending_lists_empty(mirror, upstream):
    with mirror.engine.begin() as connection:
        connection.execute(text("CREATE EXTENSION IF NOT EXISTS pgstattuple"))
        names = [name for name, _ in connection.execute(GIN_INDEXES)]
    add_company(upstream)
    result = mirror.sync()
    assert result.status == "success", result.error
    assert result.counts.products_written > 0
    with mirror.engine.connect() as connection:
        assert {name: _pending(connection, name) for name in names} == dict.fromkeys(names, 0)
