"""Which configuration texts a sync brought the store in line with, and at which release:
``toolpool tools`` skips a sync that would change nothing (20,000 servers: seconds).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "config_syncs",
        sa.Column("config_hash", sa.String(71), nullable=False),
        sa.Column("release", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("config_hash", name=op.f("pk_config_syncs")),
    )


def downgrade() -> None:
    op.drop_table("config_syncs")
