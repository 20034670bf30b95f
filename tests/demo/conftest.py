"""Connections to demo servers through the official SDK client, over each transport and era."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Literal

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client

from toolpool.demo import demo_environment, serve_demo_http

Era = Literal["legacy", "2026-07-28"]
Transport = Literal["stdio", "http", "sse"]

ERAS: tuple[Era, ...] = ("legacy", "2026-07-28")

# Each request's own bound; a test's fail_after bounds the whole exchange.
READ_TIMEOUT_S = 10.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def client_for(url: str, transport: Literal["http", "sse"], era: Era) -> Client:
    """An SDK client for a demo server that `serve_demo_http` started."""
    server = url if transport == "http" else sse_client(url)
    return Client(server, mode=era, read_timeout_seconds=READ_TIMEOUT_S)


@asynccontextmanager
async def connect_stdio(kind: str, era: Era = "legacy", args: Sequence[str] = ()) -> AsyncIterator[Client]:
    """Spawn `python -m toolpool.demo KIND` with the SDK's stdio client and connect to it."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolpool.demo", kind, *args], env=demo_environment()
    )
    async with Client(params, mode=era, read_timeout_seconds=READ_TIMEOUT_S) as client:
        yield client


@asynccontextmanager
async def connect(
    kind: str, transport: Transport = "stdio", era: Era = "legacy", args: Sequence[str] = ()
) -> AsyncIterator[Client]:
    """One client connected to a fresh demo server over `transport` in `era`."""
    if transport == "stdio":
        async with connect_stdio(kind, era, args) as client:
            yield client
        return
    async with (
        serve_demo_http(kind, transport=transport, args=args) as server,
        client_for(server.url, transport, era) as client,
    ):
        yield client


@pytest.fixture
def demo() -> Callable[..., AbstractAsyncContextManager[Client]]:
    """`async with demo(kind, transport=..., era=..., args=...) as client:` on a fresh server."""
    return connect


@pytest.fixture
def client_of() -> Callable[[str, Literal["http", "sse"], Era], Client]:
    """`client_of(url, transport, era)`: another client for a server `serve_demo_http` runs."""
    return client_for
