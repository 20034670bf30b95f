"""Each call record names the replica that made it (``toolpool serve --replica-id``): several
gateways write to one store, and an operator must tell their calls apart.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("call_records") as call_records:
        call_records.add_column(sa.Column("replica", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("call_records") as call_records:
        call_records.drop_column("replica")
