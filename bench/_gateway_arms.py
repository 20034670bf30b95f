"""The four ways bench/gateway.py reaches the same upstream, over stdio and over HTTP.

The upstream is the ``alpha`` demo server (``echo``), pinned to the bench's era on every leg:

- ``direct``: the SDK client speaks to the upstream itself (stdio; over HTTP, the demo's own
  streamable HTTP server, ``--transport http``: the same SDK server code behind uvicorn);
- ``toolpool``: ``toolpool serve`` (``--stdio``, or ``--http`` with a bearer token) on a
  configuration with that one upstream (stdio) and its exact-match policy, store beside it;
- ``fastmcp``: FastMCP's ``create_proxy`` in its own virtualenv (``_fastmcp_proxy.py``), in
  front of the same upstream command over stdio;
- ``relay``: attribution only, the floor of a Python hop: the SDK's low-level server
  forwarding each request to the same upstream through the SDK's client (``_sdk_relay.py``).

Every process is started and stopped here (HTTP) or by the SDK's stdio client, which closes
stdin, waits, then terminates the process group; every proxy reaps its upstream itself, and
``_procs.kill_strays`` checks at the end that nothing outlived the bench.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from _configs import EXACT_ENV, alpha_server, demo_args, local_name, sdk_command, write_config
from _procs import BENCH, START_S, Server, children, descendants, ensure_fastmcp, started

__all__ = [
    "ALIAS",
    "ARMS",
    "LABELS",
    "TEXT",
    "TOOLPOOL_ARMS",
    "WAIT_S",
    "Bench",
    "Target",
    "http_targets",
    "stdio_targets",
    "text_of",
]

ALIAS = "bench_alpha"
ARMS = ("direct", "relay", "toolpool", "sdkfront", "fastmcp")
TOOLPOOL_ARMS = frozenset({"toolpool", "sdkfront"})
LABELS = {
    "direct": "client → upstream (direct)",
    "relay": "client → bare SDK relay → upstream",
    "toolpool": "client → toolpool serve → upstream",
    "sdkfront": "client → toolpool serve --sdk-front (no lean front) → upstream",
    "fastmcp": "client → FastMCP proxy → upstream",
}
TEXT = "hello"
# Any single request; generous: one that hits it is a failure, not a measurement.
WAIT_S = 30.0
_PROFILE_ENV = "TOOLPOOL_BENCH_PROFILE"
_KEY_ENV = "TOOLPOOL_SECRET_KEY"
_READY = "serving MCP on "


@dataclass(frozen=True, slots=True)
class Bench:
    """One era's scratch folder, with a configuration for ``toolpool serve``."""

    folder: Path
    era: str
    profile: Path | None = None  # where the serve process writes its cProfile stats

    @property
    def config(self) -> Path:
        return self.folder / "toolpool.toml"

    @classmethod
    def make(cls, folder: Path, era: str, profile: Path | None) -> Bench:
        folder.mkdir()
        write_config(folder, alpha_server(ALIAS, era))
        return cls(folder, era, profile)


@dataclass(frozen=True, slots=True)
class Target:
    """One arm's connected clients (1 over stdio, N over HTTP), the tool they call, and the
    processes that serve them: the proxy (none for ``direct``) and the upstream."""

    name: str
    sessions: tuple[ClientSession, ...]
    tool: str
    proxy: int | None
    upstream: int


def text_of(result: mcp_types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent))


def _environment(bench: Bench, profile_as: str | None = None) -> dict[str, str]:
    # No secret key: the store is new and holds no secrets (as in tests/serve).
    env = {key: value for key, value in os.environ.items() if key not in (_KEY_ENV, _PROFILE_ENV)}
    if bench.profile is not None and profile_as is not None:
        env[_PROFILE_ENV] = str(bench.profile / f"serve-{profile_as}-{bench.era}.prof")
    return env


def _upstream() -> dict[str, Any]:
    return {"command": sdk_command(), "args": demo_args("alpha"), "env": dict(EXACT_ENV)}


def _toolpool(bench: Bench, *mode: str, profiled: bool = True) -> list[str]:
    entry = (
        [str(BENCH / "_profiled_serve.py")] if bench.profile is not None and profiled else ["-m", "toolpool"]
    )
    return [sys.executable, *entry, "serve", *mode, "--config", str(bench.config)]


def _fastmcp(mode: str) -> list[str]:
    return [str(ensure_fastmcp()), str(BENCH / "_fastmcp_proxy.py"), mode, json.dumps(_upstream())]


def _relay(bench: Bench, mode: str) -> list[str]:
    return [sys.executable, str(BENCH / "_sdk_relay.py"), mode, bench.era, json.dumps(_upstream())]


