"""Pins (R7): an approved tool's definition hash, and what to do when a server changes it.

Every exposed tool's canonical definition (name, description, both schemas, annotations) is
hashed. When a tool is pinned and a connect finds a different hash, the tool is quarantined:
not exposed, with an event ``mcp.tool_changed`` that says what kind of change it was, until
someone approves the new definition. Permission never follows the change (R8): effect and
action come from the local policy only, whatever the new annotations claim.

Pins come from a ``Pins`` store: the configuration (``pin = "sha256:..."`` on a tool table)
and, for tools without one, the first definition this pool admitted (trust on first use). The
management plane's store plugs in behind the same protocol.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from toolpool.upstream import PublishedTool
from toolpool.vetting.screening import Screener

__all__ = [
    "ANNOTATIONS",
    "INSTRUCTIONS_OR_URLS",
    "SCHEMA",
    "WORDING",
    "MemoryPins",
    "Pin",
    "Pins",
    "classify_change",
]

WORDING = "wording"
INSTRUCTIONS_OR_URLS = "instructions_or_urls"
SCHEMA = "schema"
ANNOTATIONS = "annotations"

_URL = re.compile(r"https?://[^\s\"'<>)\]]+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Pin:
    """An approved definition: always its hash, and the definition itself when known."""

    hash: str
    definition: Mapping[str, Any] | None = None


class Pins(Protocol):
    """Where approved definitions live."""

    def pin_of(self, alias: str, remote_name: str) -> Pin | None: ...

    def pins_of(self, alias: str) -> Mapping[str, Pin]:
        """Every pin of ``alias``'s tools by remote name, read at once (vetting a whole server)."""
        ...

    def approve(self, alias: str, remote_name: str, tool: PublishedTool) -> None: ...

    def trust_first(self, alias: str, tools: Sequence[PublishedTool]) -> None:
        """Pin each of ``tools`` (by its remote name) that has no pin yet, all at once."""
        ...


class MemoryPins:
    """Pins from the configuration, plus trust on first use for the pool's lifetime."""

    def __init__(self, configured: Mapping[tuple[str, str], str] | None = None) -> None:
        self._pins: dict[tuple[str, str], Pin] = {
            key: Pin(value) for key, value in (configured or {}).items()
        }

    def pin_of(self, alias: str, remote_name: str) -> Pin | None:
        return self._pins.get((alias, remote_name))

    def pins_of(self, alias: str) -> Mapping[str, Pin]:
        return {name: pin for (owner, name), pin in self._pins.items() if owner == alias}

    def approve(self, alias: str, remote_name: str, tool: PublishedTool) -> None:
        """Pin ``tool``'s current definition (approve a change, or trust it first)."""
        self._pins[(alias, remote_name)] = Pin(tool.definition_hash(), tool.definition())

    def trust_first(self, alias: str, tools: Sequence[PublishedTool]) -> None:
        for tool in tools:
            if (alias, tool.name) not in self._pins:
                self.approve(alias, tool.name, tool)


def classify_change(old: Mapping[str, Any] | None, new: PublishedTool, screener: Screener) -> tuple[str, ...]:
    """What kind of change turned ``old`` into ``new``: a sorted tuple of the kinds above.

    Without the old definition (only its hash was pinned) every part that could have
    changed is reported, with instruction-like content judged on the new text alone.
    """
    current = new.definition()
    if old is None:
        kinds = {SCHEMA, ANNOTATIONS, WORDING}
        if screener.screen_tool(new).score > 0 or _links(current):
            kinds.add(INSTRUCTIONS_OR_URLS)
        return tuple(sorted(kinds))
    kinds = set()
    if old.get("inputSchema") != current["inputSchema"] or old.get("outputSchema") != current["outputSchema"]:
        kinds.add(SCHEMA)
    if (old.get("annotations") or {}) != (current["annotations"] or {}):
        kinds.add(ANNOTATIONS)
    if old.get("description") != current["description"]:
        kinds.add(WORDING)
    if _links(current) - _links(old) or _more_instruction_like(old, new, screener):
        kinds.add(INSTRUCTIONS_OR_URLS)
    return tuple(sorted(kinds))


def _more_instruction_like(old: Mapping[str, Any], new: PublishedTool, screener: Screener) -> bool:
    previous = PublishedTool(
        name=new.name,
        description=str(old.get("description") or ""),
        input_schema=old.get("inputSchema") or {},
        output_schema=old.get("outputSchema"),
        annotations=old.get("annotations") or {},
    )
    return screener.screen_tool(new).score > screener.screen_tool(previous).score


def _links(definition: Mapping[str, Any]) -> set[str]:
    return {match.casefold() for match in _URL.findall(_strings(definition))}


def _strings(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return " ".join(f"{key} {_strings(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return " ".join(_strings(item) for item in value)
    return ""
