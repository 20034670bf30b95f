"""The configuration's tool policies synced into the store: every alias in one transaction.

A pool or a command opens the store with the whole configuration synced into it. One write
transaction per alias made that cost O(aliases) lock round trips and, on a first run, one
release per alias each holding the whole state (O(aliases x tools)); with 20,000 servers
that took minutes. Here every alias is read with one query, every row written with one
batched statement per kind of change, and everything that changed makes ONE release, with
one ``policy.sync`` audit event per changed alias (as before, naming that release).

The rows go in with the driver's own ``executemany`` of tuples built as it binds them
(``_bulk``), a new row's columns computed once per kind of policy, and the audit details are
plain data from the start (RESULTS §12k): the same rows, release and events, for less CPU.

The rules of a sync (``toolpool.store._rules.policy_changes``) are unchanged.

A sync given the hash of the configuration text it comes from also remembers it with the
release it left (``config_syncs``). Syncing the same text again changes nothing for as long
as that is the current release: every change a sync reads (states, actions, effects, the
configuration's own ``enabled``, the servers) is made with a new release. ``is_synced`` says
so with one query, and ``toolpool tools`` skips the sync then.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeAlias

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update

from toolpool.errors import UsageError
from toolpool.store._bulk import Writer
from toolpool.store._changes import HASH, check_alias, release_number, write_release
from toolpool.store._database import Tx
from toolpool.store._rules import SyncedPolicy, describe_changes, needs_disabling, policy_changes
from toolpool.store._tables import config_syncs, releases, servers, tool_states
from toolpool.store._values import AuditEntry

if TYPE_CHECKING:  # the configuration's models: not imported with the store (cli._common)
    from toolpool.config import ToolPolicy

__all__ = ["Policies", "check_config_hash", "check_sync", "is_synced", "remember_sync", "sync_policies"]

Policies: TypeAlias = "Mapping[str, Mapping[str, ToolPolicy | SyncedPolicy]]"
"""alias -> tool -> its policy, in the configuration's order."""

# Above this many aliases, one scan of the table beats a long ``IN (...)`` list.
_SCAN_ABOVE = 200
_READ = (
    tool_states.c.alias,
    tool_states.c.name,
    tool_states.c.action,
    tool_states.c.effect,
    tool_states.c.resource,
    tool_states.c.approval,
    tool_states.c.enabled,
    tool_states.c.config_enabled,
    tool_states.c.write_approved_by,
    tool_states.c.write_approved_at,
    tool_states.c.write_approved_reason,
)
_NEW_ROW = {
    "action": None,
    "effect": "write",
    "resource": None,
    "approval": "none",
    "enabled": False,
    "config_enabled": False,
    "write_approved_by": None,
    "write_approved_at": None,
    "write_approved_reason": None,
}
_GONE = {"enabled": False, "config_enabled": False}
# The columns a new state row is inserted with: its key, ``_NEW_ROW``'s, and its change's.
_INSERTED = ("alias", "name", *_NEW_ROW, "changed_at", "changed_by")


def sync_policies(
    tx: Tx,
    policies: Policies,
    spec_hashes: Mapping[str, str],
    actor: str,
) -> int | None:
    """Bring the store in line with ``policies`` (alias -> tool -> policy) and the servers'
    ``spec_hashes``; the release it wrote, or None when nothing changed.

    Raises:
        UsageError: a bad alias or spec hash (nothing is written).
    """
    check_sync(policies, spec_hashes)
    changes: dict[str, list[dict[str, object]]] = {alias: [] for alias in policies}
    _sync_servers(tx, policies, spec_hashes, changes)
    _sync_tools(tx, policies, actor, changes)
    changed = {alias: found for alias, found in changes.items() if found}
    if not changed:
        return None
    what = next(iter(changed)) if len(changed) == 1 else f"{len(changed)} servers"
    release = write_release(tx, actor, f"policy.sync {what}")
    tx.append_many(
        [
            AuditEntry(actor, "policy.sync", alias, {"changes": found, "release": release})
            for alias, found in changed.items()
        ],
        already_plain=True,  # text, booleans, None and the release's number
    )
    return release


def check_sync(policies: Policies, spec_hashes: Mapping[str, str]) -> None:
    """Raises UsageError for a bad alias or spec hash."""
    for alias in policies:
        check_alias(alias)
    for alias, spec_hash in spec_hashes.items():
        if not HASH.match(spec_hash):
            raise UsageError(f"{alias}: not a spec hash: {spec_hash[:80]!r}")


def check_config_hash(config_hash: str) -> None:
    if not HASH.match(config_hash):
        raise UsageError(f"not a configuration hash: {config_hash[:80]!r}")


def remember_sync(tx: Tx, config_hash: str) -> None:
    """Remember that the configuration text ``config_hash`` is synced as of the current
    release; what was remembered for an older release can never match again, so it goes."""
    number = release_number(tx.connection)
    tx.connection.execute(
        delete(config_syncs).where(
            (config_syncs.c.release != number) | (config_syncs.c.config_hash == config_hash)
        )
    )
    tx.connection.execute(insert(config_syncs).values(config_hash=config_hash, release=number))


def is_synced(connection: Connection, config_hash: str) -> bool:
    """Whether a sync of the configuration text ``config_hash`` left the current release."""
    current = select(func.coalesce(func.max(releases.c.number), 0)).scalar_subquery()
    query = select(config_syncs.c.release).where(
        config_syncs.c.config_hash == config_hash, config_syncs.c.release == current
    )
    return connection.execute(query).first() is not None


