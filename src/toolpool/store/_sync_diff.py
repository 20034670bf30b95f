"""A configuration sync that writes only the aliases it changes, and the listing it leaves.

``toolpool tools`` syncs the configuration before it lists. After any release since its last
sync (another process's enable or disable, an import) the store is no longer known to hold
the configuration, and at 20,000 servers x 5 tools a full sync re-read and re-wrote checks of
100,000 rows through the ORM. Most such syncs change nothing: a sync leaves another process's
enable or disable alone (the configuration's ``enabled`` acts only when it changes).

A plan reads, without the write lock, the current release and then, in one plain query, each
tool's row as a sync reads it and as a listing shows it; it keeps the aliases that a sync
would change, by the sync's own rules (``policy_changes``, ``needs_disabling``, a missing
row or server). Applying it is one write transaction: when the release is still the plan's,
only those aliases are synced (``sync_policies`` on them: the same rows, release and audit
events as a sync of all, since the others change nothing); when another release came in
between, everything is synced (correctness first). The release is a sound witness because
every change a sync reads is made with a release (``_sync``); the writes made without one
(a server row an import or an era adds) can only make a planned alias need nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Connection, select

from toolpool.store._changes import release_number
from toolpool.store._codec import now
from toolpool.store._database import Database, Tx
from toolpool.store._rows import LISTED_COLUMNS, listed_states, plain_rows, with_published
from toolpool.store._rules import SyncedPolicy, needs_disabling, policy_changes
from toolpool.store._sync import (
    Policies,
    check_config_hash,
    check_sync,
    is_synced,
    remember_sync,
    sync_policies,
)
from toolpool.store._tables import servers, tool_states
from toolpool.store._values import ListedState

__all__ = ["SyncPlan", "apply_plan", "plan_sync", "sync_all"]

States = Mapping[tuple[str, str], ListedState]


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What a sync of ``policies`` (from the configuration text ``config_hash``) would do, read
    at release ``release`` without the write lock: ``aliases`` are those it would change (in
    the policies' order) and ``states`` what a listing showed then. ``synced``: the store held
    this configuration's sync already, and there is nothing to write."""

    policies: Policies
    config_hash: str
    release: int
    synced: bool
    aliases: tuple[str, ...]
    states: States


class _Stored(NamedTuple):
    """A row of ``_COLUMNS``: what a listing shows (``LISTED_COLUMNS``), then what a sync reads
    besides, under the names the sync's rules read them by."""

    alias: str
    name: str
    enabled: Any
    approved_hash: str | None
    current_hash: str | None
    verdict: str | None
    reasons: str | None
    write_approved_by: str | None
    action: str | None
    effect: str
    resource: str | None
    approval: str
    config_enabled: Any
    write_approved_at: Any
    write_approved_reason: str | None


_COLUMNS = (
    *LISTED_COLUMNS,
    tool_states.c.action,
    tool_states.c.effect,
    tool_states.c.resource,
    tool_states.c.approval,
    tool_states.c.config_enabled,
    tool_states.c.write_approved_at,
    tool_states.c.write_approved_reason,
)
_LISTED = len(LISTED_COLUMNS)
# A sync of more aliases than this reads first what it would change (one plain query over the
# whole table, which a sync of so many scans anyway) and writes only that; a smaller one goes
# straight to the write (its rows are read by alias).
PLAN_ABOVE = 200


def plan_sync(connection: Connection, policies: Policies, config_hash: str) -> SyncPlan:
    """Read what a sync of ``policies`` would change, and the listing (one read transaction)."""
    # The release first: a change committed after it makes the plan's release stale, whatever
    # the rows below saw (a read transaction is not a snapshot on every database).
    release = release_number(connection)
    if is_synced(connection, config_hash):
        states = listed_states(plain_rows(connection, with_published(select(*LISTED_COLUMNS))))
        return SyncPlan(policies, config_hash, release, True, (), states)
    rows = plain_rows(connection, with_published(select(*_COLUMNS)))
    states = listed_states(row[:_LISTED] for row in rows)
    known = set(connection.scalars(select(servers.c.alias)))
    differing = _differing(rows, policies, known)
    aliases = tuple(alias for alias in policies if alias in differing)
    return SyncPlan(policies, config_hash, release, False, aliases, states)


