"""products.search_vector: the same tsvector as 0003, computed for about 2/3 of the cost

The generated column is evaluated by the backend for every row a sync
writes, so a full sync of 200,000 products spent most of its database time
in it (13.4 s of serial CPU for the expression alone, measured with
`SELECT count(<expression>)` and parallel workers off; an INSERT ... SELECT
of those rows took 13.8 s with the column, 0.5 s without). Two changes,
neither of which changes a single vector (checked row by row on the
benchmark's 199,391 products: `old IS DISTINCT FROM new` found none):

- The separators become spaces through a chain of replace() calls instead
  of one translate(). On UTF-8 text translate() walks its 19-character
  "from" list per input character (2.8 s over the descriptions); replace()
  with a one-byte needle scans with memchr and returns its input untouched
  when the needle is absent (0.37 s for all 19 passes).
- The name and the model numbers, both weight A, are one to_tsvector call
  over `name || ' ' || models`: `||` on tsvectors offsets the right side's
  positions by the left side's last one, which is what one call over the
  joined text produces, so lexemes, weights and positions are identical.

Total: 8.7 s instead of 13.4 s for the expression over the same rows. The
rest is the parser and the stemmer themselves (to_tsvector of the raw
descriptions with the 'simple' configuration alone is 2.6 s) and the GIN
index (2.9 s; neither a larger pending list nor more work_mem helped).

PostgreSQL 15 cannot change a generated column's expression in place, so
the column (and its GIN index) is dropped and added again; that rewrites
the table once and rebuilds the index from the rows already there.
Downgrade restores 0003's expression.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:30:00
"""

import importlib.util
from pathlib import Path

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _revision_0003():
    # Its module name starts with a digit: loaded by path, for the one
    # expression (and separator list) the two revisions share.
    path = Path(__file__).with_name("0003_fulltext_search.py")
    spec = importlib.util.spec_from_file_location("_mirror_migration_0003", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_0003 = _revision_0003()


def _pg_norm(expression: str) -> str:
    # The same mapping as 0003's translate(): each separator becomes a space.
    for separator in _0003._PG_SEPARATORS:
        quoted = separator.replace("'", "''")
        expression = f"replace({expression}, '{quoted}', ' ')"
    return expression


def _pg_words(expression: str, weight: str) -> str:
    return f"setweight(to_tsvector('mirror_search'::regconfig, {_pg_norm(expression)}), '{weight}')"


PRODUCTS_VECTOR = " || ".join(
    (
        _pg_words("name || ' ' || coalesce(model_numbers::text, '')", "A"),
        f"setweight(to_tsvector('simple'::regconfig, {_0003._PG_COMPACT_MODELS}), 'A')",
        _pg_words("coalesce(brand, '')", "B"),
        _pg_words("category_name || ' ' || category_slug || ' ' || sku || ' ' || coalesce(tier, '')", "C"),
        _pg_words("coalesce(description, '')", "D"),
    )
)


def _replace_products_vector(vector: str) -> None:
    op.execute("DROP INDEX IF EXISTS ix_products_search_vector")
    op.execute("ALTER TABLE products DROP COLUMN IF EXISTS search_vector")
    op.execute(f"ALTER TABLE products ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ({vector}) STORED")
    # As in 0003: a 16 MB pending list halves the GIN cost of a full sync's bulk writes.
    op.execute(
        "CREATE INDEX ix_products_search_vector ON products USING gin (search_vector) "
        "WITH (gin_pending_list_limit = 16384)"
    )


def upgrade() -> None:
    _replace_products_vector(PRODUCTS_VECTOR)


def downgrade() -> None:
    _replace_products_vector(_0003._PG_VECTORS["products"])
