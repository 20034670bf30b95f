"""The audit chain covers ids, and may be keyed: ``audit_events.mac``, and on the head the
switch point ``audit_v2_from`` plus ``audit_keyed_from`` and ``audit_mac``.

Events that exist already keep their hashes: re-hashing them would launder any tampering done
before the upgrade. ``audit_v2_from`` is set to the next id, so ``verify`` checks the older
events with the rule they were written under, and every newer one with the rule that binds
its id. A downgrade drops the columns; events written since then no longer verify under the
old rule.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_MAC = 76


def upgrade() -> None:
    with op.batch_alter_table("audit_events") as table:
        table.add_column(sa.Column("mac", sa.String(_MAC), nullable=True))
    with op.batch_alter_table("store_head") as table:
        table.add_column(sa.Column("audit_v2_from", sa.Integer(), nullable=True))
        table.add_column(sa.Column("audit_keyed_from", sa.Integer(), nullable=True))
        table.add_column(sa.Column("audit_mac", sa.String(_MAC), nullable=True))
    op.execute("UPDATE store_head SET audit_v2_from = audit_last_id + 1")


def downgrade() -> None:
    with op.batch_alter_table("store_head") as table:
        table.drop_column("audit_mac")
        table.drop_column("audit_keyed_from")
        table.drop_column("audit_v2_from")
    with op.batch_alter_table("audit_events") as table:
        table.drop_column("mac")
