"""The immutable values the store hands out and takes in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple

from toolpool.store._codec import now
from toolpool.vetting.pins import Pin

__all__ = [
    "AuditCheck",
    "AuditEntry",
    "AuditEvent",
    "CallRecord",
    "CallStats",
    "ImportedTool",
    "Release",
    "SessionTaint",
    "StoredPin",
    "ToolState",
]


@dataclass(frozen=True, slots=True)
class ImportedTool:
    """One published tool as ``toolpool import`` found it, after vetting and screening."""

    name: str
    definition: Mapping[str, Any]
    definition_hash: str
    verdict: Literal["pass", "drop"]
    score: float
    reasons: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class ToolState:
    """What the management plane says about one (alias, tool).

    ``current_hash``, ``verdict``, ``score``, ``first_seen`` and ``last_seen`` describe the
    latest import and are None for a tool that was never imported.
    """

    alias: str
    name: str
    action: str | None  # None: forbidden, or not (yet) in the configuration
    effect: Literal["read", "write"]
    enabled: bool
    server_enabled: bool
    approved_hash: str | None
    current_hash: str | None
    verdict: str | None
    score: float | None
    reasons: tuple[str, ...]
    write_approved_by: str | None
    write_approved_at: datetime | None
    write_approved_reason: str | None
    first_seen: datetime | None
    last_seen: datetime | None

    @property
    def callable(self) -> bool:
        """Gate 3's answer: the tool and its server are enabled."""
        return self.enabled and self.server_enabled


@dataclass(frozen=True, slots=True)
class StoredPin(Pin):
    """A pin as the store keeps it: the approved hash and definition, and who approved them."""

    approved_by: str | None = None
    approved_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Release:
    """A numbered, immutable version of the management state (R15).

    ``content`` is ``{"tools": {"alias/name": {"action", "effect", "resource",
    "approved_hash"}, ...}, "disabled_servers": [alias, ...], "servers": {alias: spec_hash}}``
    with every enabled tool (releases made before store schema 0003 lack ``resource`` and
    ``servers``); ``content_hash`` is the
    ``sha256:`` of its canonical JSON. ``change`` names what made it, as the audit event
    that goes with it: ``"<action> <resource>"`` (``"tool.enable demo_alpha/lookup"``).
    """

    number: int
    created_at: datetime
    actor: str
    change: str
    content: Mapping[str, Any]
    content_hash: str

    def includes(self, alias: str, name: str) -> bool:
        """Whether this release exposes ``alias/name``: enabled, on a server it did not disable."""
        tools: Mapping[str, Any] = self.content["tools"]
        return f"{alias}/{name}" in tools and alias not in self.content["disabled_servers"]


class AuditEntry(NamedTuple):
    """An audit event to append (``Store.record_calls``): as ``Store.audit``'s arguments."""

    actor: str
    action: str
    resource: str
    detail: Mapping[str, object]


class SessionTaint(NamedTuple):
    """Taint a session learned (``Store.record_calls``): ``data`` is opaque to the store."""

    session_id: str
    data: str
    at: datetime


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One row of the hash-chained audit log; ``detail`` has every secret value redacted."""

    id: int
    at: datetime
    actor: str
    action: str
    resource: str
    detail: Mapping[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class AuditCheck:
    """The verdict of ``Store.verify_audit``.

    ``problem`` names the first break found, in id order: ``"edited"`` (a row's content no
    longer matches its hash), ``"inserted"`` (a row that the chain does not link), ``"deleted"``
    (a row the chain or its head needs is missing). ``first_bad_id`` is that row's id — for a
    deletion, the id of the first missing row. ``head_hash`` is the hash of the chain's last row
    as the head records it: keep a copy elsewhere to detect a rewrite of the whole chain.
    """

    ok: bool
    checked: int
    first_bad_id: int | None = None
    problem: Literal["edited", "inserted", "deleted"] | None = None
    head_hash: str | None = None

    def describe(self) -> str:
        """One line for people: what was checked and, if broken, where."""
        if self.ok:
            return f"audit chain intact: {self.checked} events"
        return f"audit chain broken at event {self.first_bad_id}: {self.problem} ({self.checked} events read)"


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call through the pipeline, whatever its outcome (gate 10)."""

    session_id: str | None
    principal: str | None
    alias: str
    tool: str
    code: str
    duration_ms: float
    bytes_in: int
    bytes_out: int
    snapshot_version: int | None = None
    release: int | None = None
    at: datetime = field(default_factory=now)


@dataclass(frozen=True, slots=True)
class CallStats:
    """Calls per (alias, tool): how many, by Envelope code, and latency percentiles."""

    alias: str
    tool: str
    calls: int
    codes: Mapping[str, int]
    p50_ms: float
    p95_ms: float
