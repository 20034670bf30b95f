"""What imports found, stored: published tools upserted, new tools' states (disabled, R9).

Many aliases go in one write transaction, with batched statements and one release for all
that changed (``store.tools.record_imports``): importing 20,000 servers one transaction and
one whole-state release each was quadratic. Each alias keeps its own ``tool.import`` audit
event, as a single import has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from toolpool.errors import UsageError
from toolpool.store._changes import check_alias, check_tool, write_release
from toolpool.store._codec import canonical, plain
from toolpool.store._database import Tx
from toolpool.store._tables import published_tools, servers, tool_states
from toolpool.store._values import AuditEntry, ImportedTool

__all__ = ["check_imports", "record_imports"]

_COMPARED = ("definition", "definition_hash", "verdict", "score", "reasons")
# Above this many aliases, one scan of a table beats a long ``IN (...)`` list.
_SCAN_ABOVE = 200


def check_imports(imports: Mapping[str, Sequence[ImportedTool]]) -> None:
    """Raises:
    UsageError: a bad alias, tool name or hash, or a verdict other than "pass" / "drop"."""
    for alias, tools in imports.items():
        check_alias(alias)
        for tool in tools:
            check_tool(alias, tool.name, tool.definition_hash)
            if tool.verdict not in ("pass", "drop"):
                raise UsageError(
                    f"{alias}/{tool.name}: verdict must be 'pass' or 'drop', not {tool.verdict!r}"
                )


def record_imports(tx: Tx, imports: Mapping[str, Sequence[ImportedTool]], actor: str) -> int | None:
    """Store every alias's import in ``tx``; the release written, or None if nothing changed."""
    known = set(tx.connection.scalars(select(servers.c.alias).where(servers.c.alias.in_(list(imports)))))
    missing = [
        {"alias": alias, "enabled": True, "created_at": tx.at} for alias in imports if alias not in known
    ]
    if missing:
        tx.connection.execute(insert(servers), missing)
    new_published: list[dict[str, Any]] = []
    old_published: list[dict[str, Any]] = []
    new_states: list[dict[str, Any]] = []
    details: list[tuple[str, dict[str, object]]] = []
    published, stated = _stored(tx, imports)
    for alias, tools in imports.items():
        seen = published.get(alias, {})
        stateful = stated.get(alias, set())
        added: list[str] = []
        changed: list[str] = []
        for tool in tools:
            values = _published_values(tool, tx)
            old = seen.get(tool.name)
            if old is None:
                new_published.append({"alias": alias, "name": tool.name, "first_seen": tx.at, **values})
                added.append(tool.name)
            else:
                old_published.append({"b_alias": alias, "b_name": tool.name, **values})
                if any(getattr(old, key) != values[key] for key in _COMPARED):
                    changed.append(tool.name)
            if tool.name not in stateful:
                new_states.append({"alias": alias, "name": tool.name})
        details.append(
            (
                alias,
                {
                    "tools": sorted(tool.name for tool in tools),
                    "added": added,
                    "changed": changed,
                    "dropped": sorted(tool.name for tool in tools if tool.verdict == "drop"),
                    "not_listed": sorted(set(seen) - {tool.name for tool in tools}),
                },
            )
        )
    _write(tx, new_published, old_published, new_states)
    release = None
    if any(detail["added"] or detail["changed"] for _, detail in details):
        what = details[0][0] if len(details) == 1 else f"{len(details)} servers"
        release = write_release(tx, actor, f"tool.import {what}")
    for _, detail in details:
        if detail["added"] or detail["changed"]:
            detail["release"] = release
    tx.append_many(
        [AuditEntry(actor, "tool.import", alias, detail) for alias, detail in details],
        already_plain=True,  # names, lists of names and the release's number
    )
    return release


def _stored(
    tx: Tx, imports: Mapping[str, Sequence[ImportedTool]]
) -> tuple[dict[str, dict[str, Any]], dict[str, set[str]]]:
    """The published rows (alias -> name -> row) and the names with a state row of the aliases
    of ``imports``: two queries, not two per alias (20,000 aliases made 40,000 statements)."""
    published_query = select(published_tools)
    states_query = select(tool_states.c.alias, tool_states.c.name)
    if len(imports) <= _SCAN_ABOVE:
        published_query = published_query.where(published_tools.c.alias.in_(sorted(imports)))
        states_query = states_query.where(tool_states.c.alias.in_(sorted(imports)))
    published: dict[str, dict[str, Any]] = {}
    for row in tx.connection.execute(published_query):
        if row.alias in imports:
            published.setdefault(row.alias, {})[row.name] = row
    stated: dict[str, set[str]] = {}
    for alias, name in tx.connection.execute(states_query):
        if alias in imports:
            stated.setdefault(alias, set()).add(name)
    return published, stated


def _published_values(tool: ImportedTool, tx: Tx) -> dict[str, Any]:
    return {
        "definition": canonical(plain(tool.definition)),
        "definition_hash": tool.definition_hash,
        "verdict": tool.verdict,
        "score": float(tool.score),
        "reasons": canonical([str(reason) for reason in tool.reasons]),
        "last_seen": tx.at,
    }


def _write(
    tx: Tx,
    new_published: list[dict[str, Any]],
    old_published: list[dict[str, Any]],
    new_states: list[dict[str, Any]],
) -> None:
    if new_published:
        tx.connection.execute(insert(published_tools), new_published)
    if old_published:
        statement = (
            update(published_tools)
            .where(
                published_tools.c.alias == bindparam("b_alias"), published_tools.c.name == bindparam("b_name")
            )
            .values({key: bindparam(key) for key in (*_COMPARED, "last_seen")})
        )
        tx.connection.execute(statement, old_published)
    if new_states:
        tx.connection.execute(insert(tool_states), new_states)
