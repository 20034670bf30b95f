"""The web UI's page models: what each page shows, built from the store as plain values and
rendered by the templates (each server with its tools' rows, the quarantine's side-by-side
diffs, a page of the audit log).

Everything here that came from an upstream server (descriptions, schemas, screening reasons)
stays plain text: the templates escape it (autoescape), nothing here marks it safe.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from toolpool.store import AuditCheck, AuditEvent, Store, ToolState

__all__ = [
    "AuditPage",
    "DiffRow",
    "QuarantinedTool",
    "Section",
    "ServerEntry",
    "ToolRow",
    "ToolsPage",
    "audit_page",
    "last_id",
    "quarantined",
    "side_by_side",
    "tools_page",
]

DIFF_MAX_LINES = 2000  # per side of one section; a schema that long is clipped, not diffed whole
DETAIL_MAX_CHARS = 2000  # of one audit event's detail on the page
_SECTIONS = ("description", "inputSchema", "outputSchema", "annotations")


@dataclass(frozen=True, slots=True)
class ToolRow:
    state: ToolState
    pin: str  # "pinned", "changed", "unpinned", "not imported"

    @property
    def status(self) -> str:
        if not self.state.enabled:
            return "disabled"
        return "enabled" if self.state.server_enabled else "enabled (server disabled)"

    @property
    def forbidden(self) -> bool:
        return self.state.action is None

    @property
    def effect(self) -> str:
        """``forbidden`` for a tool its policy forbids (``action = false``), else read or write."""
        return "forbidden" if self.forbidden else self.state.effect

    @property
    def dropped(self) -> bool:
        """Screening dropped it (R5): admission leaves it out whatever its enabled state."""
        return self.state.verdict == "drop"

    @property
    def needs_write_approval(self) -> bool:
        return self.state.effect == "write" and self.state.write_approved_by is None


@dataclass(frozen=True, slots=True)
class ServerEntry:
    alias: str
    enabled: bool
    configured: bool | None  # None: the UI runs without a pool and cannot tell
    tools: tuple[ToolRow, ...]


@dataclass(frozen=True, slots=True)
class ToolsPage:
    """One page of the servers-and-tools page: ``limit`` tools at most, grouped by server."""

    servers: tuple[ServerEntry, ...]
    next_after: tuple[str, str] | None  # the (alias, tool) the next page starts after; None: the end
    first: bool


def tools_page(
    store: Store, configured: Set[str] | None, after: tuple[str, str] | None, limit: int
) -> ToolsPage:
    """The ``limit`` tools after ``after`` (from the start when None), each under its server.

    An alias without stored tools (disabled, or only in the configuration) is shown on the
    page whose range of aliases holds it, so every alias is on exactly one page."""
    states = store.tools.tool_states(after=after, limit=limit)
    full = len(states) == limit
    low = None if after is None else after[0]
    high = states[-1].alias if full else None
    disabled = set(store.releases.current_release().content["disabled_servers"])
    bare = (disabled | (configured or set())) - set(store.tools.tool_counts())
    aliases = {state.alias for state in states} | {
        alias for alias in bare if (low is None or alias > low) and (high is None or alias <= high)
    }
    by_alias: dict[str, list[ToolRow]] = {}
    for state in states:
        by_alias.setdefault(state.alias, []).append(ToolRow(state, _pin_status(state)))
    entries = tuple(
        ServerEntry(
            alias=alias,
            enabled=alias not in disabled,
            configured=None if configured is None else alias in configured,
            tools=tuple(by_alias.get(alias, ())),
        )
        for alias in sorted(aliases)
    )
    next_after = (states[-1].alias, states[-1].name) if full else None
    return ToolsPage(entries, next_after, after is None)


def _pin_status(state: ToolState) -> str:
    if state.current_hash is None:
        return "not imported"
    if state.approved_hash is None:
        return "unpinned"
    return "pinned" if state.approved_hash == state.current_hash else "changed"


# -- quarantine ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One line of a side-by-side view; None where that side has no line."""

    old: str | None
    new: str | None
    changed: bool


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    rows: tuple[DiffRow, ...]
    changed: bool
    clipped: bool