def _tool(arm: str) -> str:
    return local_name(ALIAS, "echo") if arm in TOOLPOOL_ARMS else "echo"


@asynccontextmanager
async def stdio_targets(bench: Bench) -> AsyncIterator[list[Target]]:
    """The four arms over stdio, each a child of this process started by the SDK's client."""
    params = {
        "direct": StdioServerParameters(**_upstream()),
        "toolpool": _stdio_params(_toolpool(bench, "--stdio"), _environment(bench, "stdio"), bench.folder),
        "sdkfront": _stdio_params(
            _toolpool(bench, "--stdio", "--sdk-front", profiled=False), _environment(bench), bench.folder
        ),
        "fastmcp": _stdio_params(_fastmcp("stdio"), _environment(bench), bench.folder),
        "relay": _stdio_params(_relay(bench, "stdio"), _environment(bench), bench.folder),
    }
    async with AsyncExitStack() as stack:
        targets = []
        for arm in ARMS:
            before = children(os.getpid())
            client = await stack.enter_async_context(
                Client(params[arm], mode=bench.era, cache=None, read_timeout_seconds=START_S)
            )
            await client.session.list_tools()  # FastMCP starts its upstream on first use
            (pid,) = children(os.getpid()) - before
            targets.append(_target(arm, (client.session,), pid))
        yield targets


def _stdio_params(command: list[str], env: Mapping[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(env), cwd=cwd)


def _target(arm: str, sessions: tuple[ClientSession, ...], pid: int) -> Target:
    if arm == "direct":
        return Target(arm, sessions, _tool(arm), None, pid)
    # The proxy's upstream server: the one leaf below it (toolpool starts it under its reaper).
    below = descendants(pid)
    (upstream,) = {process for process in below if not children(process) & below}
    return Target(arm, sessions, _tool(arm), pid, upstream)


@asynccontextmanager
async def http_targets(bench: Bench, clients: int) -> AsyncIterator[list[Target]]:
    """The four arms over streamable HTTP on 127.0.0.1, ``clients`` connected clients each."""
    token = _new_token(bench)
    async with AsyncExitStack() as stack:
        servers = {
            "direct": await stack.enter_async_context(_direct_http(bench)),
            "toolpool": await stack.enter_async_context(
                started(
                    _toolpool(bench, "--http", "127.0.0.1:0"),
                    env=_environment(bench, "http"),
                    cwd=bench.folder,
                    ready=_READY,
                )
            ),
            "sdkfront": await stack.enter_async_context(
                started(
                    _toolpool(bench, "--http", "127.0.0.1:0", "--sdk-front", profiled=False),
                    env=_environment(bench),
                    cwd=bench.folder,
                    ready=_READY,
                )
            ),
            "fastmcp": await stack.enter_async_context(
                started(_fastmcp("http"), env=_environment(bench), cwd=bench.folder, ready=_READY)
            ),
            "relay": await stack.enter_async_context(
                started(_relay(bench, "http"), env=_environment(bench), cwd=bench.folder, ready=_READY)
            ),
        }
        targets = []
        for arm in ARMS:
            bearer = token if arm in TOOLPOOL_ARMS else None
            sessions = [
                await _http_session(stack, servers[arm].url, bearer, bench.era) for _ in range(clients)
            ]
            targets.append(_target(arm, tuple(sessions), servers[arm].pid))
        yield targets


@asynccontextmanager
async def _direct_http(bench: Bench) -> AsyncIterator[Server]:
    # The bench binds the socket and hands it over, so the port is known before the start.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        upstream = _upstream()
        command = [upstream["command"], *upstream["args"], "--transport", "http", "--fd", str(sock.fileno())]
        async with started(command, env=upstream["env"], pass_fds=(sock.fileno(),)) as server:
            server.url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
            yield server


async def _http_session(stack: AsyncExitStack, url: str, token: str | None, era: str) -> ClientSession:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    http = await stack.enter_async_context(
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(WAIT_S, read=None))
    )
    client = await stack.enter_async_context(
        Client(
            streamable_http_client(url, http_client=http), mode=era, cache=None, read_timeout_seconds=WAIT_S
        )
    )
    await client.session.list_tools()
    return client.session


def _new_token(bench: Bench) -> str:
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolpool",
            "tokens",
            "add",
            "bench",
            "--allow",
            "*",
            "--config",
            str(bench.config),
        ],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        env=_environment(bench),
        cwd=bench.folder,
        check=False,
    )
    if made.returncode != 0:
        raise RuntimeError(f"toolpool tokens add failed: {made.stderr.strip()}")
    return made.stdout.strip()
