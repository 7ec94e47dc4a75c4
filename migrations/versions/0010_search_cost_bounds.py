"""what keeps a search's cost bounded on a large catalog: GIN pending lists capped, and products by company and price

- A GIN index takes new entries into a pending list (`fastupdate`) and merges
  them into the index proper at the next VACUUM, or when the list passes
  `gin_pending_list_limit` (4 MB by default). Every search reads the whole
  pending list, unsorted: after the benchmark catalog's first sync (300,000
  products, autovacuum not yet round) the products' list held 1,141 pages and
  the served ZIPs' index held all of its 348 pages there, and a misspelled
  question on the 100,000-product company took 88 ms at the median instead of
  10 ms. This revision caps each list at 256 kB (about half a millisecond to
  read) and merges what the lists hold now. The sync merges them at the end
  of every run that wrote rows (mirror/sync/rebuild.py), so between runs they
  are empty.
- `ix_products_plugin_key_price_cents`: a browse ("cheapest system") ranks the
  first products of a company in price order (mirror/read/catalog.py); the
  index reads them without sorting every product: "cheapest system" on the
  100,000-product company, 650 ms -> 23 ms.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 14:45:00
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# The GIN indexes as migrations 0003 and 0009 created them.
_GIN_INDEXES = (
    "ix_products_search_vector",
    "ix_companies_search_vector",
    "ix_offer_groups_search_vector",
    "ix_companies_service_postal_codes",
)
_PENDING_LIST_KB = 256


def upgrade() -> None:
    op.create_index("ix_products_plugin_key_price_cents", "products", ["plugin_key", "price_cents"])
    for index in _GIN_INDEXES:
        op.execute(f"ALTER INDEX {index} SET (gin_pending_list_limit = {_PENDING_LIST_KB})")
        op.execute(f"SELECT gin_clean_pending_list('{index}'::regclass)")


def downgrade() -> None:
    op.drop_index("ix_products_plugin_key_price_cents", table_name="products")
    for index in _GIN_INDEXES:
        op.execute(f"ALTER INDEX {index} RESET (gin_pending_list_limit)")
