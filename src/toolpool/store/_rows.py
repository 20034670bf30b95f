"""Rows of the store's tables turned into values, and the content of a release."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Row, Select, Table

from toolpool.store._tables import published_tools, servers, tool_states
from toolpool.store._values import ListedState, Release, ToolState

__all__ = [
    "LISTED_COLUMNS",
    "TOOL_STATE_COLUMNS",
    "listed_states",
    "plain_rows",
    "reasons_of",
    "release_value",
    "tool_state",
    "where_tool",
    "with_published",
]

# What a ToolState holds (not the approved definitions: a schema each), in its fields' order:
# a row is read by position, which costs a fraction of reading sixteen columns by name.
TOOL_STATE_COLUMNS = (
    tool_states.c.alias,
    tool_states.c.name,
    tool_states.c.action,
    tool_states.c.effect,
    tool_states.c.enabled,
    servers.c.enabled.label("server_enabled"),
    tool_states.c.approved_hash,
    published_tools.c.definition_hash,
    published_tools.c.verdict,
    published_tools.c.score,
    published_tools.c.reasons,
    tool_states.c.write_approved_by,
    tool_states.c.write_approved_at,
    tool_states.c.write_approved_reason,
    published_tools.c.first_seen,
    published_tools.c.last_seen,
)
# What a ListedState holds, after the key (alias, name), in its fields' order.
LISTED_COLUMNS = (
    tool_states.c.alias,
    tool_states.c.name,
    tool_states.c.enabled,
    tool_states.c.approved_hash,
    published_tools.c.definition_hash,
    published_tools.c.verdict,
    published_tools.c.reasons,
    tool_states.c.write_approved_by,
)
_NO_REASONS = (None, "[]")  # how a tool without screening reasons is stored


def with_published(query: Select[Any]) -> Select[Any]:
    """``query`` over the tool states, joined to what the latest import published of each."""
    return query.outerjoin(
        published_tools,
        (published_tools.c.alias == tool_states.c.alias) & (published_tools.c.name == tool_states.c.name),
    )


def plain_rows(connection: Connection, query: Select[Any]) -> Sequence[Any]:
    """The rows of ``query`` as the driver returns them: at 100,000 rows the per-column
    conversions of SQLAlchemy's rows cost seconds. (Columns of a type that converts, such as
    times, come as the driver stores them.)"""
    cursor = connection.connection.cursor()
    try:
        cursor.execute(str(query.compile(dialect=connection.dialect)))
        return cursor.fetchall()
    finally:
        cursor.close()


def where_tool(statement: Any, alias: str, name: str, table: Table = tool_states) -> Any:
    return statement.where(table.c.alias == alias, table.c.name == name)


def release_value(row: Row[Any]) -> Release:
    return Release(
        number=row.number,
        created_at=row.created_at,
        actor=row.actor,
        change=row.change,
        content=json.loads(row.content),
        content_hash=row.content_hash,
    )


def tool_state(row: Sequence[Any]) -> ToolState:
    """A row of ``TOOL_STATE_COLUMNS`` as a ToolState."""
    (
        alias,
        name,
        action,
        effect,
        enabled,
        server_enabled,
        approved,
        current,
        verdict,
        score,
        reasons,
        by,
        at,
        why,
        first_seen,
        last_seen,
    ) = row
    return ToolState(
        alias,
        name,
        action,
        effect,
        bool(enabled),
        bool(server_enabled),
        approved,
        current,
        verdict,
        score,
        reasons_of(reasons),
        by,
        at,
        why,
        first_seen,
        last_seen,
    )


def listed_states(rows: Iterable[Sequence[Any]]) -> dict[tuple[str, str], ListedState]:
    """Plain rows of ``LISTED_COLUMNS`` (as the driver returns them), by (alias, name)."""
    new = tuple.__new__  # a NamedTuple's own __new__ is a Python call: a second per 100,000 rows
    return {
        (alias, name): new(
            ListedState,
            (
                bool(enabled),
                approved,
                current,
                verdict,
                () if reasons in _NO_REASONS else tuple(json.loads(reasons)),
                by,
            ),
        )
        for alias, name, enabled, approved, current, verdict, reasons, by in rows
    }


def reasons_of(text: str | None) -> tuple[str, ...]:
    """A stored list of screening reasons (JSON text; most are empty)."""
    return () if text in _NO_REASONS else tuple(json.loads(text))
