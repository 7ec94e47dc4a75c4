"""products: an index on (plugin_key, category_slug), for the offer groups an incremental sync summarises again

An incremental run summarises again only the categories it wrote products
into (mirror.catalog.offers.changed_offer_groups_query over (company, category)
pairs). Without an index that leads with both columns, Postgres answered it
by reading every product and keeping those of the pairs: 0.17 s for the
benchmark's 1,782 pairs out of 200,000 products, the same whatever the
number of changes. With it, the statement reads the pairs' products only
(about 28,000 rows; 0.09 s). The index costs the bulk writes of a full sync
one more B-tree entry per product.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 13:00:00
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_products_plugin_key_category_slug", "products", ["plugin_key", "category_slug"])


def downgrade() -> None:
    op.drop_index("ix_products_plugin_key_category_slug", table_name="products")
