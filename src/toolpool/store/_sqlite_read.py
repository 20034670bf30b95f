"""A listing's read of a SQLite store on the driver alone, without SQLAlchemy (issue 16, item 5).

``toolpool tools`` on a configuration the store is synced with only reads: is this text's sync
the current release, then one query of every tool's state. Through ``Store.open`` that costs
importing SQLAlchemy, building an engine and checking the schema first — a third of a second,
a fifth of the whole command at 100,000 tools. ``synced_shown`` asks the same two questions on
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
from typing import Any, TypeAlias

from toolpool.store._values import ListedState

__all__ = [
    "ALEMBIC_VERSION_TABLE",
    "SCHEMA_HEAD",
    "SHOWN_SQL",
    "SQLITE_BUSY_TIMEOUT_S",
    "Shown",
    "pin_code",
    "shown_of",
    "shown_rows",
    "sqlite_file",
    "synced_shown",
]

# Not "alembic_version": a PostgreSQL database may hold other applications' migrations.
ALEMBIC_VERSION_TABLE = "toolpool_schema_version"
# The newest migration's revision; a test checks that Alembic agrees.
SCHEMA_HEAD = "0010"
# How long a SQLite writer waits for another process's write lock before failing. Write
# transactions are a few milliseconds; this bound only matters when something is stuck.
SQLITE_BUSY_TIMEOUT_S = 30.0

# What ``toolpool tools`` shows of each tool, by (alias, name): ``Shown``, the pin's rule
# (``pin_code``) in SQL. Only the columns it prints, and short values: two 71-character hashes
# per row were most of what the driver built.
SHOWN_SQL = (
    "SELECT s.alias, s.name, (s.enabled != 0) + 2 * (CASE WHEN s.approved_hash IS NULL THEN 0 "
    "WHEN p.definition_hash IS NULL OR p.definition_hash = s.approved_hash THEN 1 ELSE 2 END), "
    "p.verdict, p.reasons, s.write_approved_by FROM tool_states AS s "
    "LEFT OUTER JOIN published_tools AS p ON p.alias = s.alias AND p.name = s.name"
)
# ``_sync.is_synced``: a sync of this configuration text left the current release.
_SYNCED_SQL = (
    "SELECT 1 FROM config_syncs WHERE config_hash = ? "
    "AND release = (SELECT coalesce(max(number), 0) FROM releases)"
)
_REVISION_SQL = f"SELECT version_num FROM {ALEMBIC_VERSION_TABLE}"  # noqa: S608 - our constant
_NO_REASONS = (None, "[]")  # how a tool without screening reasons is stored
_UNSAFE = frozenset("?#%")  # a URL with a query, a fragment or escapes is left to SQLAlchemy

# What a listing shows of one tool: (code, verdict, screening reasons, who approved writing);
# code = 1 if enabled, plus 2 x ``pin_code``. Small ints and short strings: cheap to build.
Shown: TypeAlias = tuple[int, str | None, tuple[str, ...], str | None]


def sqlite_file(url: str) -> str | None:
    """The file of a plain ``sqlite:///PATH`` URL, or None for any other URL (one with a
    query, a fragment or escapes, an in-memory or ``file:`` database, another database)."""
    prefix = "sqlite:///"
    path = url[len(prefix) :] if url.startswith(prefix) else ""
    if not path or _UNSAFE.intersection(path) or path == ":memory:" or path.startswith("file:"):
        return None
    return path


def synced_shown(url: str, config_hash: str) -> dict[tuple[str, str], Shown] | None:
    """What a listing shows of every tool the store at ``url`` knows (``shown_of`` of each of
    ``Tools.listed_states()``) when it is a SQLite file at this toolpool's schema whose current
    release is the sync of ``config_hash``; else None."""
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
        rows = connection.execute(SHOWN_SQL).fetchall()
    except sqlite3.Error:
        return None
    finally:
        connection.close()  # ends the read transaction
    return shown_rows(rows)


def shown_rows(rows: Iterable[Sequence[Any]]) -> dict[tuple[str, str], Shown]:
    """Rows of ``SHOWN_SQL`` (as the driver returns them) by (alias, name)."""
    return {
        (alias, name): (code, verdict, () if reasons in _NO_REASONS else tuple(json.loads(reasons)), by)
        for alias, name, code, verdict, reasons, by in rows
    }


def shown_of(state: ListedState) -> Shown:
    """What a listing shows of ``state`` (``SHOWN_SQL``'s row, computed from the state)."""
    code = int(state.enabled) + 2 * pin_code(state.approved_hash, state.current_hash)
    return (code, state.verdict, state.reasons, state.write_approved_by)


def pin_code(approved_hash: str | None, current_hash: str | None) -> int:
    """0: no approved definition; 1: pinned (the latest import is the approved one, or there is
    none); 2: changed since it was approved. ``SHOWN_SQL`` computes the same in SQL."""
    if approved_hash is None:
        return 0
    return 2 if current_hash not in (None, approved_hash) else 1


def _current(connection: sqlite3.Connection, config_hash: str) -> bool:
    (revision,) = connection.execute(_REVISION_SQL).fetchone() or (None,)
    if revision != SCHEMA_HEAD:
        return False
    return connection.execute(_SYNCED_SQL, (config_hash,)).fetchone() is not None
