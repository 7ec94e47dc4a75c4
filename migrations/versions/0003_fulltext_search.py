"""full-text search: weighted tsvectors + GIN on Postgres, FTS5 tables on SQLite

Catalog search (mirror/read/catalog.py) and business search
(mirror/read/businesses.py) rank on these; mirror/fulltext.py builds the
queries and names the objects (the autogenerate comparison skips them: they
are outside the ORM metadata on purpose, one spelling per database).

The index is kept in step by the database itself, inside the statement that
writes the row, so it commits with the sync's transaction whatever way the
sync writes (COPY, executemany, upserts):

- Postgres: a STORED generated tsvector column per table (name, model numbers
  and their punctuation-free forms weigh A, brand B, category/SKU/tier C,
  description D) with a GIN index. Separators become spaces first, so
  `ML17XP1-036` is the words `ml17xp1` and `036` (the default parser would
  read `-036` as a negative number), and the
  compact model `ml17xp1036` is indexed too for exact and prefix model
  matches. The `mirror_search` configuration is English stemming without a
  stop-word list, so it folds plurals exactly like SQLite's porter tokenizer
  and neither backend silently drops a word.
- SQLite: FTS5 tables (porter stemming) whose rowid is the source row's
  rowid, maintained by AFTER INSERT/UPDATE/DELETE triggers.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 07:45:00
"""

from alembic import op


revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# --- Postgres -------------------------------------------------------------------

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


def _upgrade_postgres() -> None:
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


def _downgrade_postgres() -> None:
    for table in _PG_VECTORS:
        op.execute(f"DROP INDEX IF EXISTS ix_{table}_search_vector")
        op.execute(f"ALTER TABLE {table} DROP COLUMN IF EXISTS search_vector")
    op.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS mirror_search")
    op.execute("DROP TEXT SEARCH DICTIONARY IF EXISTS mirror_english_stem")


# --- SQLite ---------------------------------------------------------------------


def _sqlite_compact_models(row: str) -> str:
    # SQLite has no regexp_replace: the separators model numbers use are
    # removed one by one (the tokenizer splits on any other punctuation).
    value = "value"
    for separator in ("-", " ", "/", ".", "_", "+"):
        value = f"replace({value}, '{separator}', '')"
    source = f"CASE WHEN json_valid({row}.model_numbers) THEN {row}.model_numbers ELSE '[]' END"
    return f"(SELECT group_concat(lower({value}), ' ') FROM json_each({source}) WHERE type = 'text')"


# table -> (FTS5 columns, the values of a row `r` for them)
_SQLITE_TABLES = {
    "products": (
        "name, brand, models, models_compact, category, sku, tier, description, company_key",
        lambda r: (
            f"{r}.name, {r}.brand, {r}.model_numbers, {_sqlite_compact_models(r)}, "
            f"{r}.category_name || ' ' || {r}.category_slug, {r}.sku, {r}.tier, {r}.description, {r}.plugin_key"
        ),
    ),
    "companies": ("name, trades", lambda r: f"{r}.name, {r}.trades"),
    "offer_groups": ("category", lambda r: f"{r}.category_name || ' ' || {r}.category_slug"),
}


def _upgrade_sqlite() -> None:
    for table, (columns, values) in _SQLITE_TABLES.items():
        fts = f"{table}_fts"
        op.execute(
            f"CREATE VIRTUAL TABLE {fts} USING fts5({columns}, tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        insert_new = f"INSERT OR REPLACE INTO {fts} (rowid, {columns}) VALUES (new.rowid, {values('new')});"
        delete_old = f"DELETE FROM {fts} WHERE rowid = old.rowid;"
        op.execute(f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN {insert_new} END")
        op.execute(f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN {delete_old} END")
        op.execute(f"CREATE TRIGGER {fts}_update AFTER UPDATE ON {table} BEGIN {delete_old} {insert_new} END")
        op.execute(f"INSERT INTO {fts} (rowid, {columns}) SELECT rowid, {values(table)} FROM {table}")


def _downgrade_sqlite() -> None:
    for table in _SQLITE_TABLES:
        fts = f"{table}_fts"
        for event in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS {fts}_{event}")
        op.execute(f"DROP TABLE IF EXISTS {fts}")


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgres()
    else:
        _upgrade_sqlite()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgres()
    else:
        _downgrade_sqlite()
