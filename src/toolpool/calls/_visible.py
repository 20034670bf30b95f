"""Visibility: the snapshot one model request sees — enabled (gate 3), allowed by its ticket
(R10), and within its session's release (R15) — built once per change and shared after that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolpool.enablement import Enablement
from toolpool.registry import Registry, Snapshot
from toolpool.tickets import Permission, Ticket
from toolpool.vetting import ExposedTool

__all__ = ["Enablement", "ReleaseEntry", "ReleaseView", "Visibility"]

_MAX_CACHED = 256


@dataclass(frozen=True, slots=True)
class ReleaseEntry:
    """One tool as a release enabled it: its permission and its approved definition hash."""

    permission: Permission
    approved_hash: str | None


@dataclass(frozen=True, slots=True)
class ReleaseView:
    """What a release lets a session see and do (R15): ``alias/name`` -> the tool's
    permission and approved definition hash, and ``alias`` -> the spec hash of the server
    the release approved."""

    number: int
    tools: Mapping[str, ReleaseEntry] = field(default_factory=dict)
    servers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, number: int, content: Mapping[str, Any]) -> ReleaseView:
        """From a release's content (``toolpool.store.Release``). A release written before
        spec hashes were recorded approves no server: its sessions can call nothing."""
        tools: Mapping[str, Mapping[str, Any]] = content.get("tools", {})
        entries = {}
        for key, entry in tools.items():
            if entry.get("action") is None or entry.get("effect") not in ("read", "write"):
                continue  # not a callable entry; the store never writes one
            each_call = entry.get("approval") == "each_call"
            permission = Permission(
                entry["action"], entry["effect"], entry.get("resource"), "each_call" if each_call else "none"
            )
            entries[key] = ReleaseEntry(permission, entry.get("approved_hash"))
        return cls(number, entries, dict(content.get("servers", {})))

    def entry(self, tool: ExposedTool) -> ReleaseEntry | None:
        """``tool``'s entry if — as it is now — it was enabled, with this definition, in the
        release; else None."""
        entry = self.tools.get(f"{tool.alias}/{tool.remote_name}")
        if entry is None or (entry.approved_hash is not None and entry.approved_hash != tool.definition_hash):
            return None
        return entry

    def admits(self, tool: ExposedTool) -> bool:
        return self.entry(tool) is not None

    def approves_server(self, alias: str, spec_hash: str) -> bool:
        """Whether the release approved the server that ``spec_hash`` reaches under ``alias``."""
        return self.servers.get(alias) == spec_hash


class Visibility:
    """Snapshots for (ticket, release), rebuilt only when the registry or enablement changed."""

    def __init__(
        self, registry: Registry, enablement: Enablement, spec_hashes: Mapping[str, str] | None = None
    ) -> None:
        self._registry = registry
        self._enablement = enablement
        self._spec_hashes = dict(spec_hashes or {})
        self._cache: dict[tuple[Ticket | None, int | None], Snapshot] = {}
        self._key = (-1, -1)
        self._version = 0

    def snapshot(self, ticket: Ticket | None, release: ReleaseView | None = None) -> Snapshot:
        base = self._registry.snapshot()
        key = (base.version, self._enablement.version)
        if key != self._key:
            self._cache.clear()
            self._key = key
            self._version += 1
        cache_key = (ticket, None if release is None else release.number)
        view = self._cache.get(cache_key)
        if view is None:
            view = Snapshot.of(self._version, self._visible(base, ticket, release))
            if len(self._cache) >= _MAX_CACHED:
                self._cache.clear()
            self._cache[cache_key] = view
        return view

    def _visible(
        self, base: Snapshot, ticket: Ticket | None, release: ReleaseView | None
    ) -> list[ExposedTool]:
        enabled = self._enablement.is_enabled
        visible = []
        for tool in base.tools:
            action = tool.action
            if release is not None:
                entry = self.granted(tool, release)
                if entry is None:
                    continue
                action = entry.permission.action
            if enabled(tool.alias, tool.remote_name) and (ticket is None or ticket.shows_action(action)):
                visible.append(tool)
        return visible

    def granted(self, tool: ExposedTool, release: ReleaseView) -> ReleaseEntry | None:
        """``tool``'s entry in ``release``, if the release admits it — its definition and
        the server this pool reaches under its alias — as it is now."""
        entry = release.entry(tool)
        if entry is None or not release.approves_server(tool.alias, self._spec_hashes.get(tool.alias, "")):
            return None
        return entry
