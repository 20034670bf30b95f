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
from toolpool.store._database import Tx
from toolpool.store._rows import LISTED_COLUMNS, listed_states, plain_rows, with_published
from toolpool.store._rules import SyncedPolicy, needs_disabling, policy_changes
from toolpool.store._sync import Policies, is_synced, remember_sync, sync_policies
from toolpool.store._tables import servers, tool_states
from toolpool.store._values import ListedState

__all__ = ["SyncPlan", "apply_plan", "plan_sync"]

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
