"""The parts of a management change inside one write transaction: checked names, the server
and tool rows, and the next release with the state as the transaction leaves it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Row, func, insert, select, text, update

from toolpool._name_patterns import ALIAS_PATTERN, REMOTE_NAME_PATTERN
from toolpool.errors import UsageError
from toolpool.store._codec import digest, storable
from toolpool.store._database import Tx
from toolpool.store._release_content import release_text
from toolpool.store._release_listener import RELEASE_CHANNEL
from toolpool.store._rows import where_tool
from toolpool.store._tables import releases, servers, tool_states

__all__ = [
    "HASH",
    "change_tool",
    "check_alias",
    "check_tool",
    "ensure_server",
    "release_number",
    "tool_row",
    "write_release",
]

HASH = re.compile(r"^sha256:[0-9a-f]{64}$")


def check_alias(alias: str) -> None:
    if not ALIAS_PATTERN.match(alias):
        raise UsageError(f"not an alias: {alias[:80]!r}")


def check_tool(alias: str, name: str, definition_hash: str) -> None:
    if not REMOTE_NAME_PATTERN.match(name):
        raise UsageError(f"{alias}: not a tool name: {name[:80]!r}")
    if not HASH.match(definition_hash):
        raise UsageError(f"{alias}/{name}: not a definition hash: {definition_hash[:80]!r}")


def ensure_server(tx: Tx, alias: str) -> bool:
    """Whether the server is enabled; a server the store did not know yet is added, enabled."""
    enabled = tx.connection.scalar(select(servers.c.enabled).where(servers.c.alias == alias))
    if enabled is None:
        tx.connection.execute(insert(servers).values(alias=alias, enabled=True, created_at=tx.at))
        return True
    return bool(enabled)


def tool_row(connection: Connection, alias: str, name: str) -> Row[Any]:
    """A tool's state row.

    Raises:
        UsageError: the store does not know the tool.
    """
    row = connection.execute(where_tool(select(tool_states), alias, name)).one_or_none()
    if row is None:
        raise UsageError(f"unknown tool {alias}/{name}: import it, or name it in the configuration")
    return row


def change_tool(
    tx: Tx,
    alias: str,
    name: str,
    actor: str,
    action: str,
    values: Mapping[str, object],
    detail: Mapping[str, object] | None = None,
) -> None:
    """Change a tool's state row, write the next release, and audit it as ``action``."""
    tx.connection.execute(
        where_tool(update(tool_states), alias, name).values(**values, changed_at=tx.at, changed_by=actor)
    )
    release = write_release(tx, actor, f"{action} {alias}/{name}")
    tx.append(actor, action, f"{alias}/{name}", {**(detail or {}), "release": release})


def write_release(tx: Tx, actor: str, change: str) -> int:
    """Write the next release, with the state as this transaction leaves it; its number."""
    number = release_number(tx.connection) + 1
    content = release_text(tx.connection)
    tx.connection.execute(
        insert(releases).values(
            number=number,
            created_at=tx.at,
            actor=storable(actor),
            change=storable(change),
            content=content,
            content_hash=digest(content),
        )
    )
    if tx.connection.dialect.name == "postgresql":
        # Delivered at commit, only if it commits: every pool's cached gate 3 looks again.
        tx.connection.execute(
            text("SELECT pg_notify(:channel, current_schema())"), {"channel": RELEASE_CHANNEL}
        )
    return number


def release_number(connection: Connection) -> int:
    """The current release's number (0 before the first)."""
    return int(connection.scalar(select(func.coalesce(func.max(releases.c.number), 0))) or 0)
