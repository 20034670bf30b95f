"""R14 resource limits for every stdio server, against the real escape artist (no sandbox).

Through ``open_session`` directly: the limits come from ``StdioLaunch.limits``.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from tests.upstream.sandbox_helpers import (
    LEGACY,
    TIMEOUT,
    artist_folder,
    artist_launch,
    ask,
    command_line,
    host_limits,
    wait_gone,
)
from toolpool.errors import UpstreamConnectionLost, UpstreamUnavailable
from toolpool.upstream import Limits, StdioLaunch, open_session

pytestmark = pytest.mark.anyio

MIB = 1024 * 1024


async def test_r14_a_server_runs_under_its_limits_from_its_first_line(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), limits=Limits(memory_mb=256, cpu_s=7, open_files=64))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            report = await ask(session, "limits")
    assert report["at_start"] == {"data": [256 * MIB] * 2, "cpu": [7, 7], "nofile": [64, 64]}


async def test_r14_a_server_cannot_raise_its_own_hard_limits(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), limits=Limits(open_files=64))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            report = await ask(session, "limits")
    assert report["raise"].startswith("refused")


async def test_r14_a_server_cannot_allocate_past_its_memory_limit(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), limits=Limits(memory_mb=128))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            small = await ask(session, "allocate", mb=32)
            large = await ask(session, "allocate", mb=256)
            after = await ask(session, "allocate", mb=32)
    assert small == {"ok": True, "error": None}
    assert large == {"ok": False, "error": "MemoryError"}
    assert after == small  # refused, not killed: the server goes on


async def test_r14_a_server_cannot_open_more_files_than_its_limit(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), limits=Limits(open_files=32))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            report = await ask(session, "open_files", count=1000)
    assert report["error"] == "EMFILE"
    assert 20 <= report["opened"] < 32  # its stdio and Python's own files take the rest


async def test_r14_a_server_is_killed_at_its_cpu_limit(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), limits=Limits(cpu_s=1))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            assert session.pid is not None
            with pytest.raises(UpstreamConnectionLost):
                await ask(session, "burn", seconds=20)
            await wait_gone(session.pid)


async def test_r14_the_limits_hold_for_every_process_the_server_starts(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), limits=Limits(memory_mb=512, cpu_s=50, open_files=48))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            child = (await ask(session, "spawn"))["pid"]
            assert session.pid is not None
            seen = {pid: host_limits(pid) for pid in (session.pid, child)}
    expected = {"data": (str(512 * MIB),) * 2, "cpu": ("50", "50"), "nofile": ("48", "48")}
    assert seen == {session.pid: expected, child: expected}


async def test_r14_limits_keep_the_server_the_leader_of_its_group_with_the_exact_environment(
    tmp_path: Path,
) -> None:
    env = {"PYTHONCOERCECLOCALE": "0", "MARK": "exact"}
    launch = artist_launch(artist_folder(tmp_path), env=env)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            seen = await ask(session, "env")
            pid = session.pid
            assert pid is not None
            leader = (os.getpgid(pid), command_line(pid))
    assert seen == env
    assert leader[0] == pid  # the wrappers exec'd: the spawned pid is the server itself
    assert leader[1][1:] == ["escape_artist.py"]


async def test_r14_a_missing_command_still_fails_to_start_rather_than_in_a_wrapper(tmp_path: Path) -> None:
    launch = StdioLaunch(command="no-such-server-command", args=[], env={}, cwd=tmp_path)
    with anyio.fail_after(TIMEOUT), pytest.raises(UpstreamUnavailable, match="could not start"):
        async with open_session("missing", launch, LEGACY, TIMEOUT):
            pass


async def test_r14_no_limits_spawn_the_command_itself(tmp_path: Path) -> None:
    launch = artist_launch(
        artist_folder(tmp_path), limits=Limits(memory_mb=None, cpu_s=None, open_files=None)
    )
    assert launch.argv()[1:] == ["escape_artist.py"]
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            report = await ask(session, "limits")
    assert report["at_start"]["cpu"] == [-1, -1]  # RLIM_INFINITY: nothing was applied
