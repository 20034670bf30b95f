"""Sessions that resume exactly (R15): each tool's resource template and each server's spec
hash (which releases record), and each session's taint.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_HASH = 71


def upgrade() -> None:
    with op.batch_alter_table("servers") as servers:
        servers.add_column(sa.Column("spec_hash", sa.String(_HASH), nullable=True))
    with op.batch_alter_table("tool_states") as tool_states:
        tool_states.add_column(sa.Column("resource", sa.Text(), nullable=True))
    op.create_table(
        "session_taint",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["sessions.id"],
            name=op.f("fk_session_taint_session_id_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_session_taint")),
    )
    op.create_index(
        op.f("ix_session_taint_session_id_id"), "session_taint", ["session_id", "id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_session_taint_session_id_id"), table_name="session_taint")
    op.drop_table("session_taint")
    with op.batch_alter_table("tool_states") as tool_states:
        tool_states.drop_column("resource")
    with op.batch_alter_table("servers") as servers:
        servers.drop_column("spec_hash")
