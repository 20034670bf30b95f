"""The HTTP service as one process: MCP, the admin API and the UI on one port, planes apart.

Each test runs ``toolpool serve --http`` as a real process (with the demo upstreams) and talks
to it with real clients: httpx for the admin API and the UI, the official MCP client for MCP.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.serve.gateway_helpers import (
    INITIALIZE,
    MCP_HEADERS,
    TEST_S,
    WAIT_S,
    copy_config,
    http_client,
    new_token,
    served,
    text_of,
    toolpool,
    toolpool_async,
)
from tests.serve.test_gateway_cli import one_line_error

ADMIN = "admin-token-for-the-service-tests"
WITH_ADMIN = {"TOOLPOOL_ADMIN_TOKEN": ADMIN}

pytestmark = pytest.mark.anyio


def _base(url: str) -> str:
    return url.removesuffix("/mcp")


def _client(token: str | None = None, **headers: str) -> httpx.AsyncClient:
    sent = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.AsyncClient(headers=sent | headers, timeout=httpx.Timeout(WAIT_S, read=None))


async def _events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON events of a server-sent event stream, in order (comments skipped)."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            yield json.loads("\n".join(data))
            data = []


async def _until(events: AsyncIterator[dict[str, Any]], wanted: Mapping[str, Any]) -> dict[str, Any]:
    """The first event whose keys include ``wanted``'s items; bounded."""
    with anyio.fail_after(WAIT_S):
        async for event in events:
            if all(event.get(key) == value for key, value in wanted.items()):
                return event
    raise AssertionError(f"the stream ended before an event with {dict(wanted)}")


