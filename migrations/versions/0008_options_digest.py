"""offer_groups.options_digest: the content version covers every published option, not only the category's summary

The pricing page and pricing.json list each category's published options
(name, brand, tier, price, size and efficiency from `specs`). A product
renamed, or repriced inside its category's range above its tier's lowest
price, changed what they show without moving the category's summary, so
`content_version` (a hash of the summaries) and `content_updated_at` (the
WordPress plugin's sitemap `lastmod`) stayed put. Each offer group now also
holds the md5 of its public products' `record_hash`es in SKU order (the sync
computes it with the summary, mirror/catalog/offers.py), and the content version
hashes it with the rest.

No backfill: a group written before this revision has none (NULL) and gets
one the next time a sync summarises it, so a company's version moves at its
next catalog change, as it would have.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("offer_groups", sa.Column("options_digest", sa.String(32), nullable=True))


def downgrade() -> None:
    op.drop_column("offer_groups", "options_digest")
