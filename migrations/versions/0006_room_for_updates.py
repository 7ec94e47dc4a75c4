"""products and companies: fillfactor 90, so a sync's updates can stay on their page (HOT)

An incremental sync updates the products it reads changed (mostly new
prices) and every touched company's bookkeeping (generation, content
version). With full pages, as a full sync's COPY leaves them, each new row
version goes to another page, and every index of the table gets a new
entry: the primary key, the (plugin_key, category_slug) index and the GIN
index of the search vector. With a tenth of each page free, an update that
changes no indexed column (a repricing: the sync leaves the vector as it is,
mirror.sync.bulk.update_rows) stays on its page as a heap-only tuple and touches
no index: 1,700 repriced products of the benchmark took 26-49 ms instead of
56-125 ms (EXPLAIN ANALYZE; 87% of them were heap-only). Postgres prunes the
old versions when it next reads the page, without a vacuum.

The price is a tenth more pages for the same rows (183 MB -> 211 MB for the
benchmark's 200,000 products). Only pages written from now on get the free
space: a full sync into a fresh database, or the rows a later sync writes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 13:10:00
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

TABLES = ("products", "companies")


def upgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} SET (fillfactor = 90)")


def downgrade() -> None:
    for table in TABLES:
        op.execute(f"ALTER TABLE {table} RESET (fillfactor)")
