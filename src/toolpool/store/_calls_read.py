"""Reads for the admin API: call records page by page, and a tool's published definition."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select

from toolpool.store._rows import where_tool
from toolpool.store._tables import call_records, published_tools
from toolpool.store._values import CallRecord

__all__ = ["call_page", "published_definition"]


def call_page(
    connection: Connection, after_id: int | None, limit: int | None
) -> list[tuple[int, CallRecord]]:
    """Call records in id order, after ``after_id``, at most ``limit``, each with its id."""
    query = select(call_records).order_by(call_records.c.id)
    if after_id is not None:
        query = query.where(call_records.c.id > after_id)
    if limit is not None:
        query = query.limit(limit)
    return [
        (
            row.id,
            CallRecord(
                session_id=row.session_id,
                principal=row.principal,
                alias=row.alias,
                tool=row.tool,
                code=row.code,
                duration_ms=row.duration_ms,
                bytes_in=row.bytes_in,
                bytes_out=row.bytes_out,
                snapshot_version=row.snapshot_version,
                release=row.release,
                at=row.at,
                replica=row.replica,
            ),
        )
        for row in connection.execute(query)
    ]


def published_definition(connection: Connection, alias: str, name: str) -> dict[str, Any] | None:
    """The definition the latest import stored for ``alias/name``, or None if never imported."""
    query = where_tool(select(published_tools.c.definition), alias, name, published_tools)
    text = connection.scalar(query)
    return None if text is None else dict(json.loads(text))
