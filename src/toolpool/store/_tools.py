"""The store's tools: gate 3, imports, the configuration's policy, enabling (R9), eras.

Every change (enable, disable, approve_write, set_server_enabled, and record_import and
sync_policy when they change something) is one write transaction together with the next
release and its audit event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, case, func, select, tuple_, update

from toolpool.enablement import Event, Refusal
from toolpool.errors import PolicyRefusal, UsageError
from toolpool.store._calls_read import published_definition
from toolpool.store._changes import (
    change_tool,
    check_alias,
    ensure_server,
    tool_row,
    write_release,
)
from toolpool.store._codec import storable
from toolpool.store._database import Database
from toolpool.store._imports import check_imports, record_imports
from toolpool.store._rows import (
    LISTED_COLUMNS,
    TOOL_STATE_COLUMNS,
    listed_states,
    plain_rows,
    tool_state,
    with_published,
)
from toolpool.store._rules import after, refusal_text
from toolpool.store._sync import Policies, check_config_hash, is_synced
from toolpool.store._sync_diff import SyncPlan, apply_plan, plan_sync, sync_all
from toolpool.store._tables import published_tools, servers, tool_states
from toolpool.store._values import ImportedTool, ListedState, ToolState

if TYPE_CHECKING:  # the configuration's models: not imported with the store (cli._common)
    from toolpool.config import ToolPolicy

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
        self.record_imports({alias: tools}, actor)

    def record_imports(self, imports: Mapping[str, Sequence[ImportedTool]], actor: str) -> int | None:
        """``record_import`` for many aliases in one transaction: one ``tool.import`` audit
        event each and one release for all that changed (its number; None if nothing did).

        Raises:
            UsageError: as ``record_import``; nothing is written then.
        """
        check_imports(imports)
        with self._db.write() as tx:
            return record_imports(tx, imports, actor)

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

        Raises:
            UsageError: a bad alias or spec hash.
        """
        self.sync_policies({alias: policies}, actor, None if spec_hash is None else {alias: spec_hash})

    def sync_policies(
        self,
        policies: Mapping[str, Mapping[str, ToolPolicy]],
        actor: str = "config",
        spec_hashes: Mapping[str, str] | None = None,
        *,
        config_hash: str | None = None,
    ) -> int | None:
        """``sync_policy`` for every alias of ``policies`` (alias -> tool -> policy) in one
        transaction: one release for everything that changed (its number; None if nothing
        did) and one ``policy.sync`` audit event per alias that changed.

        ``config_hash`` (``sha256:`` of the configuration text the policies come from, and
        only them: no spec hashes) is remembered with the release the sync leaves, for
        ``is_synced``.

        Raises:
            UsageError: a bad alias, spec hash or configuration hash (nothing is written).
        """
        return sync_all(self._db, policies, spec_hashes or {}, actor, config_hash)

    def is_synced(self, config_hash: str) -> bool:
        """Whether syncing the configuration text ``config_hash`` again would change nothing:
        a sync of it (``sync_policies(..., config_hash=...)``) left the current release. Any
        change since (an enable, a disable, an import, another configuration's sync) made a
        new release, and the answer is False until the text is synced again."""
        with self._db.read() as connection:
            return is_synced(connection, config_hash)

    def sync_and_list(
        self, policies: Policies, *, config_hash: str, actor: str = "config"
    ) -> Mapping[tuple[str, str], ListedState]:
        """``sync_policies(policies, config_hash=...)`` then ``listed_states()``, for ``toolpool
        tools`` at 100,000 tools: only the aliases the sync changes are written (the same rows,
        release and audit events as syncing all), nothing when this configuration's sync is
        the current release's. It is ``apply_sync(plan_sync(...))``.

        Raises:
            UsageError: a bad alias or configuration hash (nothing is written).
        """
        return self.apply_sync(self.plan_sync(policies, config_hash=config_hash), actor)

    def plan_sync(self, policies: Policies, *, config_hash: str) -> SyncPlan:
        """What ``sync_and_list`` will write and list, read without the write lock.

        Raises:
            UsageError: a bad alias or configuration hash.
        """
        check_config_hash(config_hash)
        for alias in policies:
            check_alias(alias)
        with self._db.read(snapshot=True) as connection:
            return plan_sync(connection, policies, config_hash)

    def apply_sync(self, plan: SyncPlan, actor: str = "config") -> Mapping[tuple[str, str], ListedState]:
        """Write ``plan`` in one transaction, or everything when another release was written
        since it was read; the listing as it leaves the store."""
        if plan.synced:
            return plan.states
        with self._db.write() as tx:
            return apply_plan(tx, plan, actor)

    def tool_states(
        self, alias: str | None = None, *, after: tuple[str, str] | None = None, limit: int | None = None
    ) -> list[ToolState]:
        """Every tool the store knows (of ``alias``), ordered by alias and name; with ``after``
        only those past that (alias, name), and at most ``limit`` of them: a page of a long
        listing costs one range scan of the primary key, wherever it starts."""
        query: Select[Any] = (
            select(*TOOL_STATE_COLUMNS)
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
        if after is not None:
            query = query.where(tuple_(tool_states.c.alias, tool_states.c.name) > tuple_(*after))
        if limit is not None:
            query = query.limit(limit)
        with self._db.read() as connection:
            return [tool_state(row) for row in connection.execute(query).all()]

    def listed_states(self) -> dict[tuple[str, str], ListedState]:
        """(alias, name) -> what a listing shows of each tool the store knows, in one query:
        ``toolpool tools`` on 100,000 tools. The driver's rows are read as they come, without
        the per-column conversions of ``tool_states`` (seconds at that size)."""
        with self._db.read() as connection:
            return listed_states(plain_rows(connection, with_published(select(*LISTED_COLUMNS))))

    def tool_counts(self) -> dict[str, tuple[int, int]]:
        """Alias -> (tools the store knows, of which enabled), for every alias with a tool."""
        query = select(
            tool_states.c.alias,
            func.count(),
            func.sum(case((tool_states.c.enabled, 1), else_=0)),
        ).group_by(tool_states.c.alias)
        with self._db.read() as connection:
            return {row[0]: (int(row[1]), int(row[2] or 0)) for row in connection.execute(query)}

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
