"""The store's tables, in SQLAlchemy Core: the single source the migrations must agree with.

R9 lives here as CHECK constraints on ``tool_states``, written in SQL that SQLite and
PostgreSQL read alike, so that no hand-written statement can store an enabled tool that is
forbidden, or that writes without a complete approval (who, when, why).

JSON is kept as canonical text (sorted keys, ASCII only), never as a native JSON type: what is
hashed (releases, the audit chain) is then byte for byte what is stored, on both databases.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    false,
    text,
    true,
)
from sqlalchemy.types import TypeDecorator

# The schema's revision and version table live where a read without SQLAlchemy finds them.
from toolpool.store._sqlite_read import ALEMBIC_VERSION_TABLE, SCHEMA_HEAD

__all__ = [
    "ALEMBIC_VERSION_TABLE",
    "HASH_LENGTH",
    "MAC_LENGTH",
    "SCHEMA_HEAD",
    "UTCDateTime",
    "approvals",
    "audit_events",
    "call_records",
    "config_syncs",
    "metadata",
    "published_tools",
    "releases",
    "screen_judgements",
    "secrets",
    "servers",
    "session_taint",
    "sessions",
    "store_head",
    "tokens",
    "tool_states",
    "usage_ledger",
]

HASH_LENGTH = 71  # "sha256:" + 64 hex digits
MAC_LENGTH = 76  # "hmac-sha256:" + 64 hex digits

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


class UTCDateTime(TypeDecorator[datetime]):
    """A moment in UTC: stored naive-UTC on SQLite (which has no zones), ``timestamptz`` elsewhere;
    always read back as an aware UTC datetime."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UTCDateTime needs an aware datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _boolean(name: str) -> CheckConstraint:
    # `false`/`true` are 0/1 in SQLite (>= 3.23) and booleans in PostgreSQL.
    return CheckConstraint(f"{name} IN (false, true)", name=f"{name}_is_boolean")


def _nonempty(column: str) -> str:
    return f"{column} IS NOT NULL AND length(trim({column})) > 0"


