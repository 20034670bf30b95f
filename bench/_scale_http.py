"""The scale bench over real HTTP on 127.0.0.1: ``toolpool serve --http`` with an admin token.

Times the admin API's tools listing (first page, a page deep in the listing, the servers),
the web UI's tools page, and measures the service's RSS per 100 idle MCP sessions.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from _procs import Server, started
from _scale_setup import Timed

__all__ = ["ADMIN_TOKEN", "admin_timings", "idle_session_rss", "serving"]

ADMIN_TOKEN = "scale-bench-admin-token"  # noqa: S105  (a scratch store's; never a real one)
_READY = "serving MCP on "
_WAIT_S = 300.0  # one listing of 100,000 tools before the fixes took minutes
# The service reads a 13 MB configuration and syncs it before it serves: minutes on a busy machine.
_START_S = 900.0


@asynccontextmanager
async def serving(config: Path, env: Mapping[str, str]) -> AsyncIterator[Server]:
    command = [sys.executable, "-m", "toolpool", "serve", "--http", "127.0.0.1:0", "--config", str(config)]
    with_token = {**env, "TOOLPOOL_ADMIN_TOKEN": ADMIN_TOKEN}
    async with started(command, env=with_token, cwd=config.parent, ready=_READY, start_s=_START_S) as server:
        server.url = server.url.strip().split()[0].removesuffix("/mcp")
        yield server


def _cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed(client: httpx.Client, pid: int, path: str, **params: str) -> tuple[Timed, httpx.Response]:
    cpu = _cpu_of(pid)
    start = time.perf_counter()
    response = client.get(path, params=params)
    wall = time.perf_counter() - start
    response.raise_for_status()
    return Timed(wall, _cpu_of(pid) - cpu, f"{len(response.content) // 1024} KiB"), response


def admin_timings(server: Server, deep_alias: str) -> dict[str, Timed]:
    """The listing's first page, the page after it, a page that starts at ``deep_alias``,
    the servers, and the UI's first and a deep tools page."""
    found: dict[str, Timed] = {}
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=_WAIT_S) as client:
        found["admin /tools, first page"], first = _timed(client, server.pid, "/admin/tools")
        cursor = first.headers.get("x-next-cursor")
        if cursor is not None:
            found["admin /tools, next page"], _ = _timed(client, server.pid, "/admin/tools", cursor=cursor)
        deep = _cursor(deep_alias, "tool_000")
        found["admin /tools, deep page"], _ = _timed(client, server.pid, "/admin/tools", cursor=deep)
        found["admin /servers (all)"], _ = _timed(client, server.pid, "/admin/servers")
    with httpx.Client(base_url=server.url, timeout=_WAIT_S) as browser:
        login = browser.post("/ui/login", data={"token": ADMIN_TOKEN, "name": "bench"})
        if login.status_code != 303:  # a login redirects to the tools page
            raise RuntimeError(f"UI login failed: {login.status_code}")
        found["UI tools page, first"], _ = _timed(browser, server.pid, "/ui/")
        found["UI tools page, deep"], _ = _timed(
            browser, server.pid, "/ui/", cursor=_cursor(deep_alias, "tool_000")
        )
    return found


def _cursor(alias: str, name: str) -> str:
    # A position in the listing (toolpool.serve._cursor); a client would take it from a page.
    return f"{alias}:{name}"


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def idle_session_rss(server: Server, token: str, sessions: int) -> Timed:
    """Open ``sessions`` MCP sessions (legacy era: ``initialize``, then nothing) and return the
    service's RSS growth per 100 of them (in ``note``; the times are the opening's)."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    before = _rss_kib(server.pid)
    cpu = _cpu_of(server.pid)
    start = time.perf_counter()
    opened = 0
    with httpx.Client(base_url=server.url, headers=headers, timeout=_WAIT_S) as client:
        for _ in range(sessions):
            response = client.post("/mcp", json=body)
            response.raise_for_status()
            opened += "mcp-session-id" in response.headers
    wall = time.perf_counter() - start
    grown = (_rss_kib(server.pid) - before) / 1024
    note = f"{grown * 100 / max(sessions, 1):.1f} MiB per 100 sessions ({opened} opened)"
    return Timed(wall, _cpu_of(server.pid) - cpu, note)
