"""Views: the snapshot one model request sees — enabled, allowed by its ticket (R10), and
within its session's release (R15) — built once per change and shared after that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolpool.enablement import Enablement
from toolpool.registry import Registry, Snapshot
from toolpool.tickets import Ticket
from toolpool.vetting import ExposedTool

__all__ = ["ReleaseView", "Views"]

_MAX_CACHED = 256


@dataclass(frozen=True, slots=True)
class ReleaseView:
    """What a release lets a session see: ``alias/name`` -> the approved definition hash."""

    number: int
    tools: Mapping[str, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, number: int, content: Mapping[str, Any]) -> ReleaseView:
        """From a release's content: ``{"tools": {"alias/name": {..., "approved_hash"}}, ...}``."""
        tools: Mapping[str, Mapping[str, Any]] = content.get("tools", {})
        return cls(number, {key: entry.get("approved_hash") for key, entry in tools.items()})

    def admits(self, tool: ExposedTool) -> bool:
        """Whether ``tool`` — as it is now — was enabled, with this definition, in the release."""
        key = f"{tool.alias}/{tool.remote_name}"
        if key not in self.tools:
            return False
        approved = self.tools[key]
        return approved is None or approved == tool.definition_hash


class Views:
    """Snapshots for (ticket, release), rebuilt only when the registry or enablement changed."""

    def __init__(self, registry: Registry, enablement: Enablement) -> None:
        self._registry = registry
        self.enablement = enablement
        self._cache: dict[tuple[Ticket | None, int | None], Snapshot] = {}
        self._key = (-1, -1)
        self._version = 0

    def snapshot(self, ticket: Ticket | None, release: ReleaseView | None = None) -> Snapshot:
        base = self._registry.snapshot()
        key = (base.version, self.enablement.version)
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
        enabled = self.enablement.is_enabled
        return [
            tool
            for tool in base.tools
            if enabled(tool.alias, tool.remote_name)
            and (ticket is None or ticket.allows_action(tool.action))
            and (release is None or release.admits(tool))
        ]
