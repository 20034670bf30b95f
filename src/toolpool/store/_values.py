"""The immutable values the store hands out and takes in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal, NamedTuple

from toolpool.store._codec import now
from toolpool.vetting.pins import Pin

__all__ = [
    "USAGE_KEYS",
    "AuditCheck",
    "AuditEntry",
    "AuditEvent",
    "AuditProblem",
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


class ListedState(NamedTuple):
    """What a listing of every tool shows of one tool's state (``toolpool tools``): the part
    of a ``ToolState`` that 100,000 tools can afford, read as plain tuples in one query."""

    enabled: bool
    approved_hash: str | None
    current_hash: str | None  # None: never imported
    verdict: str | None
    reasons: tuple[str, ...]
    write_approved_by: str | None


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
    with every enabled tool (releases made before store schema 0004 lack ``resource`` and
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
    """An audit event to append (``store.calls.record_calls``): as ``store.audit.audit``'s arguments."""

    actor: str
    action: str
    resource: str
    detail: Mapping[str, object]


class SessionTaint(NamedTuple):
    """Taint a session learned (``store.calls.record_calls``): ``data`` is opaque to the store."""

    session_id: str
    data: str
    at: datetime


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One row of the hash-chained audit log; ``detail`` has every secret value redacted.

    ``malformed`` is None for a row as the store writes it. Otherwise it says, in one line,
    what cannot be read (``"detail is not JSON: '{bad'"``): someone changed the row outside
    the store; the fields that could not be read are empty (``at`` is the Unix epoch, ``detail``
    is ``{}``). ``store.audit.verify_audit`` reports such a row as ``malformed``.
    """

    id: int
    at: datetime
    actor: str
    action: str
    resource: str
    detail: Mapping[str, Any]
    prev_hash: str
    hash: str
    malformed: str | None = None


AuditProblem = Literal[
    "edited", "inserted", "deleted", "reordered", "renumbered", "appended", "malformed", "head"
]


@dataclass(frozen=True, slots=True)
class AuditCheck:
    """The verdict of ``store.audit.verify_audit``: the first break found, in id order.

    ``problem`` names its kind and ``first_bad_id`` the row (its id as the table has it now):

    - ``edited``: the row's content no longer gives its hash, or its MAC does not match it (the
      row was changed and re-hashed, or written with another secret key);
    - ``inserted``: a row the chain does not link (its neighbours link to each other, or a
      later row links past it);
    - ``deleted``: a row the chain or the head needs is missing; ``first_bad_id`` is the id the
      first missing row had (rows cut from the end: the first id after the last row left);
    - ``reordered``: the row links to a row that comes after it;
    - ``renumbered``: the row follows the right row but under another id;
    - ``appended``: a row after the chain's last authentic row (after the head, or, with the
      key, after the last row the head's MAC vouches for): written outside the store, or by a
      process without the store's secret key;
    - ``malformed``: the row cannot be read (a bad time, detail that is not a JSON object, a
      value of the wrong type); ``reason`` says which column;
    - ``head``: the ``store_head`` row is missing or malformed, or does not match the chain in
      a way no row explains; ``first_bad_id`` is None.

    ``reason`` is one line for people. ``with_key``: the MACs were checked (the store was opened
    with its secret key); ``keyed_from`` is then the first event they cover (None: no event
    carries a MAC of this key). ``head_hash`` is the hash of the last row as the head records it.
    """

    ok: bool
    checked: int
    first_bad_id: int | None = None
    problem: AuditProblem | None = None
    head_hash: str | None = None
    reason: str | None = None
    keyed_from: int | None = None
    with_key: bool = False

    def describe(self) -> str:
        """One line for people: what was checked and, if broken, where and why."""
        if self.ok:
            return f"audit chain intact: {self.checked} events ({self._coverage()})"
        where = "its head" if self.first_bad_id is None else f"event {self.first_bad_id}"
        why = f"{self.reason}; " if self.reason else ""
        return f"audit chain broken at {where}: {self.problem} ({why}{self.checked} events read)"

    def _coverage(self) -> str:
        if not self.with_key:
            return "hash chain only; MACs not checked: verified without the secret key"
        if self.keyed_from is None:
            return "hash chain only: no event carries a MAC of this secret key"
        return f"keyed from event {self.keyed_from}"


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
    replica: str | None = None
    """The process that made the call (``toolpool serve --replica-id``), where several serve
    one store."""


@dataclass(frozen=True, slots=True)
class CallStats:
    """Calls per (alias, tool): how many, by Envelope code, and latency percentiles."""

    alias: str
    tool: str
    calls: int
    codes: Mapping[str, int]
    p50_ms: float
    p95_ms: float


@dataclass(frozen=True, slots=True)
class UsageEntry:
    """What a model or client was shown, or what a model request spent, for the usage ledger
    (``store.calls.record_calls`` adds it under its key, on the UTC day of ``at``).

    ``lists`` and ``list_tokens``: an alias's tools were listed that many times, costing that
    many estimated prompt tokens (``ExposedTool.list_tokens``); ``model_requests``,
    ``input_tokens`` and ``output_tokens``: what a model's provider reported. Calls are not
    entries: the ledger counts them from their ``CallRecord``s.
    """

    principal: str
    session_id: str
    alias: str
    tool: str
    lists: int = 0
    list_tokens: int = 0
    model_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    at: datetime = field(default_factory=now)


UsageBy = Literal["principal", "session", "alias", "tool", "day"]
# What ``store.usage.totals(by)`` sums under, as the ledger's columns (the CLI's and the UI's
# ``--by`` choices, in this order).
USAGE_KEYS: Final[Mapping[UsageBy, tuple[str, ...]]] = {
    "principal": ("principal",),
    "session": ("session_id",),
    "alias": ("alias",),
    "tool": ("alias", "tool"),
    "day": ("day",),
}


@dataclass(frozen=True, slots=True)
class UsageTotal:
    """The usage ledger summed under one key of ``store.usage.totals(by)``.

    ``key`` names the key's columns: ``{"principal": ...}``, ``{"session_id": ...}``,
    ``{"alias": ...}``, ``{"alias": ..., "tool": ...}`` or ``{"day": "2026-01-31"}`` (UTC).
    ``codes`` counts calls by Envelope code; ``errors`` are the calls whose code is not ``ok``;
    ``wait_ms`` sums the calls' durations.
    """

    key: Mapping[str, str]
    calls: int = 0
    errors: int = 0
    codes: Mapping[str, int] = field(default_factory=dict)
    wait_ms: float = 0.0
    bytes_in: int = 0
    bytes_out: int = 0
    lists: int = 0
    list_tokens: int = 0
    model_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
