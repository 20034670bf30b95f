"""FastMCP's proxy in front of one stdio server, run by bench/.venv-fastmcp's interpreter.

    bench/.venv-fastmcp/bin/python bench/_fastmcp_proxy.py stdio|http SPEC_JSON

``SPEC_JSON`` is ``{"command": ..., "args": [...], "env": {...}}``: the upstream server, which
the proxy starts itself and keeps alive across requests (``StdioTransport(keep_alive=True)``,
FastMCP's default). ``create_proxy`` is FastMCP's documented way to build a proxy; with no
``mode`` the backend speaks whatever era the front connection negotiated.

``http`` binds 127.0.0.1 on a free port itself (no race over the port) and writes
``serving MCP on URL`` on stderr once the socket is bound; uvicorn then serves on it.

FastMCP is imported by name at run time: it lives in its own virtualenv, not in toolpool's,
so neither mypy nor toolpool's interpreter needs it.
"""

from __future__ import annotations

import importlib
import json
import socket
import sys
from typing import Any

import anyio

READY = "serving MCP on "


def _proxy(spec: dict[str, Any]) -> Any:
    transports = importlib.import_module("fastmcp.client.transports")
    server = importlib.import_module("fastmcp.server")
    upstream = transports.StdioTransport(
        command=spec["command"], args=spec["args"], env=spec["env"], keep_alive=True
    )
    return server.create_proxy(upstream, name="bench-fastmcp-proxy")


async def _serve_stdio(proxy: Any) -> None:
    await proxy.run_stdio_async(show_banner=False, log_level="WARNING")


async def _serve_http(proxy: Any) -> None:
    # TCP as the protocol and Nagle off, as uvicorn's own listener and `toolpool serve` have
    # them: otherwise every answer waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    sys.stderr.write(f"{READY}http://127.0.0.1:{port}/mcp\n")
    sys.stderr.flush()
    await proxy.run_http_async(
        show_banner=False,
        host="127.0.0.1",
        port=port,
        path="/mcp",
        log_level="WARNING",
        sockets=[sock],
        uvicorn_config={"access_log": False, "timeout_graceful_shutdown": 2},
    )


def main(argv: list[str]) -> int:
    mode, spec = argv[1], json.loads(argv[2])
    proxy = _proxy(spec)
    try:
        anyio.run(_serve_stdio if mode == "stdio" else _serve_http, proxy)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
