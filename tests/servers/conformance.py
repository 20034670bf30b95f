"""The upstream for the official MCP conformance suite's tool scenarios, run behind toolpool.

Run as ``python conformance.py``: a demo server (the SDK's low-level ``Server``, both protocol
eras, stdio) built like toolpool's own demo kinds, publishing exactly the tools whose names and
answers ``@modelcontextprotocol/conformance`` 0.1.16 asks a server for:

    test_simple_text           no arguments -> the suite's fixed text
    test_error_handling        no arguments -> ``isError: true`` with a message
    json_schema_2020_12_tool   listed only: an inputSchema with ``$schema``, ``$defs`` and a
                               local ``$ref`` that a gateway must pass on unchanged (SEP-1613)

Nothing else (no images, logging, progress, sampling): those scenarios do not fit a gateway
(README.md, "Conformance").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
from mcp import types

from toolpool.demo._serving import serve_stdio
from toolpool.demo._toolbox import DemoTool, build_server, error_text, text

SIMPLE_TEXT = "This is a simple text response for testing."
ERROR_TEXT = "This tool intentionally returns an error for testing"

NO_ARGUMENTS: Mapping[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
SCHEMA_2020_12: Mapping[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


async def _simple_text(arguments: Mapping[str, Any]) -> types.CallToolResult:
    return text(SIMPLE_TEXT)


async def _error_handling(arguments: Mapping[str, Any]) -> types.CallToolResult:
    return error_text(ERROR_TEXT)


async def _schema_2020_12(arguments: Mapping[str, Any]) -> types.CallToolResult:
    return text(f"received {sorted(arguments)}")


TOOLS = (
    DemoTool("test_simple_text", "Return a fixed text.", NO_ARGUMENTS, _simple_text),
    DemoTool("test_error_handling", "Always fail with an error result.", NO_ARGUMENTS, _error_handling),
    DemoTool(
        "json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", SCHEMA_2020_12, _schema_2020_12
    ),
)


if __name__ == "__main__":
    anyio.run(serve_stdio, build_server("conformance", TOOLS))
