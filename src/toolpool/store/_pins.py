"""The store's pins (R7): each tool's approved definition, and the vetting layer's ``Pins`` over it.

A pool pins what it admits for the first time (trust on first use) and what someone approves
after a change; a ``pin`` in the configuration is trusted local policy and wins
(``ConfigFirstPins``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from toolpool._hashing import definition_hash as hash_of
from toolpool.errors import UsageError
from toolpool.store._changes import (
    change_tool,
    check_alias,
    check_tool,
    ensure_server,
    release_number,
    write_release,
)
from toolpool.store._codec import canonical, plain
from toolpool.store._database import Database
from toolpool.store._rows import where_tool
from toolpool.store._tables import tool_states
from toolpool.store._values import AuditEntry, StoredPin
from toolpool.upstream import PublishedTool
from toolpool.vetting.pins import Pin, Pins

__all__ = ["ConfigFirstPins", "StorePins", "ToolPins"]


class ToolPins:
    """Approved definitions of tools: ``store.pins``."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def pin_of(self, alias: str, name: str) -> StoredPin | None:
        """The approved definition of a tool (R7), or None if nothing was approved yet."""
        query = where_tool(
            select(
                tool_states.c.approved_hash,
                tool_states.c.approved_definition,
                tool_states.c.pinned_by,
                tool_states.c.pinned_at,
            ),
            alias,
            name,
        )
        with self._db.read() as connection:
            row = connection.execute(query).one_or_none()
        if row is None or row.approved_hash is None:
            return None
        definition = None if row.approved_definition is None else json.loads(row.approved_definition)
        return StoredPin(row.approved_hash, definition, row.pinned_by, row.pinned_at)

    def pins_of(self, alias: str) -> dict[str, StoredPin]:
        """Every approved definition of ``alias``'s tools, by name, in one read."""
        query = select(
            tool_states.c.name,
            tool_states.c.approved_hash,
            tool_states.c.approved_definition,
            tool_states.c.pinned_by,
            tool_states.c.pinned_at,
        ).where(tool_states.c.alias == alias, tool_states.c.approved_hash.is_not(None))
        with self._db.read() as connection:
            rows = connection.execute(query).all()
        return {
            row.name: StoredPin(
                row.approved_hash,
                None if row.approved_definition is None else json.loads(row.approved_definition),
                row.pinned_by,
                row.pinned_at,
            )
            for row in rows
        }

    def approve_pin(
        self, alias: str, name: str, definition: Mapping[str, Any], definition_hash: str, actor: str
    ) -> None:
        """Approve ``definition`` as the tool's pin (trust on first use, or a reviewed change).

        Raises:
            UsageError: ``definition_hash`` is not the hash of ``definition``.
        """
        check_alias(alias)
        check_tool(alias, name, definition_hash)
        if hash_of(definition) != definition_hash:
            raise UsageError(f"{alias}/{name}: the pin's hash does not match its definition")
        stored = canonical(plain(definition))
        with self._db.write() as tx:
            ensure_server(tx, alias)
            row = tx.connection.execute(where_tool(select(tool_states), alias, name)).one_or_none()
            if row is None:
                tx.connection.execute(insert(tool_states).values(alias=alias, name=name))
            elif row.approved_hash == definition_hash and row.approved_definition == stored:
                return
            values = {
                "approved_hash": definition_hash,
                "approved_definition": stored,
                "pinned_by": actor,
                "pinned_at": tx.at,
            }
            change_tool(tx, alias, name, actor, "tool.approve_pin", values, {"hash": definition_hash})

    def approve_first(
        self, alias: str, definitions: Sequence[tuple[str, Mapping[str, Any], str]], actor: str
    ) -> int | None:
        """Trust on first use for many tools of ``alias`` at once: each (name, definition,
        hash) whose tool has no pin yet is pinned, in one transaction with at most one release
        (a release per tool would store the whole state once per tool: quadratic in a server's
        tools). A release holds the *enabled* tools' pins only, so pins of disabled tools (an
        import's, a first connect's: R9) leave its content as it was and write none; reading the
        whole state to store it again cost ~0.2 s per first connect at 37,000 enabled tools. One
        ``tool.approve_pin`` event per tool pinned, as ``approve_pin`` writes, naming the release
        the pins are in. A tool pinned meanwhile (by another process) keeps its pin. The release
        written, or None.

        Raises:
            UsageError: a bad name, or a hash that is not its definition's (nothing is written).
        """
        check_alias(alias)
        wanted: dict[str, tuple[str, str]] = {}
        for name, definition, definition_hash in definitions:
            check_tool(alias, name, definition_hash)
            if hash_of(definition) != definition_hash:
                raise UsageError(f"{alias}/{name}: the pin's hash does not match its definition")
            wanted[name] = (definition_hash, canonical(plain(definition)))
        if not wanted:
            return None
        with self._db.write() as tx:
            ensure_server(tx, alias)
            rows = tx.connection.execute(
                select(tool_states.c.name, tool_states.c.approved_hash, tool_states.c.enabled).where(
                    tool_states.c.alias == alias
                )
            ).all()
            known = {row.name: row.approved_hash for row in rows}
            enabled = {row.name for row in rows if row.enabled}
            new = [{"alias": alias, "name": name} for name in wanted if name not in known]
            if new:
                tx.connection.execute(insert(tool_states), new)
            first = [name for name in wanted if known.get(name) is None]
            if not first:
                return None
            tx.connection.execute(
                update(tool_states)
                .where(tool_states.c.alias == alias, tool_states.c.name == bindparam("tool"))
                .values(
                    approved_hash=bindparam("hash"),
                    approved_definition=bindparam("definition"),
                    pinned_by=actor,
                    pinned_at=tx.at,
                    changed_at=tx.at,
                    changed_by=actor,
                ),
                [{"tool": name, "hash": wanted[name][0], "definition": wanted[name][1]} for name in first],
            )
            written = None
            if enabled.intersection(first):
                written = write_release(tx, actor, f"tool.approve_pin {alias} ({len(first)} tools)")
            release = written if written is not None else release_number(tx.connection)
            details = [{"hash": wanted[name][0], "release": release} for name in first]
            # One insert for the lot; the chain is the same as appending them one by one.
            tx.append_many(
                [
                    AuditEntry(actor, "tool.approve_pin", f"{alias}/{name}", detail)
                    for name, detail in zip(first, details, strict=True)
                ]
            )
            return written

    def as_pins(self, actor: str) -> StorePins:
        """These pins behind ``toolpool.vetting.Pins``; approvals are recorded as ``actor``."""
        return StorePins(self, actor)


