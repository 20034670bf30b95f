"""R13/R14 sandbox and limits through the Pool and its TOML configuration."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import (
    ALPHA_TOOLS,
    BETA_TOOLS,
    FAULTY_TOOLS,
    children_of_this_process,
    demo_server,
    write_config,
)
from tests.upstream.sandbox_helpers import (
    TIMEOUT,
    accepted_any,
    artist_config,
    group_members,
    host_limits,
    loopback_listener,
    reported,
    require_bwrap,
    wait_gone,
)
from toolpool import Pool, Ticket
from toolpool.errors import SandboxUnavailable
from toolpool.testing import EventRecorder
from toolpool.upstream import sandbox as sandbox_module

pytestmark = pytest.mark.anyio

ANY = Ticket.allow("*")


def _server_pid(pool: Pool, alias: str) -> int:
    """The server's own pid (bwrap's, when sandboxed): the process group it leads."""
    session = pool.session_of(alias)
    assert session is not None and session.pid is not None
    return session.pid


async def _ask(pool: Pool, tool: str, **arguments: Any) -> Any:
    envelope = await pool.call(pool.snapshot(), f"mcp__artist__{tool}", arguments, ticket=ANY)
    assert envelope.ok, envelope
    return reported(envelope.text)


async def test_r14_every_stdio_server_gets_the_default_limits(tmp_path: Path) -> None:
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            limits = host_limits(_server_pid(pool, "demo_alpha"))
    assert limits == {
        "data": (str(4096 * 1024 * 1024),) * 2,
        "cpu": ("3600", "3600"),
        "nofile": ("1024", "1024"),
    }


async def test_r14_configured_limits_hold_for_a_pool_server(tmp_path: Path) -> None:
    config = artist_config(tmp_path, max_memory_mb=128, max_open_files=32, max_cpu_s=1)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("artist")
            large = await _ask(pool, "allocate", mb=256)
            files = await _ask(pool, "open_files", count=1000)
            burnt = await pool.call(pool.snapshot(), "mcp__artist__burn", {"seconds": 8}, ticket=ANY)
    assert large["error"] == "MemoryError"
    assert files["error"] == "EMFILE"
    assert burnt.code == "mcp_connection_lost"


async def test_r14_a_pool_server_in_the_bwrap_sandbox_cannot_reach_the_host(tmp_path: Path) -> None:
    await require_bwrap()
    config = artist_config(tmp_path, sandbox="bwrap")
    with loopback_listener() as listener:
        async with Pool(config) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("artist")
                tried = await _ask(pool, "connect", host="127.0.0.1", port=listener.getsockname()[1])
                wrote = await _ask(pool, "write", path=str(tmp_path / "outside.txt"), text="escaped")
        assert not accepted_any(listener)
    assert tried == {"ok": False, "error": "ECONNREFUSED"}
    assert wrote["ok"] is not None and not (tmp_path / "outside.txt").exists()


async def test_r14_allow_network_lets_a_sandboxed_pool_server_reach_the_host(tmp_path: Path) -> None:
    await require_bwrap()
    config = artist_config(tmp_path, sandbox="bwrap", allow_network=True)
    with loopback_listener() as listener:
        async with Pool(config) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("artist")
                tried = await _ask(pool, "connect", host="127.0.0.1", port=listener.getsockname()[1])
        assert accepted_any(listener)
    assert tried == {"ok": True, "error": None}


async def test_r14_the_demo_server_runs_sandboxed_with_exactly_the_configured_environment(
    tmp_path: Path,
) -> None:
    await require_bwrap()
    env = {"PYTHONCOERCECLOCALE": "0", "DEMO_MARK": "sandboxed"}
    (tmp_path / "alpha").mkdir()
    config = write_config(
        tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS, env=env, sandbox="bwrap", cwd="alpha")
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            envelope = await pool.call(pool.snapshot(), "mcp__demo_alpha__process_info", {}, ticket=ANY)
    info = reported(envelope.text)
    assert info["env"] == env
    assert info["cwd"] == str(tmp_path / "alpha")
    assert info["pgid"] == 0  # inside bwrap's pid namespace: the sandbox is real


async def test_r13_closing_the_pool_reaps_a_stubborn_sandboxed_server_and_its_child(tmp_path: Path) -> None:
    await require_bwrap()
    config = artist_config(tmp_path, "--stubborn", sandbox="bwrap")
    before = children_of_this_process()
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("artist")
            await _ask(pool, "spawn")
            members = group_members(_server_pid(pool, "artist"))
    with anyio.fail_after(TIMEOUT):
        for pid in members:
            await wait_gone(pid)
    assert len(members) >= 4  # bwrap, its pid-namespace init, the artist, the artist's child
    assert children_of_this_process() == before


async def test_r12_the_watchdog_revokes_a_sandboxed_server_whose_sandbox_died(tmp_path: Path) -> None:
    await require_bwrap()
    recorder = EventRecorder()
    config = artist_config(tmp_path, sandbox="bwrap")
    async with Pool(config, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("artist")
            leader = _server_pid(pool, "artist")
            members = group_members(leader)
            os.kill(leader, signal.SIGKILL)  # bwrap alone: --die-with-parent does the rest
            await recorder.wait_for("mcp.connection_lost", "artist")
            for pid in members:
                await wait_gone(pid)
        assert pool.snapshot().tools == ()


async def test_r13_closing_the_pool_leaves_no_child_process_of_sandboxed_servers(tmp_path: Path) -> None:
    await require_bwrap()
    before = children_of_this_process()
    (tmp_path / "servers").mkdir()
    config = write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS, sandbox="bwrap", cwd="servers"),
        demo_server("demo_beta", "beta", BETA_TOOLS, sandbox="bwrap", cwd="servers"),
        demo_server("faulty", "faulty", FAULTY_TOOLS, call_timeout_s=1, sandbox="bwrap", cwd="servers"),
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tasks:
                for alias in ("demo_alpha", "demo_beta", "faulty"):
                    tasks.start_soon(pool.connect, alias)
            leaders = {_server_pid(pool, alias) for alias in ("demo_alpha", "demo_beta", "faulty")}
            members = {pid for leader in leaders for pid in group_members(leader)}
            await pool.call(pool.snapshot(), "mcp__faulty__hang", {}, ticket=ANY)  # times out: dropped
    assert len(leaders) == 3 and len(members) >= 9
    assert children_of_this_process() == before
    assert {pid for leader in leaders for pid in group_members(leader)} == set()


async def test_r14_connect_raises_sandbox_unavailable_and_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "BWRAP", str(tmp_path / "no-bwrap"))
    config = artist_config(tmp_path, sandbox="bwrap")
    before = children_of_this_process()
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(SandboxUnavailable) as raised:
            await pool.connect("artist")
        assert children_of_this_process() == before
        assert pool.snapshot().tools == ()
    assert raised.value.problem == f"cannot execute {tmp_path / 'no-bwrap'}: No such file or directory"
