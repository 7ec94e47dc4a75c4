"""each concept tag carries the prices of its company's products of that kind, so search_businesses prices a kind from one row per business

search_businesses asked a kind of product ("heat pump") finds the businesses
that list it under a category name of their own ("HP & Air Handler") by their
concept tags (migration 0009), and prices each from its public products of
that kind only. Reading those products per question is a read of every
product of the kind: on the benchmark catalog (10,005 feed businesses, 38,945
heat pumps on 19,387 of the products' 52,044 pages) the range across all the
businesses took 125 ms for the products alone, planned at their best (a bitmap
scan of the kinds index), 830 ms as a join, and the reverted per-business
subquery 95-105 s: the cost grew with the catalogs, not the question.

- `company_concepts` gains, per (company, kind): `price_low_cents`,
  `price_high_cents`, `offer_count` (its public products of the kind) and
  `category_name`, `category_slug` (where the cheapest of them is listed).
  Nullable: the previous release's scheduler, still running while an upgrade
  migrates, writes tags without them; the tags' version now names their shape
  (mirror/sync/concepts.py `TAG_SHAPE`), so the new release's first run
  retags every company.
- Indexes for the same search without a ZIP, which reads the businesses of
  the category (or kind) as one set instead of probing each of the 10,005:
  `ix_offer_groups_category_slug`, `ix_offer_groups_lower_category_name`
  (a category asked by its slug or its name in any case) and
  `ix_company_concepts_concept` (the companies of one kind; the primary key
  starts with the company). Without them, "HP & Air Handler" with no ZIP
  probed every business's groups: 280 ms on the previous release, 45-70 ms
  read as a set (docs/performance.md has the figures).
- The tags are made again here, in this transaction, by the sync's own
  statement (mirror/sync/concepts.py `tag_all`), which records that version.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 04:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_COLUMNS = ("price_low_cents", "price_high_cents", "offer_count", "category_name", "category_slug")


def _tag_the_companies_there() -> None:
    from sqlalchemy.orm import Session

    from mirror.sync import concepts

    session = Session(bind=op.get_bind())  # in this migration's transaction: nothing is committed here
    try:
        concepts.tag_all(session)
        session.flush()
    finally:
        session.close()


def upgrade() -> None:
    op.add_column("company_concepts", sa.Column("price_low_cents", sa.BigInteger(), nullable=True))
    op.add_column("company_concepts", sa.Column("price_high_cents", sa.BigInteger(), nullable=True))
    op.add_column("company_concepts", sa.Column("offer_count", sa.Integer(), nullable=True))
    op.add_column("company_concepts", sa.Column("category_name", sa.Text(), nullable=True))
    op.add_column("company_concepts", sa.Column("category_slug", sa.String(255), nullable=True))
    op.create_index("ix_offer_groups_category_slug", "offer_groups", ["category_slug"])
    op.create_index("ix_offer_groups_lower_category_name", "offer_groups", [sa.text("lower(category_name)")])
    op.create_index("ix_company_concepts_concept", "company_concepts", ["concept", "plugin_key"])
    _tag_the_companies_there()
    op.execute("ANALYZE company_concepts")  # its rows all new: the set's plans read the new index on true counts


def downgrade() -> None:
    op.drop_index("ix_company_concepts_concept", table_name="company_concepts")
    op.drop_index("ix_offer_groups_lower_category_name", table_name="offer_groups")
    op.drop_index("ix_offer_groups_category_slug", table_name="offer_groups")
    for column in reversed(_COLUMNS):
        op.drop_column("company_concepts", column)
    op.execute("DELETE FROM sync_state WHERE name = 'concepts_version'")  # the next run tags in the old shape
