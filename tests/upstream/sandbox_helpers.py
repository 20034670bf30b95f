"""Helpers for the limits and sandbox tests: the escape artist, its launch, host-side checks."""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest

from tests.helpers import EXACT_ENV, READ, server_table, write_config
from toolpool import Config
from toolpool.upstream import Bwrap, Era, Limits, StdioLaunch, UpstreamSession, bwrap_problem

SERVERS = Path(__file__).resolve().parents[1] / "servers"
ARTIST = SERVERS / "escape_artist.py"
ARTIST_TOOLS = {
    name: {"action": f"artist.{name}", **READ}
    for name in (
        "connect",
        "write",
        "read",
        "allocate",
        "open_files",
        "burn",
        "limits",
        "env",
        "spawn",
        "escape",
        "crash",
    )
}
LEGACY = Era("legacy")
TIMEOUT = 30
# An address that is never routed (TEST-NET-1, RFC 5737): "the outside" without real traffic.
OUTSIDE = "192.0.2.1"


def artist_folder(tmp_path: Path) -> Path:
    """The artist's own folder (its cwd), holding a copy of the script; tmp_path is outside it."""
    folder = tmp_path / "server"
    folder.mkdir()
    shutil.copy(ARTIST, folder / ARTIST.name)
    return folder


def artist_config(tmp_path: Path, *extra_args: str, **fields: Any) -> Config:
    """A pool configuration with the artist as alias ``artist`` (its folder made in tmp_path)."""
    artist_folder(tmp_path)
    table = server_table(
        "artist",
        ARTIST_TOOLS,
        transport="stdio",
        command="python",
        args=["escape_artist.py", *extra_args],
        env=EXACT_ENV,
        cwd="server",
        era="legacy",
        **fields,
    )
    return write_config(tmp_path, table)


def artist_launch(
    folder: Path,
    *,
    limits: Limits | None = None,
    sandbox: Bwrap | None = None,
    env: Mapping[str, str] = EXACT_ENV,
    stubborn: bool = False,
) -> StdioLaunch:
    args = [ARTIST.name, *(["--stubborn"] if stubborn else [])]
    return StdioLaunch(
        command="python",
        args=args,
        env=env,
        cwd=folder,
        limits=limits if limits is not None else Limits(),
        sandbox=sandbox,
    )


async def ask(session: UpstreamSession, tool: str, **arguments: Any) -> Any:
    """Call one of the artist's tools and decode the JSON it reports."""
    return json.loads(text_of(await session.call_tool(tool, arguments, TIMEOUT)))


def text_of(result: mcp_types.CallToolResult) -> str:
    """The one text block of a tool result."""
    (block,) = result.content
    assert isinstance(block, mcp_types.TextContent), result
    return block.text


def reported(text: str) -> Any:
    """The artist's JSON report inside an Envelope's text (which may wrap it)."""
    return json.loads(text[text.index("{") : text.rindex("}") + 1])


@contextmanager
def loopback_listener() -> Iterator[socket.socket]:
    """A listening TCP socket on 127.0.0.1 whose backlog can be checked without blocking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        yield listener


def accepted_any(listener: socket.socket) -> bool:
    # connect() returns only after the handshake, so a connection the artist made is
    # already in the backlog when its report arrives.
    try:
        connection, _ = listener.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def group_members(pgid: int) -> set[int]:
    """Live (non-zombie) processes in process group ``pgid``, as the host sees them."""
    members = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.add(int(entry))
    return members


def host_limits(pid: int) -> dict[str, tuple[str, str]]:
    """Soft and hard data, cpu and open-files limits of ``pid``, from /proc (the host's view)."""
    names = {"Max data size": "data", "Max cpu time": "cpu", "Max open files": "nofile"}
    found = {}
    with open(f"/proc/{pid}/limits", encoding="ascii") as limits:
        for line in limits:
            for label, name in names.items():
                if line.startswith(label):
                    soft, hard = line[len(label) :].split()[:2]
                    found[name] = (soft, hard)
    return found


def command_line(pid: int) -> list[str]:
    with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
        return [part.decode() for part in cmdline.read().split(b"\0") if part]


async def wait_gone(pid: int) -> None:
    """Return once ``pid`` has exited (any process, not only a child: a pidfd is enough)."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        await anyio.wait_readable(pidfd)
    finally:
        os.close(pidfd)


async def require_bwrap() -> None:
    """Fail (never skip) with bwrap's own words when it cannot run here: CI installs it."""
    problem = await bwrap_problem()
    if problem is not None:
        pytest.fail(
            f"bubblewrap cannot run here ({problem}): scripts/bootstrap-tests installs it", pytrace=False
        )