async def test_with_an_admin_token_mcp_the_admin_api_and_the_ui_share_one_port_with_planes_apart(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    client_token = new_token(config, "ana", "--allow", "demo.*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0", env=WITH_ADMIN) as gateway:
            base = _base(gateway.url)
            assert any(f"admin API on {base}/admin, web UI on {base}/ui" in line for line in gateway.stderr)
            async with _client() as anonymous, _client(ADMIN) as admin, _client(client_token) as holder:
                assert (await anonymous.get(f"{base}/admin/health")).status_code == 200
                assert (await anonymous.get(f"{base}/admin/servers")).status_code == 401
                assert (await anonymous.get(f"{base}/admin/openapi.json")).status_code == 401
                servers = await admin.get(f"{base}/admin/servers")
                assert servers.status_code == 200
                assert "demo_alpha" in {server["alias"] for server in servers.json()}
                login = await anonymous.get(f"{base}/ui/login")
                assert login.status_code == 200 and "Admin token" in login.text
                # an MCP client's token opens nothing on the management plane, and back
                assert (await holder.get(f"{base}/admin/servers")).status_code == 401
                assert (await admin.post(gateway.url, json={})).status_code == 401
                assert (await anonymous.get(f"{base}/elsewhere")).status_code == 401
                assert (await holder.get(f"{base}/elsewhere")).status_code == 404
            async with http_client(gateway.url, client_token, "legacy") as mcp:
                result = await mcp.call_tool("mcp__demo_alpha__echo", {"text": "hi"})
                assert not result.is_error and "hi" in text_of(result)


async def test_without_an_admin_token_the_service_is_mcp_only(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    client_token = new_token(config, "ana", "--allow", "demo.*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as gateway:
            base = _base(gateway.url)
            assert any("no admin token" in line and "MCP only" in line for line in gateway.stderr)
            async with _client(ADMIN) as admin, _client(client_token) as holder:
                for path in ("/admin/health", "/admin/servers", "/ui/login"):
                    assert (await admin.get(base + path)).status_code == 401, path
                    assert (await holder.get(base + path)).status_code == 404, path


async def test_the_admin_api_and_the_ui_refuse_a_request_that_names_another_host(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0", env=WITH_ADMIN) as gateway:
            base = _base(gateway.url)
            port = base.rsplit(":", 1)[1]
            async with _client(ADMIN, Host=f"rebound.example:{port}") as rebound:
                for path in ("/admin/health", "/admin/servers", "/ui/login", "/ui/static/ui.css"):
                    answer = await rebound.get(base + path)
                    assert answer.status_code == 421, path
                    assert "Admin token" not in answer.text
            async with _client(ADMIN, Host=f"localhost:{port}") as local:
                assert (await local.get(f"{base}/admin/health")).status_code == 200


async def test_a_host_name_is_matched_in_any_case_on_every_path_and_another_host_is_refused_in_any_case(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    client_token = new_token(config, "ana", "--allow", "demo.*")
    answers: dict[tuple[str, str], int] = {}
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0", env=WITH_ADMIN) as gateway:
            base = _base(gateway.url)
            port = base.rsplit(":", 1)[1]
            for host in ("LOCALHOST", "LocalHost", "EVIL.example", "Evil.Example"):
                origin = {"Origin": f"HTTP://{host}:{port}"}
                async with _client(client_token, Host=f"{host}:{port}") as holder:
                    mcp = await holder.post(gateway.url, json=INITIALIZE, headers=MCP_HEADERS)
                    answers[(host, "/mcp")] = mcp.status_code
                    with_origin = await holder.post(
                        gateway.url, json=INITIALIZE, headers=MCP_HEADERS | origin
                    )
                    answers[(host, "/mcp with Origin")] = with_origin.status_code
                async with _client(ADMIN, Host=f"{host}:{port}") as admin:
                    for path in ("/admin/servers", "/ui/login"):
                        answers[(host, path)] = (await admin.get(base + path)).status_code
    assert answers == {
        **{(host, path): 200 for host in ("LOCALHOST", "LocalHost") for path in ("/mcp", "/mcp with Origin")},
        **{
            (host, path): 200
            for host in ("LOCALHOST", "LocalHost")
            for path in ("/admin/servers", "/ui/login")
        },
        **{
            (host, path): 421
            for host in ("EVIL.example", "Evil.Example")
            for path in ("/mcp", "/mcp with Origin")
        },
        **{
            (host, path): 421
            for host in ("EVIL.example", "Evil.Example")
            for path in ("/admin/servers", "/ui/login")
        },
    }


async def test_the_event_stream_shows_calls_made_over_mcp_and_changes_made_by_another_process(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    client_token = new_token(config, "ana", "--allow", "demo.*")
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0", env=WITH_ADMIN) as gateway,
            _client(ADMIN) as admin,
            admin.stream("GET", f"{_base(gateway.url)}/admin/events") as stream,
        ):
            assert stream.status_code == 200
            events = _events(stream)
            async with http_client(gateway.url, client_token, "2026-07-28") as mcp:
                await mcp.call_tool("mcp__demo_alpha__echo", {"text": "seen live"})
            call = await _until(events, {"kind": "call", "alias": "demo_alpha", "tool": "echo"})
            assert call["principal"] == "token:ana"
            assert call["code"] == "ok"
            assert (await toolpool_async(config, "disable", "demo_alpha", "lookup")).returncode == 0
            change = await _until(events, {"kind": "audit", "action": "tool.disable"})
            assert change["resource"] == "demo_alpha/lookup"
            assert change["actor"].startswith("cli:")


def test_an_admin_token_file_with_a_short_token_is_refused_in_one_line(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    short = tmp_path / "admin-token"
    short.write_text("tiny\n")
    result = toolpool(config, "serve", "--http", "127.0.0.1:0", "--admin-token-file", str(short))
    one_line_error(result, "shorter than 16 characters")
    missing = toolpool(config, "serve", "--http", "127.0.0.1:0", "--admin-token-file", str(tmp_path / "no"))
    one_line_error(missing, "cannot read the admin token file")


def test_an_admin_token_file_is_refused_for_stdio(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    token = tmp_path / "admin-token"
    token.write_text(ADMIN)
    result = toolpool(config, "serve", "--stdio", "--admin-token-file", str(token))
    one_line_error(result, "served over --http only")
