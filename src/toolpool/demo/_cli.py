"""`python -m toolpool.demo KIND [options]`: run one demo server in the foreground."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import anyio
from mcp.server.lowlevel import Server

from toolpool.demo._catalog import KINDS, TRANSPORTS, DemoOptions, Kind, Transport
from toolpool.demo._paged import DEFAULT_PAGE_SIZE, DEFAULT_TOOL_COUNT
from toolpool.demo._serving import (
    HTTP_PATH,
    MESSAGES_PATH,
    SSE_PATH,
    Listener,
    TcpAddress,
    adopt_listening_socket,
    serve_http,
    serve_sse,
    serve_stdio,
)

__all__ = ["LINGERING_NOTICE", "main"]

LINGERING_NOTICE = "stdin closed; staying alive until killed"
"""Written to stderr by a kind that outlives stdin EOF, once the stdio loop has ended."""

_DEFAULT_HOST = "127.0.0.1"
_DEFAULT_PORT = 8000

_DESCRIPTION = "Run a demo MCP server (official MCP SDK, both protocol eras) for toolpool's tests and demos."


def _epilog() -> str:
    kinds = "\n".join(
        f"  {kind.name:<9} {kind.summary}" + ("" if len(kind.transports) > 1 else " [stdio only]")
        for kind in KINDS.values()
    )
    return (
        f"kinds (each names itself toolpool-demo-KIND):\n{kinds}\n\n"
        "transports:\n"
        "  stdio     newline-delimited JSON-RPC on stdin/stdout (default)\n"
        f"  http      streamable HTTP at {HTTP_PATH}\n"
        f"  sse       event stream at {SSE_PATH}, client messages posted to {MESSAGES_PATH}\n\n"
        "For http and sse, --fd FD serves on an already-listening socket inherited as descriptor FD\n"
        "(so whoever created it knows the port before the server starts); otherwise the server\n"
        f"binds --host (default {_DEFAULT_HOST}) and --port (default {_DEFAULT_PORT})."
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m toolpool.demo",
        description=_DESCRIPTION,
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "kind", choices=list(KINDS), metavar="KIND", help="which demo server: " + ", ".join(KINDS)
    )
    parser.add_argument("--transport", choices=TRANSPORTS, default="stdio", help="default: stdio")
    parser.add_argument("--host", help=f"http/sse: address to bind (default {_DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=int, metavar="PORT", help=f"http/sse: port to bind (default {_DEFAULT_PORT})"
    )
    parser.add_argument(
        "--fd", type=int, metavar="FD", help="http/sse: serve on this inherited, listening socket"
    )
    parser.add_argument(
        "--tools", type=int, metavar="N", help=f"paged: number of tools (default {DEFAULT_TOOL_COUNT})"
    )
    parser.add_argument(
        "--page-size",
        type=int,
        metavar="M",
        help=f"paged: tools per tools/list page (default {DEFAULT_PAGE_SIZE})",
    )
    return parser


def _options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> DemoOptions:
    if args.kind != "paged" and (args.tools is not None or args.page_size is not None):
        parser.error("--tools and --page-size apply to the paged kind only")
    options = DemoOptions(
        tools=DEFAULT_TOOL_COUNT if args.tools is None else args.tools,
        page_size=DEFAULT_PAGE_SIZE if args.page_size is None else args.page_size,
    )
    if options.tools < 0 or options.page_size < 1:
        parser.error("--tools must be at least 0 and --page-size at least 1")
    return options


def _listener(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Listener | None:
    address_given = args.host is not None or args.port is not None
    if args.transport == "stdio":
        if address_given or args.fd is not None:
            parser.error("--host, --port and --fd apply to the http and sse transports only")
        return None
    if args.fd is None:
        return TcpAddress(args.host or _DEFAULT_HOST, _DEFAULT_PORT if args.port is None else args.port)
    if address_given:
        parser.error("--fd cannot be combined with --host or --port")
    try:
        return adopt_listening_socket(args.fd)
    except (OSError, ValueError) as exc:
        parser.error(f"--fd {args.fd}: {exc}")


async def _serve(kind: Kind, server: Server[Any], transport: Transport, listener: Listener | None) -> None:
    if listener is None:
        await serve_stdio(server)
        if kind.outlives_stdin:
            print(LINGERING_NOTICE, file=sys.stderr, flush=True)
            await anyio.sleep_forever()
    elif transport == "http":
        await serve_http(server, listener)
    else:
        await serve_sse(server, listener)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and serve until the transport ends; bad usage exits 2, Ctrl+C 130."""
    parser = _parser()
    args = parser.parse_args(argv)
    kind = KINDS[args.kind]
    if args.transport not in kind.transports:
        parser.error(f"{kind.name} runs over {', '.join(kind.transports)} only")
    options = _options(parser, args)
    listener = _listener(parser, args)
    try:
        anyio.run(_serve, kind, kind.build(options), args.transport, listener)
    except KeyboardInterrupt:
        # uvicorn re-raises the SIGINT it handled once it has shut down; that is a normal stop.
        return 130
    return 0
