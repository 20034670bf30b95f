"""The store's tools: gate 3, imports, the configuration's policy, enabling (R9), eras.

Every change (enable, disable, approve_write, set_server_enabled, and record_import and
sync_policy when they change something) is one write transaction together with the next
release and its audit event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import insert, select, update

from toolpool.config import ToolPolicy
from toolpool.enablement import Event, Refusal
from toolpool.errors import PolicyRefusal, UsageError
from toolpool.store._calls_read import published_definition
from toolpool.store._changes import (
    HASH,
    change_tool,
    check_alias,
    check_tool,
    ensure_server,
    tool_row,
    write_release,
)
from toolpool.store._codec import canonical, plain, storable
from toolpool.store._database import Database, Tx
from toolpool.store._rows import tool_state, where_tool
from toolpool.store._rules import after, describe_changes, policy_changes, refusal_text
from toolpool.store._tables import published_tools, servers, tool_states
from toolpool.store._values import ImportedTool, ToolState

__all__ = ["Tools"]


class Tools:
    """Which tools and servers exist and whether they are enabled: ``store.tools``."""

    def __init__(self, database: Database) -> None:
        self._db = database
        self._gate = database.gate  # gate 3 runs at every call: two lookups fewer

    # -- gate 3 ----------------------------------------------------------------------------

    def is_enabled(self, alias: str, name: str) -> bool:
        """Gate 3: whether the tool and its server are enabled, as committed right now.

        Fails closed: if the database cannot answer (twice), the answer is False.

        Raises:
            UsageError: the store is closed.
        """
        self._db.check_open()
        try:
            return self._gate.fetchone(self._gate.enabled_sql, (alias, name)) is not None
        except UsageError:
            raise
        except Exception:
            return False

    # -- what imports found, and what the configuration says -------------------------------

    def record_import(self, alias: str, tools: Sequence[ImportedTool], actor: str) -> None:
        """Store what an import found: published tools upserted (``first_seen`` kept), a tool
        state for each new tool (disabled, R9), an audit event, and a release if anything
        changed.

        Raises:
            UsageError: a bad alias, tool name or hash, or a verdict other than "pass" / "drop".
        """
        check_alias(alias)
        for tool in tools:
            check_tool(alias, tool.name, tool.definition_hash)
            if tool.verdict not in ("pass", "drop"):
                raise UsageError(
                    f"{alias}/{tool.name}: verdict must be 'pass' or 'drop', not {tool.verdict!r}"
                )
        with self._db.write() as tx:
            ensure_server(tx, alias)
            seen = {
                row.name: row
                for row in tx.connection.execute(
                    select(published_tools).where(published_tools.c.alias == alias)
                )
            }
            stateful = set(
                tx.connection.scalars(select(tool_states.c.name).where(tool_states.c.alias == alias))
            )
            added: list[str] = []
            changed: list[str] = []
            for tool in tools:
                if _upsert_published(tx, alias, tool, seen.get(tool.name)):
                    (changed if tool.name in seen else added).append(tool.name)
                if tool.name not in stateful:
                    tx.connection.execute(insert(tool_states).values(alias=alias, name=tool.name))
            detail: dict[str, object] = {
                "tools": sorted(tool.name for tool in tools),
                "added": added,
                "changed": changed,
                "dropped": sorted(tool.name for tool in tools if tool.verdict == "drop"),
                "not_listed": sorted(set(seen) - {tool.name for tool in tools}),
            }
            if added or changed:
                detail["release"] = write_release(tx, actor, f"tool.import {alias}")
            tx.append(actor, "tool.import", alias, detail)

    def sync_policy(
        self,
        alias: str,
        policies: Mapping[str, ToolPolicy],
        actor: str = "config",
        spec_hash: str | None = None,
    ) -> None:
        """Bring the store in line with the configuration's tool tables for ``alias``.

        Writes each tool's action (None when forbidden), effect and resource template, and
        the server's ``spec_hash`` when given (how the configuration reaches it). ``enabled`` in the config
        acts when it changes: to true, the tool is enabled (with the config's write approval);
        back to false, it is disabled. So a ``disable`` or ``enable`` made in between by
        someone else stays until the config's ``enabled`` changes again. A forbidden tool, a
        tool no longer in the config, and a write tool without an approval are always
        disabled. Nothing changed: no release and no audit event.
        """
        check_alias(alias)
        with self._db.write() as tx:
            ensure_server(tx, alias)
            rows = {
                row.name: row
                for row in tx.connection.execute(select(tool_states).where(tool_states.c.alias == alias))
            }
            changes: list[dict[str, object]] = []
            if spec_hash is not None and _set_spec_hash(tx, alias, spec_hash):
                changes.append({"server": alias, "spec_hash": spec_hash})
            for name, policy in sorted(policies.items()):
                row = rows.get(name)
                if row is None:
                    tx.connection.execute(insert(tool_states).values(alias=alias, name=name))
                    row = tool_row(tx.connection, alias, name)
                    changes.append({"tool": name, "added": True})
                values = policy_changes(row, policy, tx.at, actor)
                if values:
                    tx.connection.execute(where_tool(update(tool_states), alias, name).values(**values))
                    changes.append({"tool": name, **describe_changes(values)})
            for name in sorted(set(rows) - set(policies)):
                if rows[name].enabled or rows[name].config_enabled:  # gone: forbidden (R9)
                    values = {
                        "enabled": False,
                        "config_enabled": False,
                        "changed_at": tx.at,
                        "changed_by": actor,
                    }
                    tx.connection.execute(where_tool(update(tool_states), alias, name).values(**values))
                    changes.append({"tool": name, "enabled": False, "why": "not in the configuration"})
            if changes:
                release = write_release(tx, actor, f"policy.sync {alias}")
                tx.append(actor, "policy.sync", alias, {"changes": changes, "release": release})

    def tool_states(self, alias: str | None = None) -> list[ToolState]:
        """Every tool the store knows (of ``alias``), ordered by alias and name."""
        query = (
            select(
                tool_states,
                servers.c.enabled.label("server_enabled"),
                published_tools.c.definition_hash,
                published_tools.c.verdict,
                published_tools.c.score,
                published_tools.c.reasons,
                published_tools.c.first_seen,
                published_tools.c.last_seen,
            )
            .join(servers, servers.c.alias == tool_states.c.alias)
            .outerjoin(
                published_tools,
                (published_tools.c.alias == tool_states.c.alias)
                & (published_tools.c.name == tool_states.c.name),
            )
            .order_by(tool_states.c.alias, tool_states.c.name)
        )
        if alias is not None:
            query = query.where(tool_states.c.alias == alias)
        with self._db.read() as connection:
            return [tool_state(row) for row in connection.execute(query)]

    def published_definition(self, alias: str, name: str) -> dict[str, Any] | None:
        """The definition the latest import stored for a tool, or None if it was never imported."""
        with self._db.read() as connection:
            return published_definition(connection, alias, name)

    # -- enabling (R9) ---------------------------------------------------------------------

    def enable(self, alias: str, name: str, actor: str) -> None:
        """Enable a tool: a ``read`` tool, or a ``write`` tool that already has an approval.

        Raises:
            UsageError: the store does not know the tool.
            PolicyRefusal: the tool is forbidden, or writes without an approval (R9).
        """
        refusal = None
        with self._db.write() as tx:
            row = tool_row(tx.connection, alias, name)
            enabled = after(row, Event.ENABLE)
            if isinstance(enabled, Refusal):
                refusal = refusal_text(alias, name, enabled)
                tx.append(actor, "tool.enable_refused", f"{alias}/{name}", {"reason": refusal})
            elif enabled != bool(row.enabled):
                change_tool(tx, alias, name, actor, "tool.enable", {"enabled": enabled})
        if refusal is not None:
            raise PolicyRefusal(refusal)

    def disable(self, alias: str, name: str, actor: str) -> None:
        """Disable a tool; calls fail at gate 3 from the next one on, in every process.

        Raises:
            UsageError: the store does not know the tool.
        """
        with self._db.write() as tx:
            row = tool_row(tx.connection, alias, name)
            enabled = after(row, Event.DISABLE)
            if not isinstance(enabled, Refusal) and enabled != bool(row.enabled):
                change_tool(tx, alias, name, actor, "tool.disable", {"enabled": enabled})

    def approve_write(self, alias: str, name: str, by: str, reason: str, actor: str) -> None:
        """Record who approved a tool to write, when and why, and enable it (R9).

        Raises:
            UsageError: ``by`` or ``reason`` is empty, or the store does not know the tool.
            PolicyRefusal: the tool is forbidden.
        """
        if not by.strip() or not reason.strip():
            raise UsageError("a write approval needs who approved it (--by) and why (--reason)")
        refusal = None
        with self._db.write() as tx:
            enabled = after(tool_row(tx.connection, alias, name), Event.APPROVE_WRITE)
            if isinstance(enabled, Refusal):
                refusal = refusal_text(alias, name, enabled)
                tx.append(actor, "tool.approve_write_refused", f"{alias}/{name}", {"reason": refusal})
            else:
                values = {
                    "write_approved_by": storable(by),
                    "write_approved_at": tx.at,
                    "write_approved_reason": storable(reason),
                    "enabled": enabled,
                }
                change_tool(tx, alias, name, actor, "tool.approve_write", values)
        if refusal is not None:
            raise PolicyRefusal(refusal)

    def set_server_enabled(self, alias: str, enabled: bool, actor: str) -> None:
        """Enable or disable a whole server; gate 3 asks for both the tool and its server.

        Raises:
            UsageError: ``alias`` is not an alias the configuration could name.
        """
        check_alias(alias)
        with self._db.write() as tx:
            current = ensure_server(tx, alias)
            if current != enabled:
                tx.connection.execute(
                    update(servers)
                    .where(servers.c.alias == alias)
                    .values(enabled=enabled, changed_at=tx.at, changed_by=actor)
                )
                verb = "enable" if enabled else "disable"
                release = write_release(tx, actor, f"server.{verb} {alias}")
                tx.append(actor, f"server.{verb}", alias, {"release": release})

    # -- era memory ------------------------------------------------------------------------

    def remembered_era(self, alias: str) -> str | None:
        with self._db.read() as connection:
            return connection.scalar(select(servers.c.era).where(servers.c.alias == alias))

    def remember_era(self, alias: str, mode: str) -> None:
        """Remember which protocol era ``alias`` speaks, so ``auto`` probes it once."""
        check_alias(alias)
        if not 1 <= len(mode) <= 32:
            raise UsageError(f"not an era: {mode!r}")
        with self._db.write() as tx:
            ensure_server(tx, alias)
            tx.connection.execute(update(servers).where(servers.c.alias == alias).values(era=mode))


def _upsert_published(tx: Tx, alias: str, tool: ImportedTool, old: Any) -> bool:
    """Insert or update a published tool; whether it is new or its definition or verdict changed."""
    values = {
        "definition": canonical(plain(tool.definition)),
        "definition_hash": tool.definition_hash,
        "verdict": tool.verdict,
        "score": float(tool.score),
        "reasons": canonical([str(reason) for reason in tool.reasons]),
        "last_seen": tx.at,
    }
    if old is None:
        tx.connection.execute(
            insert(published_tools).values(alias=alias, name=tool.name, first_seen=tx.at, **values)
        )
        return True
    tx.connection.execute(
        where_tool(update(published_tools), alias, tool.name, published_tools).values(**values)
    )
    return any(getattr(old, key) != value for key, value in values.items() if key != "last_seen")


def _set_spec_hash(tx: Tx, alias: str, spec_hash: str) -> bool:
    """Record how the configuration reaches ``alias``; whether it changed."""
    if not HASH.match(spec_hash):
        raise UsageError(f"{alias}: not a spec hash: {spec_hash[:80]!r}")
    stored = tx.connection.scalar(select(servers.c.spec_hash).where(servers.c.alias == alias))
    if stored == spec_hash:
        return False
    tx.connection.execute(update(servers).where(servers.c.alias == alias).values(spec_hash=spec_hash))
    return True
