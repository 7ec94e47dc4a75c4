"""full-text search: weighted tsvectors + GIN

Catalog search (mirror/read/catalog.py) and business search
(mirror/read/businesses.py) rank on these; mirror/store/fulltext.py builds the
queries and names the objects (the autogenerate comparison skips them: they
are outside the ORM metadata on purpose).

The index is kept in step by the database itself, inside the statement that
writes the row, so it commits with the sync's transaction whatever way the
sync writes (COPY, executemany, upserts): a STORED generated tsvector column
per table (name, model numbers and their punctuation-free forms weigh A,
brand B, category/SKU/tier C, description D) with a GIN index. Separators
become spaces first, so `ML17XP1-036` is the words `ml17xp1` and `036` (the
default parser would read `-036` as a negative number), and the compact
model `ml17xp1036` is indexed too for exact and prefix model matches. The
`mirror_search` configuration is English stemming without a stop-word list,
so it folds plurals and never silently drops a word.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 07:45:00
"""

from alembic import op


revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# Punctuation the default parser would read as part of a token (`-036` a
# signed number, `16.2` a float, `a/b` a path, `x@y` an e-mail, `<b>` a tag)
# becomes a space, so every field splits into letters-and-digits words as
# the query does. translate() costs about half of a regexp_replace here, and
# the descriptions make this the sync's dearest expression.
_PG_SEPARATORS = "-./_+:,;@&<>#'\"()[]"


def _pg_norm(expression: str) -> str:
    quoted = _PG_SEPARATORS.replace("'", "''")
    return f"translate({expression}, '{quoted}', '{' ' * len(_PG_SEPARATORS)}')"


def _pg_words(expression: str, weight: str, config: str = "mirror_search") -> str:
    return f"setweight(to_tsvector('{config}'::regconfig, {_pg_norm(expression)}), '{weight}')"


# Each model number with everything but letters and digits removed, one word
# per model: `["ML17XP1-036", "XC 25"]` -> `ml17xp1036 xc25`.
_PG_COMPACT_MODELS = (
    "translate(regexp_replace(lower(coalesce(model_numbers::text, '')), '[^[:alnum:]\",]+', '', 'g'), '\",', '  ')"
)

_PG_VECTORS = {
    "products": " || ".join(
        (
            _pg_words("name", "A"),
            _pg_words("coalesce(model_numbers::text, '')", "A"),
            f"setweight(to_tsvector('simple'::regconfig, {_PG_COMPACT_MODELS}), 'A')",
            _pg_words("coalesce(brand, '')", "B"),
            _pg_words("category_name || ' ' || category_slug || ' ' || sku || ' ' || coalesce(tier, '')", "C"),
            _pg_words("coalesce(description, '')", "D"),
        )
    ),
    "companies": " || ".join(
        (
            _pg_words("name", "A"),
            _pg_words("coalesce(trades::text, '')", "B"),
        )
    ),
    "offer_groups": _pg_words("category_name || ' ' || category_slug", "A"),
}


def upgrade() -> None:
    op.execute("CREATE TEXT SEARCH DICTIONARY mirror_english_stem (TEMPLATE = snowball, Language = english)")
    op.execute("CREATE TEXT SEARCH CONFIGURATION mirror_search (COPY = english)")
    op.execute(
        "ALTER TEXT SEARCH CONFIGURATION mirror_search ALTER MAPPING FOR "
        "asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH mirror_english_stem"
    )
    for table, vector in _PG_VECTORS.items():
        op.execute(f"ALTER TABLE {table} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ({vector}) STORED")
        # A larger pending list (16 MB, default 4) lets a full sync's bulk
        # writes reach the GIN index in fewer, larger merges (about half the
        # index cost measured on 50,000 products).
        op.execute(
            f"CREATE INDEX ix_{table}_search_vector ON {table} USING gin (search_vector) "
            "WITH (gin_pending_list_limit = 16384)"
        )


def downgrade() -> None:
    for table in _PG_VECTORS:
        op.execute(f"DROP INDEX IF EXISTS ix_{table}_search_vector")
        op.execute(f"ALTER TABLE {table} DROP COLUMN IF EXISTS search_vector")
    op.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS mirror_search")
    op.execute("DROP TEXT SEARCH DICTIONARY IF EXISTS mirror_english_stem")
