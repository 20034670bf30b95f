"""The management plane: servers, published tools, tool states (R9), releases, sessions,
secrets, the audit chain and call records.

Revision ID: 0001
Revises:
Create Date: 2026-11-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GENESIS = "sha256:" + "0" * 64
_HASH = 71


def _nonempty(column: str) -> str:
    return f"{column} IS NOT NULL AND length(trim({column})) > 0"


def upgrade() -> None:
    op.create_table(
        "servers",
        sa.Column("alias", sa.String(64), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("era", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changed_by", sa.Text(), nullable=True),
        sa.CheckConstraint("enabled IN (false, true)", name=op.f("ck_servers_enabled_is_boolean")),
        sa.PrimaryKeyConstraint("alias", name=op.f("pk_servers")),
    )
    op.create_table(
        "published_tools",
        sa.Column("alias", sa.String(64), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("definition", sa.Text(), nullable=False),
        sa.Column("definition_hash", sa.String(_HASH), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("reasons", sa.Text(), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("verdict IN ('pass', 'drop')", name=op.f("ck_published_tools_verdict_is_known")),
        sa.ForeignKeyConstraint(
            ["alias"], ["servers.alias"], name=op.f("fk_published_tools_alias_servers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("alias", "name", name=op.f("pk_published_tools")),
    )
    op.create_table(
        "tool_states",
        sa.Column("alias", sa.String(64), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("action", sa.String(128), nullable=True),
        sa.Column("effect", sa.String(8), server_default=sa.text("'write'"), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("config_enabled", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("approved_hash", sa.String(_HASH), nullable=True),
        sa.Column("approved_definition", sa.Text(), nullable=True),
        sa.Column("pinned_by", sa.Text(), nullable=True),
        sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("write_approved_by", sa.Text(), nullable=True),
        sa.Column("write_approved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("write_approved_reason", sa.Text(), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changed_by", sa.Text(), nullable=True),
        sa.CheckConstraint("enabled IN (false, true)", name=op.f("ck_tool_states_enabled_is_boolean")),
        sa.CheckConstraint(
            "config_enabled IN (false, true)", name=op.f("ck_tool_states_config_enabled_is_boolean")
        ),
        sa.CheckConstraint(
            "effect IN ('read', 'write')", name=op.f("ck_tool_states_effect_is_read_or_write")
        ),
        sa.CheckConstraint(
            "NOT enabled OR action IS NOT NULL", name=op.f("ck_tool_states_forbidden_is_never_enabled")
        ),
        sa.CheckConstraint(
            "NOT enabled OR effect = 'read' OR ("
            + " AND ".join(
                [
                    _nonempty("write_approved_by"),
                    "write_approved_at IS NOT NULL",
                    _nonempty("write_approved_reason"),
                ]
            )
            + ")",
            name=op.f("ck_tool_states_write_needs_approval"),
        ),
        sa.ForeignKeyConstraint(
            ["alias"], ["servers.alias"], name=op.f("fk_tool_states_alias_servers"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("alias", "name", name=op.f("pk_tool_states")),
    )
    op.create_table(
        "releases",
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("change", sa.Text(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(_HASH), nullable=False),
        sa.CheckConstraint("number >= 1", name=op.f("ck_releases_number_is_positive")),
        sa.PrimaryKeyConstraint("number", name=op.f("pk_releases")),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("principal", sa.Text(), nullable=False),
        sa.Column("release", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["release"], ["releases.number"], name=op.f("fk_sessions_release_releases")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
    )
    op.create_table(
        "secrets",
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("token", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changed_by", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_secrets")),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("resource", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(_HASH), nullable=False),
        sa.Column("hash", sa.String(_HASH), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
    )
    head = op.create_table(
        "store_head",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("audit_last_id", sa.Integer(), nullable=False),
        sa.Column("audit_last_hash", sa.String(_HASH), nullable=False),
        sa.Column("secrets_version", sa.Integer(), nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_store_head_single_row")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_head")),
    )
    op.bulk_insert(head, [{"id": 1, "audit_last_id": 0, "audit_last_hash": _GENESIS, "secrets_version": 0}])
    op.create_table(
        "call_records",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=True),
        sa.Column("principal", sa.Text(), nullable=True),
        sa.Column("alias", sa.Text(), nullable=False),
        sa.Column("tool", sa.Text(), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("bytes_in", sa.Integer(), nullable=False),
        sa.Column("bytes_out", sa.Integer(), nullable=False),
        sa.Column("snapshot_version", sa.Integer(), nullable=True),
        sa.Column("release", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_call_records")),
    )
    op.create_index(op.f("ix_call_records_alias_tool"), "call_records", ["alias", "tool"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_call_records_alias_tool"), table_name="call_records")
    for table in (
        "call_records",
        "store_head",
        "audit_events",
        "secrets",
        "sessions",
        "releases",
        "tool_states",
        "published_tools",
        "servers",
    ):
        op.drop_table(table)
