"""What a pool tells the world: each ``PoolEvent`` goes to the caller's sink and, with a store,
into the audit log (as actor ``pool``), with every secret value redacted first.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from toolpool.calls._recording import Recorder
from toolpool.events import EventSink, PoolEvent
from toolpool.redaction import Redactor
from toolpool.vetting import Admission

__all__ = ["EventOutlet"]


class EventOutlet:
    """Emits pool events; ``recorder`` (None without a store) audits them."""

    def __init__(self, sink: EventSink | None, redactor: Redactor, recorder: Recorder | None = None) -> None:
        self._sink = sink
        self._redactor = redactor
        self.recorder = recorder

    def emit(self, kind: str, alias: str, detail: Mapping[str, object] | None = None) -> None:
        event = PoolEvent(kind, alias, MappingProxyType(dict(detail or {})))
        if self._sink is not None:
            self._sink(event)
        if self.recorder is not None:
            self.recorder.audit("pool", kind, alias, self._redactor.redact_value(dict(event.detail)))

    def notify(self, kind: str, alias: str, detail: Mapping[str, object] | None = None) -> None:
        """An event for the caller's sink only: for what the store audited itself, in the
        transaction that did it (approval requests and their use)."""
        if self._sink is not None:
            self._sink(PoolEvent(kind, alias, MappingProxyType(dict(detail or {}))))

    def admitted(self, alias: str, admission: Admission, era: str) -> None:
        """The events of one admitted connection: drops (R5), redactions, quarantines (R7),
        then ``mcp.connected``."""
        for name, verdict in admission.dropped:
            self.emit(
                "mcp.desc_rejected", alias, {"tool": name, "score": verdict.score, "reasons": verdict.reasons}
            )
        for name, secret_names in admission.redacted.items():
            self.emit("mcp.secret_redacted", alias, {"tool": name, "secrets": secret_names})
        for name, kinds in admission.quarantined:
            self.emit("mcp.tool_changed", alias, {"tool": name, "changes": kinds})
        detail: dict[str, object] = {
            "tools": tuple(tool.name for tool in admission.exposed),
            "dropped": tuple(name for name, _ in admission.dropped),
            "quarantined": tuple(name for name, _ in admission.quarantined),
            "forbidden": admission.forbidden,
            "era": era,
        }
        self.emit("mcp.connected", alias, detail)
