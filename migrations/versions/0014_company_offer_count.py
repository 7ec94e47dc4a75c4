"""each company's number of public products: `companies.offer_count`, so a search knows its catalog's size

A search reads one company's products. For a small catalog the cheapest way
is to read all of its rows by the company key and test each; for a large one,
the full-text index. The index is no help to a small catalog: a word that is
a prefix (`pump:*`) makes the index collect every product of the mirror
holding a word it begins before keeping the company's (66,000 of 300,000 on
the benchmark catalog: 16 ms for a company of 20 products, where reading its
20 rows takes 0.5 ms), and the cost grows with the mirror, not the company.
The planner cannot see that cost, so the search chooses by the count kept
here (mirror/read/catalog.py, `SMALL_CATALOG`), read into the gate's
in-memory entry (mirror/read/gate.py): no statement more per request.

- `companies.offer_count`: the sum of the company's offer groups'
  `offer_count` (its public products), written by the sync's rebuild in the
  transaction that writes the groups (mirror/sync/rebuild.py); filled here
  from the groups already there.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 04:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("companies", sa.Column("offer_count", sa.Integer(), nullable=False, server_default="0"))
    op.execute(
        "UPDATE companies SET offer_count = totals.offers FROM "
        "(SELECT plugin_key, sum(offer_count) AS offers FROM offer_groups GROUP BY plugin_key) AS totals "
        "WHERE totals.plugin_key = companies.plugin_key"
    )


def downgrade() -> None:
    op.drop_column("companies", "offer_count")
