"""the spelling list: the catalog's distinct words under a trigram index (pg_trgm)

The catalog search corrects a word no product matched to the nearest word
the catalogs hold (mirror/read/words.py, mirror/query/spelling.py): the
approach of the pg_trgm documentation's "Text Search Integration" section, a
table of the distinct words with a trigram index, searched by distance.

- `search_words(word)`: the distinct words (ASCII letters, lower case, 3 to 64
  letters, as the query step reads a question's words) of the public
  products' names, brands and category names. The
  sync adds the words of the products it writes, in its transaction; a full
  run removes those no public product holds any more (mirror/sync/words.py).
  This revision fills it from the products already there.
- `CREATE EXTENSION pg_trgm` (trusted since Postgres 13: the migrating role
  needs CREATE on the database) and a GiST `gist_trgm_ops` index, which
  answers `ORDER BY word <-> 'furnance' LIMIT n` (nearest first) from the
  index; a GIN index cannot order by distance.

The trigram index is outside the ORM metadata, like 0003's
(mirror.store.fulltext.is_search_index_object).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 09:00:00
"""

import re

import sqlalchemy as sa
from alembic import op

from mirror.store.migrate import create_extension

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# The words of a text as the spelling list keeps them (the sync's rule, mirror/sync/words.py).
_WORD = re.compile(r"[a-z]{3,64}")
_FILL_BATCH = 1000


def _fill() -> None:
    """The words of the public products already there."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT DISTINCT p.name, p.brand, p.category_name FROM products p "
            "JOIN companies c ON c.plugin_key = p.plugin_key "
            "WHERE c.is_public AND p.published AND p.price_cents > 0"
        )
    )
    words = sorted({w for row in rows for text in row if text for w in _WORD.findall(text.lower())})
    table = sa.table("search_words", sa.column("word", sa.String))
    for start in range(0, len(words), _FILL_BATCH):
        op.bulk_insert(table, [{"word": w} for w in words[start : start + _FILL_BATCH]])


def upgrade() -> None:
    create_extension("pg_trgm")
    op.create_table(
        "search_words",
        sa.Column("word", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("word", name="pk_search_words"),
    )
    op.execute("CREATE INDEX ix_search_words_trigram ON search_words USING gist (word gist_trgm_ops)")
    _fill()


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_search_words_trigram")
    op.drop_table("search_words")
    op.execute("DROP EXTENSION IF EXISTS pg_trgm")
