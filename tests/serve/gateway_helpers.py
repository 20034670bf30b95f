"""Running ``toolpool serve`` as a real process and speaking to it with the official MCP client.

Every process started here is stopped and reaped when its context exits, whatever the test
did. Every wait is bounded (the client contexts by the test, around the whole); a gateway on
the whole example starts five demo servers, which takes seconds on a small machine, hence the
generous bounds (a test that needs fewer names them: ``copy_config(folder, servers)``).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
import httpx2
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.helpers import is_running

EXAMPLE = Path(__file__).parents[2] / "examples" / "toolpool.toml"
ERAS = ["legacy", "2026-07-28"]
START_S = 120  # up to five demo servers start with the gateway (Python start-up, handshake, listing)
WAIT_S = 60  # any other wait: a call, a notification, a CLI command
STOP_S = 30  # closing: uvicorn's graceful window, then every upstream child is reaped
TEST_S = START_S + 3 * WAIT_S  # a whole test: a gateway's start and a few waits
# A legacy HTTP client's first request, and the headers every MCP POST carries.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
_CLEARED = frozenset({"TOOLPOOL_SECRET_KEY", "TOOLPOOL_ADMIN_TOKEN"})
_SERVER_TABLE = re.compile(r"^\[servers\.([A-Za-z0-9_-]+)[].]", re.MULTILINE)

ALPHA_AND_BETA = [
    "mcp__demo_alpha__echo",
    "mcp__demo_alpha__lookup",
    "mcp__demo_beta__lookup",
    "mcp__demo_beta__write_note",
]


def copy_config(folder: Path, servers: Collection[str] | None = None) -> Path:
    """A copy of examples/toolpool.toml in ``folder``: its store is made beside it. With
    ``servers``, only those of its servers (each a Python process the gateway starts: a test that
    needs one saves the start-up of the others)."""
    target = folder / "toolpool.toml"
    if servers is None:
        shutil.copyfile(EXAMPLE, target)
    else:
        target.write_text(only_servers(EXAMPLE.read_text(encoding="utf-8"), servers), encoding="utf-8")
    return target


def only_servers(config: str, servers: Collection[str]) -> str:
    """``config`` without the tables of servers not in ``servers`` (the other tables kept as written)."""
    unknown = set(servers) - set(_SERVER_TABLE.findall(config))
    assert not unknown, f"not servers of the example: {sorted(unknown)}"
    kept, keep = [], True
    for line in config.splitlines(keepends=True):
        if line.startswith("["):
            table = _SERVER_TABLE.match(line)
            keep = table is None or table.group(1) in servers
        if keep:
            kept.append(line)
    return "".join(kept)


def environment(**extra: str) -> dict[str, str]:
    """The test's environment without a secret key or admin token (unless given in ``extra``)."""
    kept = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    return kept | {"NO_COLOR": "1", "COLUMNS": "200"} | extra


