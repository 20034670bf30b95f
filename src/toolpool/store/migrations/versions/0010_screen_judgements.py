"""The screen judge's verdicts, cached by definition hash, judge and rubric version.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "screen_judgements",
        sa.Column("definition_hash", sa.String(71), nullable=False),
        sa.Column("judge", sa.String(200), nullable=False),
        sa.Column("rubric", sa.String(32), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("reasons", sa.Text(), nullable=False),
        sa.Column("judged_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("verdict IN ('pass', 'drop')", name=op.f("ck_screen_judgements_verdict_is_known")),
        sa.PrimaryKeyConstraint("definition_hash", "judge", "rubric", name=op.f("pk_screen_judgements")),
    )


def downgrade() -> None:
    op.drop_table("screen_judgements")
