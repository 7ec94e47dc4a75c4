"""rendered_documents.body compressed with lz4 where the server has it

A stored document is 7-77 kB of text (the benchmark's averages: JSON-LD
7 kB, pricing.json 31 kB, the quote page 33 kB, the pricing page 77 kB), so
Postgres compresses every body it stores (TOAST) and decompresses it on
every read. With the default method, pglz, writing one run's documents
cost the server about as much as the rest of the rows it writes: on the
benchmark's database, storing 1,722 companies' documents again took 2.14 s
with pglz and 0.63-0.85 s with lz4 (the same rows, `INSERT … SELECT`), and
a cold request's read of one body 293-295 -> 244-261 us (the pricing page)
and 158-169 -> 144 us (pricing.json), read by primary key 1,000 times over
random companies. lz4 stores them 6% smaller as well.

lz4 is a build option of the server: Debian's and most distributions'
packages have it, the embedded server `make run` starts (mirror/store/embedded.py)
does not. Where the server refuses the method, the column keeps pglz and
nothing else changes. Only bodies written from now on are compressed with
lz4: the next run that renders a company rewrites its documents.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07 22:40:00
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def _compress_bodies_with(method: str) -> None:
    # A server built without the method refuses it (feature_not_supported): the column keeps what it had.
    op.execute(
        "DO $$ BEGIN "
        f"ALTER TABLE rendered_documents ALTER COLUMN body SET COMPRESSION {method}; "
        "EXCEPTION WHEN feature_not_supported THEN NULL; "
        "END $$"
    )


def upgrade() -> None:
    _compress_bodies_with("lz4")


def downgrade() -> None:
    _compress_bodies_with("pglz")
