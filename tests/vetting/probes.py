"""Screening a probe: a hand-written definition, with one string property unless the test gives its own."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from toolpool.upstream import PublishedTool
from toolpool.vetting.screener import RuleScreener

__all__ = ["dropped"]

_SCREENER = RuleScreener()


def dropped(
    name: str, description: str, properties: dict[str, Any] | None = None, peers: Collection[str] = ()
) -> bool:
    """Whether the rule screener drops the definition (``peers``: names of other servers' tools)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties or {"entry": {"type": "string"}}}
    tool = PublishedTool(name=name, description=description, input_schema=schema)
    return _SCREENER.screen_tool(tool, frozenset(peers)).drop
