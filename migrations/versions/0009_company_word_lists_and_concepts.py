"""each company's own spelling list and the kinds of product it sells, so a search costs the same whatever the size of the other catalogs

- `company_words(plugin_key, word)`: the distinct words (ASCII letters, lower
  case, 3 to 64 letters) of one company's published, priced products' names,
  brands and category names. It replaces the one list of every catalog's
  words (`search_words`, migration 0007), which the search could only check
  against a company's products by reading every one of them per word: on a
  100,000-product catalog, a question of 100 unknown words took 24-33 s.
  `search_words` stays, unused, for the previous release's workers while an
  upgrade runs (docs/operations.md, "Upgrade"); a later release drops it.
  A GiST index on (plugin_key, word gist_trgm_ops) (btree_gist puts the key
  in the same index) answers "this company's words nearest 'furnance'"
  (`WHERE plugin_key = :k ORDER BY word <-> 'furnance' LIMIT n`) from the
  index. This revision fills it from the products already there.
- A GIN index on the ZIPs a business serves, for the directory's
  "serves 63376" inside its one statement.
- `company_concepts(plugin_key, concept)`: the vocabulary's kinds of product a
  company sells. It starts empty: the next sync tags every company (the
  stored vocabulary version differs, mirror/sync/concepts.py).

Both indexes live outside the ORM metadata (mirror.store.fulltext.is_search_index_object).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 12:00:00
"""

import re

import sqlalchemy as sa
from alembic import op

from mirror.store.migrate import create_extension

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# The words of a text as a company's list keeps them (the sync's rule, mirror/sync/words.py).
_WORD = re.compile(r"[a-z]{3,64}")
_FILL_BATCH = 1000
_KEY = sa.String(128, collation="C")


def _fill_words() -> None:
    """The words of each company's public products already there."""
    rows = op.get_bind().execute(
        sa.text(
            "SELECT DISTINCT p.plugin_key, p.name, p.brand, p.category_name FROM products p "
            "JOIN companies c ON c.plugin_key = p.plugin_key "
            "WHERE c.is_public AND p.published AND p.price_cents > 0"
        )
    )
    pairs = sorted({(row[0], w) for row in rows for text in row[1:] if text for w in _WORD.findall(text.lower())})
    table = sa.table("company_words", sa.column("plugin_key", sa.String), sa.column("word", sa.String))
    for start in range(0, len(pairs), _FILL_BATCH):
        op.bulk_insert(table, [{"plugin_key": k, "word": w} for k, w in pairs[start : start + _FILL_BATCH]])


def upgrade() -> None:
    create_extension("btree_gist")
    op.create_table(
        "company_words",
        sa.Column("plugin_key", _KEY, nullable=False),
        sa.Column("word", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("plugin_key", "word", name="pk_company_words"),
    )
    op.create_table(
        "company_concepts",
        sa.Column("plugin_key", _KEY, nullable=False),
        sa.Column("concept", sa.String(64), nullable=False),
        # Key first: the directory probes one business's tags, or hashes all the tags of some concepts.
        sa.PrimaryKeyConstraint("plugin_key", "concept", name="pk_company_concepts"),
    )
    op.execute("CREATE INDEX ix_company_words_trigram ON company_words USING gist (plugin_key, word gist_trgm_ops)")
    # The directory's "serves this ZIP" (mirror/read/businesses.py): `service_postal_codes::jsonb @> '["63376"]'`.
    op.execute(
        "CREATE INDEX ix_companies_service_postal_codes ON companies "
        "USING gin ((CAST(service_postal_codes AS JSONB)) jsonb_path_ops)"
    )
    _fill_words()
    # No version of the lists and tags yet: the next run makes them for every company (mirror/sync/words.py,
    # concepts.py), whatever a sync of the previous release wrote between this migration and the restart.
    op.execute("DELETE FROM sync_state WHERE name IN ('words_version', 'concepts_version')")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_companies_service_postal_codes")
    op.execute("DROP INDEX IF EXISTS ix_company_words_trigram")
    op.drop_table("company_concepts")
    op.drop_table("company_words")
