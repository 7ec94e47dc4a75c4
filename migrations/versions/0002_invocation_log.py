"""invocation log: one row per public request or MCP call (web/observability.py)

The usage report (`flask --app wsgi usage`) reads it. No client address is
stored: `agent` is a keyed hash of address and User-Agent.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 08:18:56.146936
"""

from alembic import op
import sqlalchemy as sa


revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invocations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("endpoint", sa.String(length=255), nullable=False),
        sa.Column("method", sa.String(length=8), nullable=False),
        sa.Column("protocol", sa.String(length=8), nullable=False),
        sa.Column("tool", sa.String(length=64), nullable=True),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=True),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column(
            "company_key",
            sa.String(length=128, collation="C"),
            nullable=True,
        ),
        sa.Column("agent", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invocations")),
    )
    op.create_index(op.f("ix_invocations_recorded_at"), "invocations", ["recorded_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_invocations_recorded_at"), table_name="invocations")

    op.drop_table("invocations")
