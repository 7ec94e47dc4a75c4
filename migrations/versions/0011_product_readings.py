"""what each product is, read once by the sync and stored with it: its kinds, sizes and ratings, and the evidence

- `products.kinds` (text[]): the vocabulary's concepts the product is (the
  most specific: "heat-pump", "air-handler"), read from its name, category
  name and slug, model numbers and specs keys, and the trade abbreviations its
  contractor's trades read (mirror/query/product_reading.py). A GIN index
  answers a search's "the products of these kinds" (`kinds && ARRAY[...]`),
  its pending list capped like the others (0010).
- `products.measures` (json): its sizes and ratings, each in its quantity's
  unit (`{"capacity": 36000, "seer": 16.2}`), from its specs first, else its
  name.
- `products.kind_evidence` (json): which evidence decided the kinds, and what
  the specs overruled (`flask --app wsgi products explain KEY SKU`).

The rows already there are read here, in this transaction, by the sync's own
reader (mirror/sync/facts.py `refresh`), which also records the rules'
version (`sync_state.facts_version`): the next run reads them again only if a
release changed the rules since.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04 09:00:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def _read_the_products_there() -> None:
    from mirror.sync import facts

    # In this migration's transaction; the columns of this revision (a later one reads its own).
    facts.read_rows_already_there(op.get_bind(), ("kinds", "measures", "kind_evidence"))


def upgrade() -> None:
    op.add_column("products", sa.Column("kinds", ARRAY(sa.String(64)), nullable=True))
    op.add_column("products", sa.Column("measures", sa.JSON(), nullable=True))
    op.add_column("products", sa.Column("kind_evidence", sa.JSON(), nullable=True))
    op.create_index(
        "ix_products_kinds",
        "products",
        ["kinds"],
        postgresql_using="gin",
        postgresql_with={"gin_pending_list_limit": 256},
    )
    op.execute("DELETE FROM sync_state WHERE name = 'facts_version'")
    _read_the_products_there()


def downgrade() -> None:
    op.drop_index("ix_products_kinds", table_name="products")
    op.drop_column("products", "kind_evidence")
    op.drop_column("products", "measures")
    op.drop_column("products", "kinds")
    op.execute("DELETE FROM sync_state WHERE name = 'facts_version'")
