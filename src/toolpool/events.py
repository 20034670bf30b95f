"""Pool events: what happened to connections and tools, for logs, audits and tests.

Event kinds:
    mcp.connected        an alias was admitted; detail: tools, dropped, forbidden, era
    mcp.refused          an admission rule refused a connection; detail: reasons
    mcp.disconnected     an alias was disconnected on request
    mcp.connection_lost  a connection died (process exit, transport closed, timeout);
                         its tools were revoked; detail: reason
    mcp.desc_rejected    the screener dropped a tool (R5); detail: tool, score, reasons (a drop
                         by the screen judge has reasons starting ``screen judge <model>:``)
    mcp.screen_judge_failed  the screen judge gave no verdict on a tool the rules passed
                         (timeout, model error, malformed reply, spent budget); the rules'
                         verdict stood; detail: tool, judge, reason (local text)
    mcp.principal_connected  an alias with per-principal secrets opened a principal's own
                         connection; detail: principal
    mcp.principal_closed     one principal's connection closed; detail: principal, reason
                         (``idle``, ``lost``, ``replaced``: its secrets changed)
    mcp.principal_refused    a principal's connection published other tools than were
                         admitted and was closed; detail: principal, reason
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["EventSink", "PoolEvent"]


@dataclass(frozen=True, slots=True)
class PoolEvent:
    """One thing that happened; ``detail`` holds local, model-safe text only."""

    kind: str
    alias: str
    detail: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


EventSink = Callable[[PoolEvent], None]
