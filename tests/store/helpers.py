"""Small builders for store tests, and raw database access that bypasses the store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

import psycopg

from toolpool.config import ToolPolicy, WriteApproval
from toolpool.store import ImportedTool
from toolpool.upstream import PublishedTool


def published(name: str, description: str = "Looks a key up.") -> PublishedTool:
    return PublishedTool(
        name=name,
        description=description,
        input_schema={"type": "object", "properties": {"key": {"type": "string"}}},
    )


def imported(
    name: str,
    description: str = "Looks a key up.",
    *,
    verdict: Literal["pass", "drop"] = "pass",
    score: float = 0.0,
    reasons: tuple[str, ...] = (),
) -> ImportedTool:
    tool = published(name, description)
    return ImportedTool(tool.name, tool.definition(), tool.definition_hash(), verdict, score, reasons)


def read(action: str, *, enabled: bool = False) -> ToolPolicy:
    return ToolPolicy(action=action, effect="read", enabled=enabled)


def write(action: str, *, enabled: bool = False, by: str = "ana", reason: str = "ticket 7") -> ToolPolicy:
    approval = WriteApproval(by=by, reason=reason) if enabled else None
    return ToolPolicy(action=action, effect="write", enabled=enabled, write_approval=approval)


FORBIDDEN = ToolPolicy(action=False)


@contextmanager
def raw_connection(store_url: str) -> Iterator[Any]:
    """A plain DBAPI connection (sqlite3 or psycopg) in autocommit mode: SQL as a person types it.
    (SQLite checks foreign keys only on connections that ask; the store's always do, so this does.)"""
    if store_url.startswith("sqlite:///"):
        connection: Any = sqlite3.connect(store_url.removeprefix("sqlite:///"), isolation_level=None)
        connection.execute("PRAGMA foreign_keys = ON")
    else:
        connection = psycopg.connect(
            store_url.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True
        )
    try:
        yield connection
    finally:
        connection.close()


def sql(store_url: str, statement: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement through a plain connection; ``?`` placeholders work on both databases."""
    with raw_connection(store_url) as connection:
        if not store_url.startswith("sqlite:///"):
            statement = statement.replace("?", "%s")
        cursor = connection.execute(statement, parameters)
        return list(cursor.fetchall()) if cursor.description else []


INTEGRITY_ERRORS = (sqlite3.IntegrityError, psycopg.IntegrityError)