servers = Table(
    "servers",
    metadata,
    Column("alias", String(64), primary_key=True),
    Column("enabled", Boolean, nullable=False, server_default=true()),
    Column("era", String(32), nullable=True),
    # The hash of how the configuration reaches the server (``ServerSpec.spec_hash``): releases
    # record it, so a resumed session is never served by another command or URL (R15).
    Column("spec_hash", String(HASH_LENGTH), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("changed_at", UTCDateTime, nullable=True),
    Column("changed_by", Text, nullable=True),
    _boolean("enabled"),
)

published_tools = Table(
    "published_tools",
    metadata,
    Column("alias", String(64), ForeignKey("servers.alias", ondelete="CASCADE"), primary_key=True),
    Column("name", String(128), primary_key=True),
    Column("definition", Text, nullable=False),
    Column("definition_hash", String(HASH_LENGTH), nullable=False),
    Column("verdict", String(8), nullable=False),
    Column("score", Float, nullable=False),
    Column("reasons", Text, nullable=False),
    Column("first_seen", UTCDateTime, nullable=False),
    Column("last_seen", UTCDateTime, nullable=False),
    CheckConstraint("verdict IN ('pass', 'drop')", name="verdict_is_known"),
)

tool_states = Table(
    "tool_states",
    metadata,
    Column("alias", String(64), ForeignKey("servers.alias", ondelete="CASCADE"), primary_key=True),
    Column("name", String(128), primary_key=True),
    Column("action", String(128), nullable=True),
    Column("effect", String(8), nullable=False, server_default=text("'write'")),
    # The configuration's resource template (checked against tickets at gate 4): releases
    # record it with the action, so a resumed session keeps its mapping (R15).
    Column("resource", Text, nullable=True),
    # The configuration's `approval`: "each_call" makes every call wait for a person's
    # approval; releases record it with the action (R15).
    Column("approval", String(16), nullable=False, server_default=text("'none'")),
    Column("enabled", Boolean, nullable=False, server_default=false()),
    # The configuration's last `enabled` value: config enables on a change to true only, so a
    # later `toolpool disable` is not undone by the next sync.
    Column("config_enabled", Boolean, nullable=False, server_default=false()),
    Column("approved_hash", String(HASH_LENGTH), nullable=True),
    Column("approved_definition", Text, nullable=True),
    Column("pinned_by", Text, nullable=True),
    Column("pinned_at", UTCDateTime, nullable=True),
    Column("write_approved_by", Text, nullable=True),
    Column("write_approved_at", UTCDateTime, nullable=True),
    Column("write_approved_reason", Text, nullable=True),
    Column("changed_at", UTCDateTime, nullable=True),
    Column("changed_by", Text, nullable=True),
    _boolean("enabled"),
    _boolean("config_enabled"),
    # R9, in the database: every other state is impossible, whoever writes the SQL.
    CheckConstraint("effect IN ('read', 'write')", name="effect_is_read_or_write"),
    CheckConstraint("approval IN ('none', 'each_call')", name="known_approval"),
    CheckConstraint("NOT enabled OR action IS NOT NULL", name="forbidden_is_never_enabled"),
    CheckConstraint(
        "NOT enabled OR effect = 'read' OR ("
        + " AND ".join(
            [
                _nonempty("write_approved_by"),
                "write_approved_at IS NOT NULL",
                _nonempty("write_approved_reason"),
            ]
        )
        + ")",
        name="write_needs_approval",
    ),
)

# Which configuration texts (by hash) a sync brought the store in line with, and the release
# it left: while that is still the current release, syncing the same text again changes nothing
# (every change a sync could undo makes a release), so ``toolpool tools`` skips it.
config_syncs = Table(
    "config_syncs",
    metadata,
    Column("config_hash", String(HASH_LENGTH), primary_key=True),
    Column("release", Integer, nullable=False),
)

releases = Table(
    "releases",
    metadata,
    Column("number", Integer, primary_key=True, autoincrement=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("actor", Text, nullable=False),
    Column("change", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("content_hash", String(HASH_LENGTH), nullable=False),
    CheckConstraint("number >= 1", name="number_is_positive"),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("principal", Text, nullable=False),
    Column("release", Integer, ForeignKey("releases.number"), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# What a session's untrusted results said (gate 6), so that a resumed session keeps its taint:
# each row one ``TaintDelta.encode()`` — fingerprints and hashes, never the text itself.
session_taint = Table(
    "session_taint",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session_id", String(64), ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
    Column("data", Text, nullable=False),
    Column("at", UTCDateTime, nullable=False),
)
Index(None, session_taint.c.session_id, session_taint.c.id)

secrets = Table(
    "secrets",
    metadata,
    Column("name", String(128), primary_key=True),
    # '' for the pool-wide value; else the one principal a `per_principal` secret belongs to.
    Column("principal", String(128), primary_key=True, server_default=""),
    Column("token", Text, nullable=False),  # a Fernet token: never the value itself
    Column("created_at", UTCDateTime, nullable=False),
    Column("changed_at", UTCDateTime, nullable=False),
    Column("changed_by", Text, nullable=False),
)

audit_events = Table(
    "audit_events",
    metadata,
    # Assigned by the store as head.last_id + 1 under the write lock: contiguous, never reused.
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("at", UTCDateTime, nullable=False),
    Column("actor", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("resource", Text, nullable=False),
    Column("detail", Text, nullable=False),
    Column("prev_hash", String(HASH_LENGTH), nullable=False),
    Column("hash", String(HASH_LENGTH), nullable=False),
    # The HMAC of `hash` under a key derived from the store's secret key (see _audit_format);
    # NULL for a row written by a process without the key.
    Column("mac", String(MAC_LENGTH), nullable=True),
)

# One row: the audit chain's head (the anchor that makes deleting the last rows visible), the
# secrets' version (for the redaction cache), and the lock every management write takes first.
store_head = Table(
    "store_head",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("audit_last_id", Integer, nullable=False),
    Column("audit_last_hash", String(HASH_LENGTH), nullable=False),
    Column("secrets_version", Integer, nullable=False),
    # From this id on, an event's hash covers its id and the previous hash (migration 0003).
    Column("audit_v2_from", Integer, nullable=True),
    # The first event written with the secret key, and the HMAC of (last id, last hash, that id).
    Column("audit_keyed_from", Integer, nullable=True),
    Column("audit_mac", String(MAC_LENGTH), nullable=True),
    CheckConstraint("id = 1", name="single_row"),
)

call_records = Table(
    "call_records",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", UTCDateTime, nullable=False),
    Column("session_id", Text, nullable=True),
    Column("principal", Text, nullable=True),
    Column("alias", Text, nullable=False),
    Column("tool", Text, nullable=False),
    Column("code", Text, nullable=False),
    Column("duration_ms", Float, nullable=False),
    Column("bytes_in", Integer, nullable=False),
    Column("bytes_out", Integer, nullable=False),
    Column("snapshot_version", Integer, nullable=True),
    Column("release", Integer, nullable=True),
    Column("replica", Text, nullable=True),
)
Index(None, call_records.c.alias, call_records.c.tool)

# Bearer tokens for `toolpool serve --http`: only the sha256 of each token is kept; the token
# itself is shown once, when it is made. Grants are canonical JSON lists of globs.
tokens = Table(
    "tokens",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("token_hash", String(HASH_LENGTH), nullable=False, unique=True),
    Column("actions", Text, nullable=False),
    Column("resources", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("created_by", Text, nullable=False),
)

# The usage ledger (billing): per UTC day, principal, session, alias, tool and Envelope code,
# what calls cost (written with their call records, in the same transaction) and what models
# were shown and spent (see ``toolpool.store._usage`` for the markers of rows that are not
# calls). A key column is never NULL ('' stands for none), so the upsert's conflict target
# always matches; the key is the primary key, day first, so a read from a day on is a range.
usage_ledger = Table(
    "usage_ledger",
    metadata,
    Column("day", Date, primary_key=True),
    Column("principal", Text, primary_key=True),
    Column("session_id", Text, primary_key=True),
    Column("alias", Text, primary_key=True),
    Column("tool", Text, primary_key=True),
    Column("code", Text, primary_key=True),
    Column("calls", BigInteger, nullable=False),
    Column("wait_ms", Float, nullable=False),
    Column("bytes_in", BigInteger, nullable=False),
    Column("bytes_out", BigInteger, nullable=False),
    Column("lists", BigInteger, nullable=False),
    Column("list_tokens", BigInteger, nullable=False),
    Column("model_requests", BigInteger, nullable=False),
    Column("input_tokens", BigInteger, nullable=False),
    Column("output_tokens", BigInteger, nullable=False),
)

# Approvals of single calls (countersigning): a call that needs one is refused with
# ``approval_pending`` and its request kept here; an approver approves or denies it; an approved
# request is used by the one retried call whose session, principal, tool pin and arguments' hash
# are the ones it binds, before ``expires_at``. ``arguments`` is the redacted, clipped text the
# approver reads; ``why`` says what asked for it (the tool's policy or the ticket's ``ask``).
approvals = Table(
    "approvals",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("requested_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("session_id", String(64), nullable=False),
    Column("principal", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("tool", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("pin", String(HASH_LENGTH), nullable=False),
    Column("arguments_hash", String(HASH_LENGTH), nullable=False),
    Column("arguments", Text, nullable=False),
    Column("why", Text, nullable=False),
    Column("state", String(16), nullable=False),
    Column("decided_by", Text, nullable=True),
    Column("decided_reason", Text, nullable=True),
    Column("decided_at", UTCDateTime, nullable=True),
    Column("used_at", UTCDateTime, nullable=True),
    CheckConstraint("state IN ('pending', 'approved', 'denied', 'used')", name="known_state"),
)
Index(None, approvals.c.state, approvals.c.requested_at)
Index(None, approvals.c.session_id)

# The screen judge's verdicts (``toolpool.vetting.judge``), by definition hash, judge (the
# model's name) and rubric version: a definition is judged once per judge and rubric, in any
# process. ``reasons`` are the model's words, made safe but untrusted (canonical JSON list).
screen_judgements = Table(
    "screen_judgements",
    metadata,
    Column("definition_hash", String(HASH_LENGTH), primary_key=True),
    Column("judge", String(200), primary_key=True),
    Column("rubric", String(32), primary_key=True),
    Column("verdict", String(8), nullable=False),
    Column("reasons", Text, nullable=False),
    Column("judged_at", UTCDateTime, nullable=False),
    CheckConstraint("verdict IN ('pass', 'drop')", name="verdict_is_known"),
)
