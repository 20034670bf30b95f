"""slow: `sleep`, a call that takes a bounded while and says how many calls were in flight.

Concurrency caps are checked against it: a cap holds if the server never saw more calls at
once than the cap allows. The count is the server's own, so it also holds across processes
that share one Redis but each start their own server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server

from toolpool.demo._toolbox import DemoTool, build_server, error_text, text

__all__ = ["MAX_SLEEP_MS", "build_slow"]

MAX_SLEEP_MS = 30_000
"""The longest `sleep` answers; a demo call must never hang a test."""

_SLEEP_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": MAX_SLEEP_MS}},
    "required": ["ms"],
    "additionalProperties": False,
}


def build_slow() -> Server[Any]:
    in_flight = 0
    peak = 0

    async def sleep(arguments: Mapping[str, Any]) -> types.CallToolResult:
        nonlocal in_flight, peak
        ms = arguments["ms"]
        if not 0 <= ms <= MAX_SLEEP_MS:
            return error_text(f"ms must be between 0 and {MAX_SLEEP_MS}")
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            await anyio.sleep(ms / 1000)
            return text(json.dumps({"in_flight": in_flight, "peak": peak}))
        finally:
            in_flight -= 1

    return build_server(
        "slow",
        (
            DemoTool(
                "sleep",
                "Wait the given milliseconds (at most 30000), then report the calls in flight.",
                _SLEEP_SCHEMA,
                sleep,
            ),
        ),
    )
