"""a search's indexes keyed by company first: its cost is its own catalog's, not the whole table's

The full-text and kinds indexes (migrations 0004, 0011) held every company's
products in one posting list per word or kind. A search is always one
company's, but the planner estimates a word's share over the whole table:
on the benchmark catalog (10,000 companies, one of 100,000 products), a
misspelled question corrected to "tech" matches 32 of the large company's
products and 42,939 of the table's, so the planner, expecting thousands of
matches, read the table in order until its LIMIT: 300-550 ms. "merv" (an
air filter's kind) read 25,845 other companies' filters through the kinds
index to keep 18: 180 ms. And a browse of a kind ("cheapest part") walked a
company's price index past every system to find its 32 parts: 230 ms.

- `ix_products_plugin_key_search_vector`, `ix_products_plugin_key_kinds`:
  GIN over (plugin_key, the vector or the kinds) (btree_gin puts the key in
  a GIN index), replacing the single-column ones. The index intersects the
  company's entries with the word's, and its cost estimate is one company's:
  the three questions above take 10, 2 and 0.4 ms. A question over every
  company (the directory's prices, mirror/read/prices.py) still uses them:
  a GIN index serves any subset of its columns.
- `ix_products_plugin_key_kind_price_cents`: a company's products of one kind
  in price order (a browse of "parts" or "systems", mirror/read/catalog.py).

Each index is built once here (about 10 s for the 300,000 products of the
benchmark catalog); the sync keeps them with the rows it writes.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 22:00:00
"""

from alembic import op

from mirror.store.migrate import create_extension

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_PENDING_LIST = "gin_pending_list_limit = 256"  # as every GIN index since migration 0010


def upgrade() -> None:
    create_extension("btree_gin")
    op.execute(
        "CREATE INDEX ix_products_plugin_key_search_vector ON products "
        f"USING gin (plugin_key, search_vector) WITH ({_PENDING_LIST})"
    )
    op.execute("DROP INDEX IF EXISTS ix_products_search_vector")
    op.execute(
        f"CREATE INDEX ix_products_plugin_key_kinds ON products USING gin (plugin_key, kinds) WITH ({_PENDING_LIST})"
    )
    op.execute("DROP INDEX IF EXISTS ix_products_kinds")
    op.create_index(
        "ix_products_plugin_key_kind_price_cents", "products", ["plugin_key", "category_kind", "price_cents"]
    )


def downgrade() -> None:
    op.drop_index("ix_products_plugin_key_kind_price_cents", table_name="products")
    op.execute(f"CREATE INDEX ix_products_kinds ON products USING gin (kinds) WITH ({_PENDING_LIST})")
    op.execute("DROP INDEX IF EXISTS ix_products_plugin_key_kinds")
    op.execute(f"CREATE INDEX ix_products_search_vector ON products USING gin (search_vector) WITH ({_PENDING_LIST})")
    op.execute("DROP INDEX IF EXISTS ix_products_plugin_key_search_vector")
