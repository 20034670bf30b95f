"""A listing's read of a SQLite store on the driver alone, without SQLAlchemy (issue 16, item 5).

``toolpool tools`` on a configuration the store is synced with only reads: is this text's sync
the current release, then one query of every tool's state. Through ``Store.open`` that costs
importing SQLAlchemy, building an engine and checking the schema first — a third of a second,
a fifth of the whole command at 100,000 tools. ``synced_states`` asks the same two questions on
a plain ``sqlite3`` connection that may not write (``PRAGMA query_only``), in one read
transaction. It answers only when the store is a SQLite file this toolpool wrote at its schema
revision and synced with that text; anything else (another URL, no file, another revision, a
text not synced, any error of the driver) is None, and the caller opens the store as always,
which creates, migrates, syncs or says in one line what is wrong.

This module imports neither SQLAlchemy nor the tables: the schema's constants live here.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from toolpool.store._values import ListedState

__all__ = [
    "ALEMBIC_VERSION_TABLE",
    "LISTED_SQL",
    "SCHEMA_HEAD",
    "SQLITE_BUSY_TIMEOUT_S",
    "listed_states",
    "sqlite_file",
    "synced_states",
]

# Not "alembic_version": a PostgreSQL database may hold other applications' migrations.
ALEMBIC_VERSION_TABLE = "toolpool_schema_version"
# The newest migration's revision; a test checks that Alembic agrees.
SCHEMA_HEAD = "0010"
# How long a SQLite writer waits for another process's write lock before failing. Write
# transactions are a few milliseconds; this bound only matters when something is stuck.
SQLITE_BUSY_TIMEOUT_S = 30.0

# What a listing shows of each tool (``ListedState``, after alias and name): the text of
# ``select(*_rows.LISTED_COLUMNS)`` joined ``with_published``, which a test holds it to.
LISTED_SQL = (
    "SELECT tool_states.alias, tool_states.name, tool_states.enabled, tool_states.approved_hash, "
    "published_tools.definition_hash, published_tools.verdict, published_tools.reasons, "
    "tool_states.write_approved_by \nFROM tool_states "
    "LEFT OUTER JOIN published_tools ON published_tools.alias = tool_states.alias "
    "AND published_tools.name = tool_states.name"
)
# ``_sync.is_synced``: a sync of this configuration text left the current release.
_SYNCED_SQL = (
    "SELECT 1 FROM config_syncs WHERE config_hash = ? "
    "AND release = (SELECT coalesce(max(number), 0) FROM releases)"
)
_REVISION_SQL = f"SELECT version_num FROM {ALEMBIC_VERSION_TABLE}"  # noqa: S608 - our constant
_NO_REASONS = (None, "[]")  # how a tool without screening reasons is stored
_UNSAFE = frozenset("?#%")  # a URL with a query, a fragment or escapes is left to SQLAlchemy


def sqlite_file(url: str) -> str | None:
    """The file of a plain ``sqlite:///PATH`` URL, or None for any other URL (one with a
    query, a fragment or escapes, an in-memory or ``file:`` database, another database)."""
    prefix = "sqlite:///"
    path = url[len(prefix) :] if url.startswith(prefix) else ""
    if not path or _UNSAFE.intersection(path) or path == ":memory:" or path.startswith("file:"):
        return None
    return path


def synced_states(url: str, config_hash: str) -> dict[tuple[str, str], ListedState] | None:
    """``Tools.listed_states()`` of the store at ``url`` when it is a SQLite file at this
    toolpool's schema whose current release is the sync of ``config_hash``; else None."""
    path = sqlite_file(url)
    if path is None or not os.path.isfile(path):
        return None
    try:
        connection = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        connection.execute("PRAGMA query_only = 1")
        connection.execute("BEGIN")  # one snapshot for both questions
        if not _current(connection, config_hash):
            return None
        rows = connection.execute(LISTED_SQL).fetchall()
    except sqlite3.Error:
        return None
    finally:
        connection.close()  # ends the read transaction
    return listed_states(rows)


def listed_states(rows: Iterable[Sequence[Any]]) -> dict[tuple[str, str], ListedState]:
    """Plain rows of ``LISTED_SQL`` (as the driver returns them), by (alias, name)."""
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


def _current(connection: sqlite3.Connection, config_hash: str) -> bool:
    (revision,) = connection.execute(_REVISION_SQL).fetchone() or (None,)
    if revision != SCHEMA_HEAD:
        return False
    return connection.execute(_SYNCED_SQL, (config_hash,)).fetchone() is not None
