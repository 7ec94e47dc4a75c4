"""what each product states it does, read by the sync beside its kinds: `products.features`

- `products.features` (text[]): the features the product's name or specs
  state ("wifi", "programmable", "variable-speed", "two-stage",
  "modulating": the vocabulary's FEATURES, read by
  mirror/query/ranking.py `stated_features`). A question naming one ranks
  the products stating it first (mirror/read/catalog.py); no request reads
  them from text. No index: the search reads them only for the products it
  ranks.

The rows already there are read here, in this transaction, by the sync's own
reader (mirror/sync/facts.py `refresh`), as 0011 did for the kinds; the
rules' version it records covers the features too.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08 09:00:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _read_the_products_there() -> None:
    from mirror.sync import facts

    # In this migration's transaction; the columns of this revision (a later one reads its own).
    facts.read_rows_already_there(op.get_bind(), ("features",))


def upgrade() -> None:
    op.add_column("products", sa.Column("features", ARRAY(sa.String(32)), nullable=True))
    op.execute("DELETE FROM sync_state WHERE name = 'facts_version'")
    _read_the_products_there()


def downgrade() -> None:
    op.drop_column("products", "features")
    op.execute("DELETE FROM sync_state WHERE name = 'facts_version'")
