"""beta: its own `lookup` (same name as alpha's) and `write_note`, a tool with an effect."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

from toolpool.demo._lookup import lookup_tool
from toolpool.demo._toolbox import DemoTool, build_server, text

__all__ = ["build_beta"]

_VALUES: Mapping[str, str] = {"k1": "b1", "k2": "b2"}

_NOTE_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}


def build_beta() -> Server[Any]:
    notes: list[str] = []
    numbers = itertools.count(1)

    async def write_note(arguments: Mapping[str, Any]) -> types.CallToolResult:
        notes.append(arguments["text"])
        return text(f"note-{next(numbers)}")

    return build_server(
        "beta",
        (
            lookup_tool("beta", _VALUES),
            DemoTool("write_note", "Store a note in this server's memory.", _NOTE_SCHEMA, write_note),
        ),
    )