def apply_plan(tx: Tx, plan: SyncPlan, actor: str) -> States:
    """Carry ``plan`` out in ``tx``: sync its aliases, or everything when a release was written
    since the plan was read; remember its configuration hash; the listing as ``tx`` leaves it."""
    if plan.synced:
        return plan.states
    stale = release_number(tx.connection) != plan.release
    if stale:
        changed = sync_policies(tx, plan.policies, {}, actor)
    elif plan.aliases:
        changed = sync_policies(tx, {alias: plan.policies[alias] for alias in plan.aliases}, {}, actor)
    else:
        changed = None
    remember_sync(tx, plan.config_hash)
    if not stale and changed is None:
        return plan.states
    return listed_states(plain_rows(tx.connection, with_published(select(*LISTED_COLUMNS))))


def sync_all(
    database: Database,
    policies: Policies,
    spec_hashes: Mapping[str, str],
    actor: str,
    config_hash: str | None,
) -> int | None:
    """``Tools.sync_policies``: one transaction, one release for what changed (or None).

    Above ``PLAN_ABOVE`` aliases (a pool's start at 20,000 servers, where mostly nothing
    changed) what would change is read first without the write lock; nothing, and no hash to
    remember: no write at all; else only those aliases (``_sync_changed``).
    """
    if config_hash is not None:
        check_config_hash(config_hash)
    planned = None
    if len(policies) > PLAN_ABOVE:
        check_sync(policies, spec_hashes)
        with database.read(snapshot=True) as connection:
            planned = changed_aliases(connection, policies, spec_hashes)
        if not planned[1] and config_hash is None:
            return None
    with database.write() as tx:
        if planned is None:
            release = sync_policies(tx, policies, spec_hashes, actor)
        else:
            release = _sync_changed(tx, policies, spec_hashes, actor, planned)
        if config_hash is not None:
            remember_sync(tx, config_hash)
        return release


def changed_aliases(
    connection: Connection, policies: Policies, spec_hashes: Mapping[str, str]
) -> tuple[int, tuple[str, ...]]:
    """The current release, and the aliases a sync of ``policies`` and ``spec_hashes`` would
    change (policies' order, then the spec hashes'), read without the write lock."""
    release = release_number(connection)  # first: see ``plan_sync``
    rows = plain_rows(connection, with_published(select(*_COLUMNS)))
    known = {
        alias: spec_hash
        for alias, spec_hash in connection.execute(select(servers.c.alias, servers.c.spec_hash))
    }
    differing = _differing(rows, policies, set(known))
    differing.update(alias for alias, spec_hash in spec_hashes.items() if known.get(alias) != spec_hash)
    order = [*policies, *(alias for alias in spec_hashes if alias not in policies)]
    return release, tuple(alias for alias in order if alias in differing)


def _sync_changed(
    tx: Tx,
    policies: Policies,
    spec_hashes: Mapping[str, str],
    actor: str,
    planned: tuple[int, tuple[str, ...]],
) -> int | None:
    """``sync_policies`` of only the ``planned`` aliases when the release is still the one they
    were read at (the same rows, release and audit events: the others change nothing), of
    everything otherwise; the release written, or None."""
    release, aliases = planned
    if release_number(tx.connection) != release:
        return sync_policies(tx, policies, spec_hashes, actor)
    if not aliases:
        return None
    chosen = set(aliases)
    return sync_policies(
        tx,
        {alias: tools for alias, tools in policies.items() if alias in chosen},
        {alias: spec_hash for alias, spec_hash in spec_hashes.items() if alias in chosen},
        actor,
    )


def _differing(rows: Sequence[Any], policies: Policies, known: set[str]) -> set[str]:
    """The aliases of ``policies`` whose rows a sync would change."""
    at, new = now(), tuple.__new__
    differing = {alias for alias in policies if alias not in known}  # a server to add
    matched = dict.fromkeys(policies, 0)
    for plain in rows:
        row: Any = new(_Stored, plain)
        wanted = policies.get(row.alias)
        if wanted is None or row.alias in differing:
            continue
        policy = wanted.get(row.name)
        if policy is None:
            if needs_disabling(row):
                differing.add(row.alias)
            continue
        matched[row.alias] += 1
        if policy_changes(row, SyncedPolicy.of(policy), at, "config"):
            differing.add(row.alias)
    # A tool of the configuration without a row: the sync inserts it.
    differing.update(alias for alias, wanted in policies.items() if matched[alias] != len(wanted))
    return differing
