"""The usage ledger (billing): per UTC day, principal, session, alias, tool and code; filled
from the call records already stored, so its totals equal theirs from the start.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-10
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEY_MAX = 128  # toolpool.store._usage.KEY_MAX: principals and session ids are clipped in the key
_KEY = ("principal", "session_id", "alias", "tool", "code")
_COUNTS = (
    "calls",
    "bytes_in",
    "bytes_out",
    "lists",
    "list_tokens",
    "model_requests",
    "input_tokens",
    "output_tokens",
)


def upgrade() -> None:
    op.create_table(
        "usage_ledger",
        sa.Column("day", sa.Date(), nullable=False),
        *(sa.Column(name, sa.Text(), nullable=False) for name in _KEY),
        sa.Column("wait_ms", sa.Float(), nullable=False),
        *(sa.Column(name, sa.BigInteger(), nullable=False) for name in _COUNTS),
        sa.PrimaryKeyConstraint("day", *_KEY, name=op.f("pk_usage_ledger")),
    )
    day = "date(at)" if op.get_bind().dialect.name == "sqlite" else "CAST(at AT TIME ZONE 'UTC' AS date)"
    op.execute(
        "INSERT INTO usage_ledger (day, principal, session_id, alias, tool, code, calls, wait_ms, "  # noqa: S608 - constants only
        "bytes_in, bytes_out, lists, list_tokens, model_requests, input_tokens, output_tokens) "
        f"SELECT {day}, coalesce(substr(principal, 1, {_KEY_MAX}), ''), "
        f"coalesce(substr(session_id, 1, {_KEY_MAX}), ''), alias, substr(tool, 1, {_KEY_MAX}), code, "
        "count(*), sum(duration_ms), sum(bytes_in), sum(bytes_out), 0, 0, 0, 0, 0 "
        "FROM call_records GROUP BY 1, 2, 3, 4, 5, 6"
    )


def downgrade() -> None:
    op.drop_table("usage_ledger")
