"""Each tool's ``approval`` ("none" or "each_call"), which releases record with its action, so
a session keeps the approval rule its release gave each tool (R15).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tool_states") as tool_states:
        tool_states.add_column(sa.Column("approval", sa.String(16), nullable=False, server_default="none"))
        tool_states.create_check_constraint(
            op.f("ck_tool_states_known_approval"), "approval IN ('none', 'each_call')"
        )


def downgrade() -> None:
    with op.batch_alter_table("tool_states") as tool_states:
        tool_states.drop_constraint(op.f("ck_tool_states_known_approval"), type_="check")
        tool_states.drop_column("approval")