def toolpool(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One CLI command, in another process, against ``config``."""
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        env=environment(),
        cwd=config.parent,
    )


async def toolpool_async(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return await anyio.to_thread.run_sync(lambda: toolpool(config, *args))


def new_token(config: Path, name: str, *grants: str) -> str:
    made = toolpool(config, "tokens", "add", name, *grants)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


@dataclass
class Changes:
    """Counts ``notifications/tools/list_changed`` as the legacy client receives them."""

    seen: int = 0
    event: anyio.Event = field(default_factory=anyio.Event)

    async def handler(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.seen += 1
            self.event.set()

    async def wait(self) -> None:
        with anyio.fail_after(WAIT_S):
            await self.event.wait()
        self.event = anyio.Event()


def names(result: mcp_types.ListToolsResult) -> list[str]:
    return [tool.name for tool in result.tools]


def text_of(result: mcp_types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent))


def code_of(result: mcp_types.CallToolResult) -> Any:
    return (result.meta or {}).get("toolpool/code")


@asynccontextmanager
async def stdio_client(
    config: Path, era: str, *allow: str, changes: Changes | None = None
) -> AsyncIterator[Client]:
    """``toolpool serve --stdio`` started by the SDK's stdio client (which owns and reaps it).
    Unbounded itself: the test bounds the whole (anyio forbids a bound around entering only)."""
    args = ["-m", "toolpool", "serve", "--stdio", "--config", str(config)]
    for glob in allow:
        args += ["--allow", glob]
    params = StdioServerParameters(command=sys.executable, args=args, env=environment(), cwd=config.parent)
    handler = changes.handler if changes is not None else None
    async with Client(params, mode=era, read_timeout_seconds=WAIT_S, message_handler=handler) as client:
        yield client


@dataclass
class Served:
    """A running ``toolpool serve`` process and what it said on stderr."""

    process: anyio.abc.Process
    stderr: list[str]
    url: str = ""
    children: set[int] = field(default_factory=set)


@asynccontextmanager
async def served(
    config: Path, *mode: str, ready: str = "serving MCP on ", env: Mapping[str, str] | None = None
) -> AsyncIterator[Served]:
    """``toolpool serve MODE`` as a child of the test, ready once its stderr says so; always
    stopped (SIGTERM, then SIGKILL) and reaped at the end, and ``stderr`` then holds what it
    said while stopping too. ``env`` adds to its environment."""
    command = [sys.executable, "-m", "toolpool", "serve", *mode, "--config", str(config)]
    process = await anyio.open_process(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=environment(**(env or {})),
        cwd=config.parent,
    )
    running = Served(process, [])
    said, ended = anyio.Event(), anyio.Event()

    async def read_stderr() -> None:
        assert process.stderr is not None
        pending = b""
        async for chunk in process.stderr:
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                running.stderr.append(line.decode(errors="replace"))
                if ready in running.stderr[-1] and not said.is_set():
                    running.url = running.stderr[-1].rsplit(" ", 1)[-1]
                    said.set()
        ended.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_stderr)
            with anyio.fail_after(START_S):
                await said.wait()
            running.children = children_of(process.pid)
            yield running
            await stop(process)
            with anyio.move_on_after(STOP_S):
                await ended.wait()  # what it said while stopping
            tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await stop(process)


async def stop(process: anyio.abc.Process, signum: signal.Signals = signal.SIGTERM) -> int:
    """Signal ``process``, wait (bounded) for it to exit; kill it if it will not. Its exit code."""
    if process.returncode is None:
        process.send_signal(signum)
        with anyio.move_on_after(STOP_S):
            return await process.wait()
        process.kill()
    return await process.wait()


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (running or not yet reaped)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry))
    return found


def still_running(pids: set[int]) -> set[int]:
    return {pid for pid in pids if is_running(pid)}


def bearer(token: str | None, **headers: str) -> httpx2.AsyncClient:
    """An HTTP client (the SDK's httpx2) that sends ``token`` and ``headers`` with every request."""
    sent = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx2.AsyncClient(headers=sent | headers, timeout=httpx2.Timeout(WAIT_S, read=None))


@asynccontextmanager
async def http_client(
    url: str, token: str, era: str, changes: Changes | None = None
) -> AsyncIterator[Client]:
    """The official client over streamable HTTP with ``token``, in ``era``."""
    handler = changes.handler if changes is not None else None
    async with (
        bearer(token) as http,
        Client(
            streamable_http_client(url, http_client=http),
            mode=era,
            read_timeout_seconds=WAIT_S,
            message_handler=handler,
        ) as client,
    ):
        yield client


@contextmanager
def served_sync(config: Path, *mode: str, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``served`` for synchronous tests (a browser test drives Playwright's sync API): yields
    the MCP URL once the process says it serves; always stopped and reaped."""
    command = [sys.executable, "-m", "toolpool", "serve", *mode, "--config", str(config)]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(**(env or {})),
        cwd=config.parent,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def read_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + START_S
        said: list[str] = []
        while not said or "serving MCP on " not in said[-1]:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.001))
            assert line is not None, f"toolpool serve ended before serving: {said}"
            said.append(line)
        yield said[-1].rsplit(" ", 1)[-1]
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                process.kill()
        process.wait()
        reader.join(timeout=STOP_S)
        assert process.stderr is not None
        process.stderr.close()


def call_once(url: str, token: str, tool: str, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
    """One tool call with the official client, from synchronous code (its own event loop, in a
    worker thread: the caller's thread may be driving another loop, as Playwright's does)."""

    async def call() -> mcp_types.CallToolResult:
        with anyio.fail_after(WAIT_S):
            async with http_client(url, token, "legacy") as client:
                return await client.call_tool(tool, dict(arguments))

    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(anyio.run, call).result(timeout=WAIT_S * 2)
