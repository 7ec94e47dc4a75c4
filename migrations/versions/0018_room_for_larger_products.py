"""products: fillfactor 80, so a product's new version fits on its page again

Migration 0006 left a tenth of each page free (819 bytes) so that a
repriced product's new version stays on its page. A product row has since
grown with what the sync reads into it (kinds, features, labels:
migrations 0011, 0012, 0017): on the benchmark's 200,000 products it takes
1,198 bytes on average, 954 at the 10th percentile and 1,449 at the 90th,
and a new version no longer fits in 819 bytes. A fifth of a page (1,638
bytes) holds one new version of nine rows in ten. Kept on its page, an
updated product does not grow the table at every run (Postgres reclaims
the old version's space in the page when it next reads it, without a
vacuum) and a company's rows stay together.

Since migrations 0010 and 0013 index the price, a repricing writes index
entries all the same (0006's heap-only updates are gone: 1 of the 1,918
products an incremental run of `make bench-sync` updated); the search
needs those indexes more than the sync needs heap-only updates.

The price is a ninth more pages for the same rows (269 -> 304 MB for the
benchmark's products). Only pages written from now on get the free space:
a full sync into a fresh database, or the rows a later sync writes.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07 19:20:00
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE products SET (fillfactor = 80)")


def downgrade() -> None:
    op.execute("ALTER TABLE products SET (fillfactor = 90)")
