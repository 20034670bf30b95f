"""Real parts for the SSRF guard's tests: a stub resolver, listeners on 127.0.0.1, MCP servers.

The servers run in this process under uvicorn, each on a port the test picks, and answer only
for the made-up host name ``HOST`` (the SDK's DNS-rebinding check refuses any other ``Host``),
so a session that reaches them proves both the pinned address and the ``Host`` header.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import mcp_types
import uvicorn
from anyio import TypedAttributeProvider
from anyio.abc import SocketAttribute, SocketStream
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from toolpool.upstream import IPAddress

HOST = "tools.example.test"
ELSEWHERE = "elsewhere.example.test"
LOOPBACK: IPAddress = ipaddress.ip_address("127.0.0.1")
TOOLS = ("echo",)

Transport = Literal["http", "sse"]


def port_of(provider: TypedAttributeProvider, attribute: int = SocketAttribute.local_port) -> int:
    """A socket's port, through anyio's typed attributes."""
    return provider.extra(attribute)  # noqa: S610 -- anyio's extra(), not Django's QuerySet.extra


class StubResolver:
    """Answers from a table; ``answers[name]`` may list one answer per lookup (the last repeats)."""

    def __init__(self, answers: Mapping[str, Sequence[Sequence[IPAddress]]]) -> None:
        self._answers = answers
        self.calls: list[tuple[str, int]] = []

    async def resolve(self, host: str, port: int) -> Sequence[IPAddress]:
        self.calls.append((host, port))
        answers = self._answers.get(host)
        if answers is None:
            raise OSError(f"stub resolver: unknown host {host!r}")
        return answers[min(len(self.calls_for(host)) - 1, len(answers) - 1)]

    def calls_for(self, host: str) -> list[tuple[str, int]]:
        return [call for call in self.calls if call[0] == host]


def resolving(address: IPAddress | str = LOOPBACK) -> StubResolver:
    """``HOST`` resolves to ``address``, ``ELSEWHERE`` to 127.0.0.1."""
    return StubResolver({HOST: [[ipaddress.ip_address(address)]], ELSEWHERE: [[LOOPBACK]]})


@dataclass
class Witness:
    """A TCP listener on 127.0.0.1 that records every connection it accepts, in order."""

    port: int
    _accepted: anyio.abc.ObjectReceiveStream[int]
    seen: list[int] = field(default_factory=list)

    async def assert_untouched(self) -> None:
        """Connect once ourselves: accept order is FIFO, so ours must be the first it saw."""
        async with await anyio.connect_tcp("127.0.0.1", self.port) as probe:
            mine = port_of(probe)
            first = await self._accepted.receive()
        assert first == mine, "the listener accepted a connection before the probe"


@asynccontextmanager
async def witness() -> AsyncIterator[Witness]:
    send, receive = anyio.create_memory_object_stream[int](100)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")

    async def record(stream: SocketStream) -> None:
        async with stream:
            send.send_nowait(port_of(stream, SocketAttribute.remote_port))

    async with listener, send, receive, anyio.create_task_group() as tasks:
        tasks.start_soon(listener.serve, record)
        yield Witness(port_of(listener), receive)
        tasks.cancel_scope.cancel()


@dataclass
class Served:
    """One running server: its port, and the Host header and client port of every request."""

    port: int
    hosts: list[str] = field(default_factory=list)
    peers: set[int] = field(default_factory=set)

    def url(self, transport: Transport, host: str = HOST) -> str:
        return f"http://{host}:{self.port}" + ("/mcp" if transport == "http" else "/sse")


@asynccontextmanager
async def serve(app: ASGIApp, *, lifespan: Literal["on", "off"] = "off") -> AsyncIterator[Served]:
    """Run ``app`` under uvicorn on a free 127.0.0.1 port, recording each HTTP request."""
    served = Served(0)

    async def recording(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode(): v.decode() for k, v in scope["headers"]}
            served.hosts.append(headers.get("host", ""))
            served.peers.add(scope["client"][1])
        await app(scope, receive, send)

    config = uvicorn.Config(recording, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        served.port = listener.getsockname()[1]
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.serve, [listener])
            try:
                yield served
            finally:
                server.should_exit = True


def mcp_app(transport: Transport) -> tuple[ASGIApp, Literal["on", "off"]]:
    """An MCP server with one ``echo`` tool that accepts only ``Host: tools.example.test:*``."""

    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(
            tools=[mcp_types.Tool(name=name, input_schema={"type": "object"}) for name in TOOLS]
        )

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="pinned")])

    server = Server("pinned", on_list_tools=list_tools, on_call_tool=call_tool)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{HOST}:*"],
        allowed_origins=[f"http://{HOST}:*"],
    )
    if transport == "http":
        return server.streamable_http_app(transport_security=security), "on"
    sse = SseServerTransport("/messages/", security_settings=security)
    routes = [
        Route("/sse", endpoint=_EventStream(server, sse), methods=["GET"]),
        Mount("/messages/", app=sse.handle_post_message),
    ]
    return Starlette(routes=routes), "on"


@dataclass(frozen=True)
class _EventStream:
    # A class, not a function: Starlette wraps a plain function endpoint as request -> response.
    server: Server[Any]
    transport: SseServerTransport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with self.transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
            await self.server.run(read_stream, write_stream, self.server.create_initialization_options())


@asynccontextmanager
async def mcp_server(transport: Transport) -> AsyncIterator[Served]:
    app, lifespan = mcp_app(transport)
    async with serve(app, lifespan=lifespan) as served:
        yield served


def redirecting(location: str) -> ASGIApp:
    """Answers every request with a 307 to ``location``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"location", location.encode()), (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 307, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    return app


def announcing(endpoint: str) -> ASGIApp:
    """An SSE server that announces ``endpoint`` as its message endpoint, then waits.

    ``{port}`` in ``endpoint`` becomes the server's own port.
    """

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        data = endpoint.replace("{port}", str(scope["server"][1]))
        body = b"event: endpoint\r\ndata: " + data.encode() + b"\r\n\r\n"
        await send({"type": "http.response.body", "body": body, "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass

    return app
