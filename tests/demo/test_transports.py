"""alpha keeps its contract over stdio, streamable HTTP and SSE, in both protocol eras."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, ListToolsResult, TextContent
from mcp_types import SERVER_INFO_META_KEY
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from toolpool.demo import demo_environment, serve_demo_http

Connect = Callable[..., AbstractAsyncContextManager[Client]]
ClientOf = Callable[[str, Literal["http", "sse"], str], Client]

ERAS = ("legacy", "2026-07-28")

ALPHA_SCHEMAS = {
    "lookup": {
        "type": "object",
        "properties": {"key": {"type": "string"}},
        "required": ["key"],
        "additionalProperties": False,
    },
    "echo": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    },
    "process_info": {"type": "object", "properties": {}, "additionalProperties": False},
}


def only_text(result: CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, TextContent)
    return block.text


def served_name(client: Client, listing: ListToolsResult) -> str:
    # A 2026-07-28 client that adopts the version without a discover round trip learns the
    # server's name only from the stamp on each result.
    if client.server_info is not None:
        return client.server_info.name
    assert listing.meta is not None
    return str(listing.meta[SERVER_INFO_META_KEY]["name"])


async def assert_alpha_contract(client: Client, era: str) -> None:
    if era == "legacy":
        assert client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
    else:
        assert client.protocol_version == era
    listing = await client.list_tools(cache_mode="bypass")
    assert listing.next_cursor is None
    assert {tool.name: tool.input_schema for tool in listing.tools} == ALPHA_SCHEMAS
    assert served_name(client, listing) == "toolpool-demo-alpha"
    for key, value in (("k1", "v1"), ("k2", "v2"), ("k3", "v3")):
        found = await client.call_tool("lookup", {"key": key})
        assert not found.is_error
        assert only_text(found) == f"alpha:{value}"
    missing = await client.call_tool("lookup", {"key": "k4"})
    assert missing.is_error
    assert only_text(missing) == "no such key"
    spoken = "  two  spaces, ünïcode and a\nnewline "
    assert only_text(await client.call_tool("echo", {"text": spoken})) == spoken


@pytest.mark.anyio
@pytest.mark.parametrize("era", ERAS)
async def test_alpha_keeps_its_contract_over_stdio(era: str, demo: Connect) -> None:
    with anyio.fail_after(30):
        async with demo("alpha", era=era) as client:
            await assert_alpha_contract(client, era)


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_one_alpha_http_server_serves_both_eras(
    transport: Literal["http", "sse"], client_of: ClientOf
) -> None:
    with anyio.fail_after(30):
        async with serve_demo_http("alpha", transport=transport) as server:
            assert server.url.endswith("/mcp" if transport == "http" else "/sse")
            for era in ERAS:
                async with client_of(server.url, transport, era) as client:
                    await assert_alpha_contract(client, era)


@pytest.mark.anyio
async def test_serve_demo_http_gives_the_server_only_the_demo_environment(client_of: ClientOf) -> None:
    with anyio.fail_after(30):
        async with serve_demo_http("alpha") as server, client_of(server.url, "http", "legacy") as client:
            info = json.loads(only_text(await client.call_tool("process_info", {})))
    # Python adds LC_CTYPE itself when started without locale variables (PEP 538).
    env = {name: value for name, value in info["env"].items() if name != "LC_CTYPE"}
    assert env == demo_environment()
    assert info["pgid"] == os.getpgid(0)


def child_pids() -> set[int]:
    tasks = Path("/proc/self/task")
    return {int(pid) for task in tasks.iterdir() for pid in (task / "children").read_text().split()}


@pytest.mark.anyio
async def test_serve_demo_http_reaps_its_server_and_frees_the_port(client_of: ClientOf) -> None:
    before = child_pids()
    with anyio.fail_after(30):
        async with serve_demo_http("faulty", transport="sse") as server:
            port = urlsplit(server.url).port
            assert port is not None
            async with client_of(server.url, "sse", "legacy") as client:
                assert only_text(await client.call_tool("ok", {})) == "fine"
            assert child_pids() - before
    assert child_pids() == before
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


@pytest.mark.anyio
async def test_serve_demo_http_refuses_the_stdio_only_kind() -> None:
    with pytest.raises(ValueError, match="stubborn"):
        async with serve_demo_http("stubborn"):
            pass
