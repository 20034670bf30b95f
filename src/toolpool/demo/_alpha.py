"""alpha: `lookup`, `echo` and `process_info`, the well-behaved reference server."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

from toolpool.demo._lookup import TEXT_SCHEMA, lookup_tool
from toolpool.demo._toolbox import DemoTool, build_server, text

__all__ = ["build_alpha"]

_VALUES: Mapping[str, str] = {"k1": "v1", "k2": "v2", "k3": "v3"}

_NO_ARGUMENTS: Mapping[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


async def _echo(arguments: Mapping[str, Any]) -> types.CallToolResult:
    return text(arguments["text"])


async def _process_info(arguments: Mapping[str, Any]) -> types.CallToolResult:
    info = {"env": dict(os.environ), "cwd": os.getcwd(), "pid": os.getpid(), "pgid": os.getpgid(0)}
    return text(json.dumps(info, sort_keys=True))


def build_alpha() -> Server[Any]:
    return build_server(
        "alpha",
        (
            lookup_tool("alpha", _VALUES),
            DemoTool("echo", "Return the given text unchanged.", TEXT_SCHEMA, _echo),
            DemoTool(
                "process_info",
                "Describe this server process: environment, working directory, pid and process group.",
                _NO_ARGUMENTS,
                _process_info,
            ),
        ),
    )
