"""Demo MCP servers for toolpool's tests, benchmarks and demos, built on the official MCP SDK.

Run one with `python -m toolpool.demo KIND [--transport stdio|http|sse] ...` (see `--help`).
Kinds: alpha, beta, paged, faulty, poisoned, slow, and stubborn (stdio only). Each names itself
`toolpool-demo-KIND`; tool names and results are a contract other code depends on.

Servers only: nothing here imports the pool. `toolpool demo`, the scripted walkthrough that
runs a pool against these servers, is a client of the pool and lives in `toolpool.cli`.

From Python, `serve_demo_http` runs one over streamable HTTP or SSE on a free local port:

    async with serve_demo_http("alpha", transport="sse") as server:
        server.url, server.pid
        ...
"""

from toolpool.demo._catalog import KINDS as _KINDS
from toolpool.demo._launch import DemoEndpoint, demo_command, demo_environment, serve_demo_http

__all__ = [
    "DEMO_KINDS",
    "STDIO_ONLY_KINDS",
    "DemoEndpoint",
    "demo_command",
    "demo_environment",
    "serve_demo_http",
]

DEMO_KINDS: tuple[str, ...] = tuple(_KINDS)
STDIO_ONLY_KINDS: tuple[str, ...] = tuple(
    name for name, kind in _KINDS.items() if kind.transports == ("stdio",)
)
