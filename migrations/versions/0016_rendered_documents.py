"""each company's public documents rendered by the sync that changed it: `rendered_documents`

A company's pricing.json and JSON-LD change only when a sync changes the
company, yet a request the render cache did not hold (a crawler's, a
WordPress poll landing on another worker) built the company's view from its
catalog and serialised it: a snapshot statement over three tables, the
options' views, the serialiser, 0.13-0.17x the ceiling's rate where a warm
request serves 0.5x (bench/results.md). Now the run that changes a company
renders its documents in its own transaction and stores them here; a request
reads one row by its primary key and serves it (mirror/render/documents.py).

- `rendered_documents`: per (company, kind): the stamp it was rendered at
  (`generation`, `record_hash`, `content_version`: what the gate state holds
  for the company), the release's `format`, and the `body` with a slot for
  each value the clock moves (the last sync time, fresh or stale). Removing
  a company removes its documents (the foreign key cascades).
- Nothing is rendered here: the next run renders every public company whose
  documents are missing (mirror/render/documents.py `publish`). Until then
  requests render from the catalog, as before.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_KEY = sa.String(128, collation="C")


def upgrade() -> None:
    op.create_table(
        "rendered_documents",
        sa.Column("plugin_key", _KEY, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("record_hash", sa.String(32), nullable=False),
        sa.Column("content_version", sa.String(16), nullable=True),
        sa.Column("format", sa.String(32), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["plugin_key"],
            ["companies.plugin_key"],
            name="fk_rendered_documents_plugin_key_companies",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("plugin_key", "kind", name="pk_rendered_documents"),
    )


def downgrade() -> None:
    op.drop_table("rendered_documents")