def _sync_servers(
    tx: Tx,
    policies: Policies,
    spec_hashes: Mapping[str, str],
    changes: dict[str, list[dict[str, object]]],
) -> None:
    """Add the servers the store does not know yet (enabled) and record changed spec hashes."""
    wanted = set(policies) | set(spec_hashes)
    query = select(servers.c.alias, servers.c.spec_hash)
    if len(wanted) <= _SCAN_ABOVE:
        query = query.where(servers.c.alias.in_(sorted(wanted)))
    known = {row.alias: row.spec_hash for row in tx.connection.execute(query)}
    missing = [alias for alias in policies if alias not in known] + [
        alias for alias in spec_hashes if alias not in known and alias not in policies
    ]
    if missing:
        rows = [{"alias": alias, "enabled": True, "created_at": tx.at} for alias in missing]
        tx.connection.execute(insert(servers), rows)
    moved = [
        {"b_alias": alias, "spec_hash": spec_hash}
        for alias, spec_hash in spec_hashes.items()
        if known.get(alias) != spec_hash
    ]
    if moved:
        statement = (
            update(servers)
            .where(servers.c.alias == bindparam("b_alias"))
            .values(spec_hash=bindparam("spec_hash"))
        )
        tx.connection.execute(statement, moved)
        for row in moved:
            changes.setdefault(str(row["b_alias"]), []).append(
                {"server": row["b_alias"], "spec_hash": row["spec_hash"]}
            )


def _sync_tools(
    tx: Tx,
    policies: Policies,
    actor: str,
    changes: dict[str, list[dict[str, object]]],
) -> None:
    stored = _stored_rows(tx.connection, policies)
    writer = Writer(tx.connection)
    fresh = _Fresh(writer, tx.at, actor)
    inserts: list[tuple[object, ...]] = []
    updates: dict[tuple[str, ...], list[tuple[object, ...]]] = {}
    for alias, wanted in policies.items():
        rows = stored.get(alias, {})
        found = changes[alias]
        for name, policy in sorted(wanted.items()):
            row = rows.get(name)
            if row is None:
                stored_values, described = fresh.of(SyncedPolicy.of(policy))
                inserts.append((alias, name, *stored_values))
                found.append({"tool": name, "added": True})
                if described is not None:
                    found.append({"tool": name, **described})
                continue
            values = policy_changes(row, SyncedPolicy.of(policy), tx.at, actor)
            if values:
                _queue(writer, updates, alias, name, values)
                found.append({"tool": name, **describe_changes(values)})
        for name in sorted(set(rows) - set(wanted)):
            if needs_disabling(rows[name]):
                gone = {**_GONE, "changed_at": tx.at, "changed_by": actor}
                _queue(writer, updates, alias, name, gone)
                found.append({"tool": name, "enabled": False, "why": "not in the configuration"})
    writer.insert("tool_states", _INSERTED, inserts)
    for keys, rows_of_keys in updates.items():
        writer.update("tool_states", keys, ("alias", "name"), rows_of_keys)


class _Fresh:
    """What a new state row holds for a policy: its columns after ``_INSERTED``'s alias and
    name as the driver binds them, and the changes its ``policy.sync`` event shows (None: the
    policy changes none of the defaults). Computed once per policy but for its action: a new
    row's action is None, so ``policy_changes`` reads an action only as forbidden or not."""

    def __init__(self, writer: Writer, at: datetime, actor: str) -> None:
        self._at, self._actor = at, actor
        self._stored_at = writer.moment(at)
        self._known: dict[SyncedPolicy, tuple[tuple[object, ...], dict[str, object] | None]] = {}

    def of(self, policy: SyncedPolicy) -> tuple[tuple[object, ...], dict[str, object] | None]:
        action = policy.action
        if action is False:
            return self._of(policy)
        stored, described = self._of(policy._replace(action=""))
        if described is not None:
            described = {**described, "action": action}  # "action" is there: an action is set
        return (action, *stored[1:]), described

    def _of(self, policy: SyncedPolicy) -> tuple[tuple[object, ...], dict[str, object] | None]:
        known = self._known.get(policy)
        if known is None:
            values = policy_changes(_new_row(), policy, self._at, self._actor)
            row = {**_NEW_ROW, **values}
            stored = tuple(
                self._stored_at if row.get(column) is self._at else row.get(column)
                for column in _INSERTED[2:]
            )
            known = self._known[policy] = (stored, describe_changes(values) if values else None)
        return known


def _stored_rows(connection: Connection, policies: Policies) -> dict[str, dict[str, Any]]:
    """The stored state rows of the aliases of ``policies``: alias -> name -> row."""
    query = select(*_READ)
    if len(policies) <= _SCAN_ABOVE:
        query = query.where(tool_states.c.alias.in_(sorted(policies)))
    rows: dict[str, dict[str, Any]] = {}
    for row in connection.execute(query):
        if row.alias in policies:
            rows.setdefault(row.alias, {})[row.name] = row
    return rows


def _new_row() -> Any:
    """What a state row holds right after its insert: the columns' defaults (disabled, R9)."""
    return SimpleNamespace(**_NEW_ROW)


def _queue(
    writer: Writer,
    updates: dict[tuple[str, ...], list[tuple[object, ...]]],
    alias: str,
    name: str,
    values: Mapping[str, object],
) -> None:
    """One update, batched with every other that sets the same columns: the columns' values
    as the driver binds them, then the row's alias and name."""
    keys = tuple(sorted(values))
    updates.setdefault(keys, []).append((*(_bound(writer, values[key]) for key in keys), alias, name))


def _bound(writer: Writer, value: object) -> object:
    """A column's value as the driver binds it (the moments of ``UTCDateTime``)."""
    return writer.moment(value) if isinstance(value, datetime) else value
