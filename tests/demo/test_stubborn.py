"""stubborn ignores the polite ways to stop it; only SIGKILL of its group ends it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from toolpool.demo import demo_command, demo_environment

Connect = Callable[..., AbstractAsyncContextManager[Client]]


def ignored_signals(pid: int) -> set[int]:
    status = Path(f"/proc/{pid}/status").read_text()
    [mask] = [line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")]
    bits = int(mask, 16)
    return {signum for signum in range(1, 65) if bits & (1 << (signum - 1))}


def is_running(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def text_of(client: Client, tool: str) -> str:
    [block] = (await client.call_tool(tool, {})).content
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.anyio
async def test_stubborn_and_its_child_shrug_off_sigterm_in_one_process_group(demo: Connect) -> None:
    with anyio.fail_after(30):
        async with demo("stubborn") as client:
            listing = await client.list_tools()
            assert [tool.name for tool in listing.tools] == ["ping", "pids"]
            pids = json.loads(await text_of(client, "pids"))
            server, child = pids["pid"], pids["child_pid"]
            try:
                assert os.getpgid(child) == os.getpgid(server)
                assert {signal.SIGTERM, signal.SIGINT, signal.SIGHUP} <= ignored_signals(server)
                assert {signal.SIGTERM, signal.SIGHUP} <= ignored_signals(child)
                os.kill(server, signal.SIGTERM)
                os.kill(child, signal.SIGTERM)
                assert await text_of(client, "ping") == "pong"
                assert is_running(child)
            finally:
                os.killpg(os.getpgid(server), signal.SIGKILL)


@pytest.mark.anyio
async def test_stubborn_keeps_running_after_stdin_reaches_eof() -> None:
    process = await anyio.open_process(
        demo_command("stubborn"),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=demo_environment(),
        start_new_session=True,
    )
    assert process.stdin is not None
    assert process.stderr is not None
    try:
        with anyio.fail_after(30):
            await process.stdin.aclose()
            said = b""
            async for chunk in process.stderr:
                said += chunk
                if b"stdin closed" in said:
                    break
            # A bounded look for an exit that must not come, not a wait for something to happen.
            with anyio.move_on_after(0.5):
                await process.wait()
            assert process.returncode is None
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        with anyio.fail_after(10), anyio.CancelScope(shield=True):
            await process.wait()
            await process.aclose()
