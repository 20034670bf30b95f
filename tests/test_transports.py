"""All three transports (stdio, streamable HTTP, SSE), both protocol eras, and era memory."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
import uvicorn
from mcp.server.lowlevel import Server
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.helpers import (
    ALPHA_TOOLS,
    READ,
    demo_server,
    scripted_server,
    server_table,
    tool_def,
    write_config,
    write_spec,
)
from toolpool import Pool, Ticket
from toolpool.demo import serve_demo_http

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ANY = Ticket.allow("*")
ERAS = ["legacy", "2026-07-28"]


def _remote(alias: str, transport: str, url: str, **fields: Any) -> str:
    return server_table(
        alias, ALPHA_TOOLS, transport=transport, url=url, allow_private_network=True, **fields
    )


@pytest.mark.parametrize("era", ERAS)
async def test_a_stdio_server_works_in_each_era(tmp_path: Path, era: str) -> None:
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS, era=era))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            envelope = await pool.call(pool.snapshot(), "mcp__demo_alpha__lookup", {"key": "k2"}, ticket=ANY)
        assert pool.era("demo_alpha").mode == era  # type: ignore[union-attr]
    assert (envelope.code, envelope.text) == ("ok", "alpha:v2")


@pytest.mark.parametrize("transport", ["http", "sse"])
@pytest.mark.parametrize("era", ERAS)
async def test_a_remote_server_works_over_each_transport_in_each_era(
    tmp_path: Path, transport: str, era: str
) -> None:
    with anyio.fail_after(TIMEOUT):
        async with serve_demo_http("alpha", transport=transport) as server:  # type: ignore[arg-type]
            config = write_config(tmp_path, _remote("remote", transport, server.url, era=era))
            async with Pool(config) as pool:
                await pool.connect("remote")
                snapshot = pool.snapshot()
                lookup = await pool.call(snapshot, "mcp__remote__lookup", {"key": "k3"}, ticket=ANY)
                missing = await pool.call(snapshot, "mcp__remote__lookup", {"key": "nope"}, ticket=ANY)
                assert pool.era("remote").mode == era  # type: ignore[union-attr]
    assert (lookup.code, lookup.text) == ("ok", "alpha:v3")
    assert missing.code == "mcp_remote_error"


async def test_auto_era_finds_the_modern_era_on_a_modern_http_server(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT):
        async with serve_demo_http("alpha") as server:
            config = write_config(tmp_path, _remote("remote", "http", server.url, era="auto"))
            async with Pool(config) as pool:
                await pool.connect("remote")
                assert pool.era("remote").mode == "2026-07-28"  # type: ignore[union-attr]


async def test_auto_era_is_remembered_so_the_second_connect_does_not_probe_again(tmp_path: Path) -> None:
    # A legacy server that ignores unknown methods makes the SDK's discover probe wait ~10 s.
    log = tmp_path / "requests.jsonl"
    spec = write_spec(tmp_path, pages=[[tool_def("get")]], log=str(log))
    config = write_config(
        tmp_path,
        scripted_server("old", spec, {"get": {"action": "get", **READ}}, era="auto", connect_timeout_s=30),
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("old")
            first = [json.loads(line)["method"] for line in log.read_text().splitlines()]
            await pool.disconnect("old")
            log.unlink()
            with anyio.fail_after(5):  # far less than the probe's wait
                await pool.connect("old")
            second = [json.loads(line)["method"] for line in log.read_text().splitlines()]
        assert pool.era("old").mode == "legacy"  # type: ignore[union-attr]
    assert first[:2] == ["server/discover", "initialize"]
    assert "server/discover" not in second and second[0] == "initialize"


@asynccontextmanager
async def _header_recording_server(seen: list[dict[str, str]]) -> AsyncIterator[str]:
    """A real streamable HTTP MCP server on a port the test picks, recording request headers."""

    async def list_tools(ctx: Any, params: Any) -> mcp_types.ListToolsResult:
        tools = [mcp_types.Tool(name=name, input_schema={"type": "object"}) for name in ALPHA_TOOLS]
        return mcp_types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="seen")])

    inner = Server("headers", on_list_tools=list_tools, on_call_tool=call_tool).streamable_http_app()

    def recording(app: ASGIApp) -> ASGIApp:
        async def record(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
            await app(scope, receive, send)

        return record

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(recording(inner), log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(server.serve, [listener])
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True
    listener.close()


async def test_http_headers_come_from_the_config_with_secrets_resolved_at_connect(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    with anyio.fail_after(TIMEOUT):
        async with _header_recording_server(seen) as url:
            headers = {"Authorization": {"secret": "api_token"}, "X-Team": "tools"}
            config = write_config(tmp_path, _remote("remote", "http", url, era="legacy", headers=headers))
            async with Pool(config, secrets={"api_token": "Bearer s3cr3t"}) as pool:
                await pool.connect("remote")
                envelope = await pool.call(pool.snapshot(), "mcp__remote__echo", {"text": "x"}, ticket=ANY)
    assert envelope.text == "seen"
    assert seen and all(
        h.get("authorization") == "Bearer s3cr3t" and h.get("x-team") == "tools" for h in seen
    )


@pytest.mark.parametrize("transport", ["http", "sse"])
@pytest.mark.parametrize("era", ERAS)
async def test_a_remote_server_dying_mid_call_is_connection_lost_and_revoked(
    tmp_path: Path, transport: str, era: str
) -> None:
    tools = {name: {"action": f"faulty.{name}", **READ} for name in ("ok", "fail", "hang", "crash")}
    with anyio.fail_after(TIMEOUT):
        async with serve_demo_http("faulty", transport=transport) as server:  # type: ignore[arg-type]
            table = server_table(
                "remote",
                tools,
                transport=transport,
                url=server.url,
                era=era,
                allow_private_network=True,
                call_timeout_s=10,
            )
            async with Pool(write_config(tmp_path, table)) as pool:
                await pool.connect("remote")
                envelope = await pool.call(pool.snapshot(), "mcp__remote__crash", {}, ticket=ANY)
                assert pool.snapshot().tools == ()
    assert envelope.code == "mcp_connection_lost"
