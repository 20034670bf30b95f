"""The management plane's store: which servers and tools exist, with what permission,
versioned as releases, audited in a hash chain, with secrets encrypted at rest.

SQLite (a file, WAL mode) by default, PostgreSQL through ``postgresql+psycopg://``; the
tables are created and upgraded by Alembic migrations shipped in this package, on
``Store.open``. Rule R9 (imported tools start disabled; only ``read`` tools are enabled
directly; a ``write`` tool needs an approval with who, when and why) is a CHECK constraint in
the database, not only Python (``toolpool.enablement`` holds the rule's table). Gate 3 of the
call pipeline is ``store.tools.is_enabled`` (one query) or, in a pool and the gateway,
``store.cached.is_enabled``: the same answer from memory, asked again whenever the store
signals a change (SQLite: ``PRAGMA data_version``, never stale; PostgreSQL: ``NOTIFY`` with a
poll fallback, stale by a bounded time).

    key = SecretKey.generate()
    store = Store.open("sqlite:///toolpool.db", key=key)
    store.tools.record_import("demo_alpha", tools, actor="ana")   # stored disabled
    store.tools.enable("demo_alpha", "lookup", actor="ana")       # a read tool: release N+1
    assert store.tools.is_enabled("demo_alpha", "lookup")
    store.close()

A ``Store`` holds one concern per attribute over one database: ``tools``, ``cached``, ``pins``,
``releases``, ``secrets``, ``audit``, ``calls``, ``usage`` (the usage ledger, written with
the call records), ``tokens`` and ``approvals`` (approvals of single calls). On the pool's side of the
store: gate 3's two answers (``ConfigEnablement``, ``StoreEnablement``), pins that take the
configuration's first (``ConfigFirstPins``), and ``open_synced``, which opens a pool's store
with the configuration synced into it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolpool._lazy import lazy_names

if TYPE_CHECKING:
    from toolpool.store._approval_values import APPROVAL_STATES, Approval, ApprovalBinding, ApprovalState
    from toolpool.store._crypto import SecretKey
    from toolpool.store._enablement import ConfigEnablement, StoreEnablement
    from toolpool.store._management import open_synced
    from toolpool.store._pins import ConfigFirstPins
    from toolpool.store._rules import SyncedPolicy
    from toolpool.store._store import Store
    from toolpool.store._sync_diff import SyncPlan
    from toolpool.store._tokens import TokenHolder
    from toolpool.store._usage import LISTING, MODEL, usage_day
    from toolpool.store._values import (
        USAGE_KEYS,
        AuditCheck,
        AuditEntry,
        AuditEvent,
        CallRecord,
        CallStats,
        ImportedTool,
        ListedState,
        Release,
        SessionTaint,
        StoredPin,
        ToolState,
        UsageBy,
        UsageEntry,
        UsageTotal,
    )

# Where each public name lives: the module imported the first time the name is asked for, so that
# a command that only needs the store's values (the CLI's `--help`, `usage --by` choices) does not
# import SQLAlchemy and the configuration's models.
_HOMES: dict[str, tuple[str, ...]] = {
    "toolpool.store._approval_values": (
        "APPROVAL_STATES",
        "Approval",
        "ApprovalBinding",
        "ApprovalState",
    ),
    "toolpool.store._crypto": ("SecretKey",),
    "toolpool.store._enablement": (
        "ConfigEnablement",
        "StoreEnablement",
    ),
    "toolpool.store._management": ("open_synced",),
    "toolpool.store._pins": ("ConfigFirstPins",),
    "toolpool.store._rules": ("SyncedPolicy",),
    "toolpool.store._store": ("Store",),
    "toolpool.store._sync_diff": ("SyncPlan",),
    "toolpool.store._tokens": ("TokenHolder",),
    "toolpool.store._usage": (
        "LISTING",
        "MODEL",
        "usage_day",
    ),
    "toolpool.store._values": (
        "USAGE_KEYS",
        "AuditCheck",
        "AuditEntry",
        "AuditEvent",
        "CallRecord",
        "CallStats",
        "ImportedTool",
        "ListedState",
        "Release",
        "SessionTaint",
        "StoredPin",
        "ToolState",
        "UsageBy",
        "UsageEntry",
        "UsageTotal",
    ),
}

__all__ = [
    "APPROVAL_STATES",
    "LISTING",
    "MODEL",
    "USAGE_KEYS",
    "Approval",
    "ApprovalBinding",
    "ApprovalState",
    "AuditCheck",
    "AuditEntry",
    "AuditEvent",
    "CallRecord",
    "CallStats",
    "ConfigEnablement",
    "ConfigFirstPins",
    "ImportedTool",
    "ListedState",
    "Release",
    "SecretKey",
    "SessionTaint",
    "Store",
    "StoreEnablement",
    "StoredPin",
    "SyncPlan",
    "SyncedPolicy",
    "TokenHolder",
    "ToolState",
    "UsageBy",
    "UsageEntry",
    "UsageTotal",
    "open_synced",
    "usage_day",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