@dataclass(frozen=True, slots=True)
class QuarantinedTool:
    alias: str
    name: str
    approved_hash: str
    new_hash: str
    approved_by: str | None
    sections: tuple[Section, ...]  # empty when the approved definition is not stored (hash only)
    in_pool: bool  # the running pool holds it quarantined too


def quarantined(store: Store, held: Set[tuple[str, str]]) -> list[QuarantinedTool]:
    """Tools whose latest published definition differs from the approved pin (R7); ``held``
    are those the running pool holds quarantined (read on the pool's loop, not here)."""
    found = []
    for state in store.tools.tool_states():
        if state.approved_hash is None or state.current_hash in (None, state.approved_hash):
            continue
        pin = store.pins.pin_of(state.alias, state.name)
        new = store.tools.published_definition(state.alias, state.name) or {}
        old = None if pin is None else pin.definition
        found.append(
            QuarantinedTool(
                alias=state.alias,
                name=state.name,
                approved_hash=state.approved_hash,
                new_hash=str(state.current_hash),
                approved_by=None if pin is None else pin.approved_by,
                sections=() if old is None else tuple(_section(key, old, new) for key in _SECTIONS),
                in_pool=(state.alias, state.name) in held,
            )
        )
    return found


def _section(key: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Section:
    before, clipped_before = _lines(key, old.get(key))
    after, clipped_after = _lines(key, new.get(key))
    rows = side_by_side(before, after)
    return Section(key, tuple(rows), any(row.changed for row in rows), clipped_before or clipped_after)


def _lines(key: str, value: object) -> tuple[list[str], bool]:
    if key == "description":
        text = "" if value is None else str(value)
    else:
        text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    lines = text.splitlines() or [""]
    return lines[:DIFF_MAX_LINES], len(lines) > DIFF_MAX_LINES


def side_by_side(old: Sequence[str], new: Sequence[str]) -> list[DiffRow]:
    """Both texts line by line, aligned by ``difflib``; a changed line is marked on both sides."""
    rows: list[DiffRow] = []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend(DiffRow(line, line, False) for line in old[i1:i2])
            continue
        left, right = old[i1:i2], new[j1:j2]
        for k in range(max(len(left), len(right))):
            rows.append(
                DiffRow(left[k] if k < len(left) else None, right[k] if k < len(right) else None, True)
            )
    return rows


# -- audit -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditRow:
    event: AuditEvent
    detail: str


@dataclass(frozen=True, slots=True)
class AuditPage:
    rows: tuple[AuditRow, ...]  # newest first
    check: AuditCheck
    older_after_id: int | None  # the after_id of the page before this one, None at the start
    newer_after_id: int | None  # of the page after it, None at the end


def audit_page(store: Store, limit: int, after_id: int | None) -> AuditPage:
    """``limit`` events after ``after_id`` (the latest ones when None), and the chain's check."""
    check = store.audit.verify_audit()
    last = last_id(lambda after: [event.id for event in store.audit.audit_events(1, after)])
    start = max(0, last - limit) if after_id is None else max(0, after_id)
    events = store.audit.audit_events(limit, start)
    rows = tuple(AuditRow(event, _detail(event.detail)) for event in reversed(events))
    newer = events[-1].id if events and events[-1].id < last else None
    return AuditPage(rows, check, max(0, start - limit) if start > 0 else None, newer)


def _detail(detail: Mapping[str, Any]) -> str:
    text = json.dumps(detail, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= DETAIL_MAX_CHARS else text[:DETAIL_MAX_CHARS] + " …"


def last_id(ids_after: Callable[[int], Sequence[int]]) -> int:
    """The largest id (0 when there is none), found with ``ids_after(n)`` — the first id after
    ``n``, or nothing — in a logarithmic number of reads: the store pages forward only."""
    low, high = 0, 1  # low is 0 or an id that exists; no id is above high (once the loop ends)
    while found := ids_after(high):
        low, high = found[0], found[0] * 2
    while low < high:
        middle = (low + high) // 2
        if found := ids_after(middle):
            low = found[0]
        else:
            high = middle
    return low
