"""Runtime policy (issue 15): approvals of single calls, and secrets that belong to one
principal (``per_principal`` secrets: the empty principal is the pool-wide value).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_HASH = 71
_STATES = "state IN ('pending', 'approved', 'denied', 'used')"


def upgrade() -> None:
    with op.batch_alter_table("secrets", recreate="always") as table:
        table.add_column(sa.Column("principal", sa.String(128), nullable=False, server_default=""))
        table.drop_constraint("pk_secrets", type_="primary")
        table.create_primary_key("pk_secrets", ["name", "principal"])
    op.create_table(
        "approvals",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=False),
        sa.Column("principal", sa.Text(), nullable=False),
        sa.Column("alias", sa.Text(), nullable=False),
        sa.Column("tool", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("pin", sa.String(_HASH), nullable=False),
        sa.Column("arguments_hash", sa.String(_HASH), nullable=False),
        sa.Column("arguments", sa.Text(), nullable=False),
        sa.Column("why", sa.Text(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("decided_by", sa.Text(), nullable=True),
        sa.Column("decided_reason", sa.Text(), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(_STATES, name=op.f("ck_approvals_known_state")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_approvals")),
    )
    op.create_index(op.f("ix_approvals_state_requested_at"), "approvals", ["state", "requested_at"])
    op.create_index(op.f("ix_approvals_session_id"), "approvals", ["session_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_approvals_session_id"), table_name="approvals")
    op.drop_index(op.f("ix_approvals_state_requested_at"), table_name="approvals")
    op.drop_table("approvals")
    op.execute("DELETE FROM secrets WHERE principal <> ''")
    with op.batch_alter_table("secrets", recreate="always") as table:
        table.drop_constraint("pk_secrets", type_="primary")
        table.create_primary_key("pk_secrets", ["name"])
        table.drop_column("principal")
