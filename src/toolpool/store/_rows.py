"""Rows of the store's tables turned into values, and the content of a release."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Row, Table, select

from toolpool.store._tables import servers, tool_states
from toolpool.store._values import Release, ToolState

__all__ = ["release_content", "release_value", "tool_state", "where_tool"]


def where_tool(statement: Any, alias: str, name: str, table: Table = tool_states) -> Any:
    return statement.where(table.c.alias == alias, table.c.name == name)


def release_content(connection: Connection) -> dict[str, Any]:
    enabled = connection.execute(
        select(tool_states.c.alias, tool_states.c.name, tool_states.c.action, tool_states.c.effect)
        .add_columns(tool_states.c.approved_hash, tool_states.c.resource, tool_states.c.approval)
        .where(tool_states.c.enabled)
        .order_by(tool_states.c.alias, tool_states.c.name)
    )
    disabled = connection.scalars(select(servers.c.alias).where(~servers.c.enabled).order_by(servers.c.alias))
    specs = connection.execute(
        select(servers.c.alias, servers.c.spec_hash).where(servers.c.spec_hash.is_not(None))
    )
    return {
        "tools": {
            f"{row.alias}/{row.name}": {
                "action": row.action,
                "effect": row.effect,
                "resource": row.resource,
                "approved_hash": row.approved_hash,
                # Only where a call needs approval: releases of tools without one keep
                # the content (and hash) they had before approvals existed.
                **({"approval": row.approval} if row.approval != "none" else {}),
            }
            for row in enabled
        },
        "disabled_servers": list(disabled),
        "servers": {row.alias: row.spec_hash for row in specs},
    }


def release_value(row: Row[Any]) -> Release:
    return Release(
        number=row.number,
        created_at=row.created_at,
        actor=row.actor,
        change=row.change,
        content=json.loads(row.content),
        content_hash=row.content_hash,
    )


def tool_state(row: Row[Any]) -> ToolState:
    return ToolState(
        alias=row.alias,
        name=row.name,
        action=row.action,
        effect=row.effect,
        enabled=bool(row.enabled),
        server_enabled=bool(row.server_enabled),
        approved_hash=row.approved_hash,
        current_hash=row.definition_hash,
        verdict=row.verdict,
        score=row.score,
        reasons=tuple(json.loads(row.reasons)) if row.reasons is not None else (),
        write_approved_by=row.write_approved_by,
        write_approved_at=row.write_approved_at,
        write_approved_reason=row.write_approved_reason,
        first_seen=row.first_seen,
        last_seen=row.last_seen,
    )
