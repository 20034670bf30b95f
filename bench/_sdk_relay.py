"""The floor of any Python MCP hop on this SDK: a bare relay, for bench/gateway.py's ``relay`` arm.

    python bench/_sdk_relay.py stdio|http ERA SPEC_JSON

The SDK's low-level ``Server`` whose ``tools/list`` and ``tools/call`` forward each request,
as it is, to one upstream held open by the SDK's ``Client`` (``SPEC_JSON``: command, args and
env of a stdio server; ``ERA``: the upstream leg's protocol era). No policy, no checks, no
records: whatever a real gateway does on top of this is its own cost, and what this costs
over the direct call is the price of the extra process and of parsing and re-serialising each
message with the SDK. ``http`` binds 127.0.0.1 on a free port and writes
``serving MCP on URL`` on stderr once bound.
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

import anyio
import mcp_types
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

READY = "serving MCP on "
_WAIT_S = 30.0


def _relay(upstream: ClientSession) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return await upstream.list_tools(params=params)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        return await upstream.call_tool(params.name, params.arguments, read_timeout_seconds=_WAIT_S)

    return Server(
        "bench-sdk-relay",
        get_tool_input_schema=lambda _name: None,  # no tools/list walk per modern HTTP call
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(mode: str, era: str, spec: dict[str, Any]) -> None:
    params = StdioServerParameters(command=spec["command"], args=spec["args"], env=spec["env"])
    async with Client(params, mode=era, cache=None, read_timeout_seconds=_WAIT_S) as client:
        server = _relay(client.session)
        if mode == "stdio":
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            return
        # TCP as the protocol and Nagle off, as uvicorn's own listener and `toolpool serve` have
        # them: otherwise every answer waits ~40 ms for the client's delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sys.stderr.write(f"{READY}http://127.0.0.1:{sock.getsockname()[1]}/mcp\n")
        sys.stderr.flush()
        app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, timeout_graceful_shutdown=2, lifespan="on"
        )
        await uvicorn.Server(config).serve(sockets=[sock])


def main(argv: list[str]) -> int:
    try:
        anyio.run(_serve, argv[1], argv[2], json.loads(argv[3]))
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
