"""The management plane's store: which servers and tools exist, with what permission,
versioned as releases, audited in a hash chain, with secrets encrypted at rest.

SQLite (a file, WAL mode) by default, PostgreSQL through ``postgresql+psycopg://``; the
tables are created and upgraded by Alembic migrations shipped in this package, on
``Store.open``. Rule R9 (imported tools start disabled; only ``read`` tools are enabled
directly; a ``write`` tool needs an approval with who, when and why) is a CHECK constraint in
the database, not only Python. Gate 3 of the call pipeline is ``Store.is_enabled``.

    key = SecretKey.generate()
    store = Store.open("sqlite:///toolpool.db", key=key)
    store.record_import("demo_alpha", tools, actor="ana")   # stored disabled
    store.enable("demo_alpha", "lookup", actor="ana")       # a read tool: release N+1
    assert store.is_enabled("demo_alpha", "lookup")
    store.close()
"""

from toolpool.store._crypto import SecretKey
from toolpool.store._store import Store
from toolpool.store._tokens import TokenHolder
from toolpool.store._values import (
    AuditCheck,
    AuditEntry,
    AuditEvent,
    CallRecord,
    CallStats,
    ImportedTool,
    Release,
    SessionTaint,
    StoredPin,
    ToolState,
)

__all__ = [
    "AuditCheck",
    "AuditEntry",
    "AuditEvent",
    "CallRecord",
    "CallStats",
    "ImportedTool",
    "Release",
    "SecretKey",
    "SessionTaint",
    "Store",
    "StoredPin",
    "TokenHolder",
    "ToolState",
]
