"""the labels a page shows of each product, read by the sync that writes it: `products.labels`

A company's pricing.json and hosted page list each option's size, ratings
and warranty ("3 ton", "16 SEER2", "10-year warranty":
mirror/catalog/product_facts.py). They were read from each product's specs
and name whenever a company's view was built: by the sync rendering the
documents of every company it changed (mirror/render/documents.py), a third
of that work, for every product of a company that changed one; by a request
for a hosted page, for every product of the catalog.

- `products.labels` (JSON: `{"size", "efficiency", "warranty"}`): read by
  the sync when it writes the product, with its kinds and features
  (mirror/sync/facts.py); the company snapshot reads them instead of the
  specs (mirror/read/company.py). Nullable: the previous release's
  scheduler, still running while an upgrade migrates, writes products
  without them; the rules' version now covers the labels, so the new
  release's next run reads every product again, before it renders.

The rows already there are read here, in this transaction, by the sync's own
reader, as 0011 and 0012 did for theirs.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07 16:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def _read_the_products_there() -> None:
    from mirror.sync import facts

    # In this migration's transaction; the column of this revision.
    facts.read_rows_already_there(op.get_bind(), ("labels",))


def upgrade() -> None:
    op.add_column("products", sa.Column("labels", sa.JSON(), nullable=True))
    op.execute("DELETE FROM sync_state WHERE name = 'facts_version'")
    _read_the_products_there()


def downgrade() -> None:
    op.drop_column("products", "labels")
    op.execute("DELETE FROM sync_state WHERE name = 'facts_version'")
