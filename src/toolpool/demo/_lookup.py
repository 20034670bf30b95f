"""The `lookup` tool that alpha and beta both publish under the same name (and schema)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp import types

from toolpool.demo._toolbox import DemoTool, error_text, text

__all__ = ["KEY_SCHEMA", "TEXT_SCHEMA", "lookup_tool"]

KEY_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"key": {"type": "string"}},
    "required": ["key"],
    "additionalProperties": False,
}

TEXT_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}


def lookup_tool(kind: str, values: Mapping[str, str]) -> DemoTool:
    """`lookup` answering `<kind>:<value>` for the known keys and an error result for the rest."""

    async def lookup(arguments: Mapping[str, Any]) -> types.CallToolResult:
        value = values.get(arguments["key"])
        return error_text("no such key") if value is None else text(f"{kind}:{value}")

    return DemoTool("lookup", f"Look up the {kind} value stored under a key.", KEY_SCHEMA, lookup)