class StorePins:
    """``Pins`` over a store: what a pool admits, and approves, is remembered across processes."""

    def __init__(self, pins: ToolPins, actor: str) -> None:
        self._pins = pins
        self._actor = actor

    def pin_of(self, alias: str, remote_name: str) -> Pin | None:
        return self._pins.pin_of(alias, remote_name)

    def pins_of(self, alias: str) -> Mapping[str, Pin]:
        return self._pins.pins_of(alias)

    def approve(self, alias: str, remote_name: str, tool: PublishedTool) -> None:
        self._pins.approve_pin(alias, remote_name, tool.definition(), tool.definition_hash(), self._actor)

    def trust_first(self, alias: str, tools: Sequence[PublishedTool]) -> None:
        definitions = [(tool.name, tool.definition(), tool.definition_hash()) for tool in tools]
        self._pins.approve_first(alias, definitions, self._actor)


class ConfigFirstPins:
    """Pins from the configuration first, then from ``stored``."""

    def __init__(self, configured: Mapping[tuple[str, str], str], stored: Pins) -> None:
        self._configured = dict(configured)
        self._stored = stored

    def pin_of(self, alias: str, remote_name: str) -> Pin | None:
        pinned = self._configured.get((alias, remote_name))
        return Pin(pinned) if pinned is not None else self._stored.pin_of(alias, remote_name)

    def pins_of(self, alias: str) -> Mapping[str, Pin]:
        configured = {
            name: Pin(pinned) for (owner, name), pinned in self._configured.items() if owner == alias
        }
        return {**self._stored.pins_of(alias), **configured}

    def approve(self, alias: str, remote_name: str, tool: PublishedTool) -> None:
        """Raises UsageError for a tool pinned in the configuration: change the pin there."""
        if (alias, remote_name) in self._configured:
            raise UsageError(f"{alias}/{remote_name} is pinned in the configuration; change its `pin` there")
        self._stored.approve(alias, remote_name, tool)

    def trust_first(self, alias: str, tools: Sequence[PublishedTool]) -> None:
        """The configuration's pins stay where they are; the rest are trusted on first use."""
        self._stored.trust_first(
            alias, [tool for tool in tools if (alias, tool.name) not in self._configured]
        )
