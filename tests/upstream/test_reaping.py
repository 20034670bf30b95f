"""R13 reaping under the reaper shim: a grandchild that escapes with setsid, in a sandbox or
after the host died; the exact environment through the shim; R12's prompt exit notice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers import children_of_this_process, is_running, process_state
from tests.upstream.reaping_helpers import escape_marker, open_fds, opened_since, processes_with
from tests.upstream.sandbox_helpers import (
    ARTIST,
    LEGACY,
    TIMEOUT,
    artist_config,
    artist_folder,
    artist_launch,
    ask,
    reported,
    require_bwrap,
    wait_gone,
)
from toolpool import Pool, Ticket
from toolpool.errors import UpstreamUnavailable
from toolpool.upstream import Limits, StdioLaunch, open_session
from toolpool.upstream._reaper_shim import descendants_by_children, descendants_by_scan

pytestmark = pytest.mark.anyio

ANY = Ticket.allow("*")
NO_LIMITS = Limits(memory_mb=None, cpu_s=None, open_files=None)

# A host that starts the artist, has it escape, says the server's pid and waits to be killed.
_HOST_CODE = """\
import json, sys, anyio
from toolpool.upstream import Era, StdioLaunch, open_session

async def main(folder, marker):
    launch = StdioLaunch("python", ["escape_artist.py"], {"PYTHONCOERCECLOCALE": "0"}, folder)
    async with open_session("artist", launch, Era("legacy"), 30) as session:
        await session.call_tool("escape", {"marker": marker}, 30)
        print(json.dumps(session.pid), flush=True)
        await anyio.sleep_forever()

anyio.run(main, sys.argv[1], sys.argv[2])
"""


async def test_r13_closing_the_pool_reaps_a_setsid_grandchild_of_a_sandboxed_server(tmp_path: Path) -> None:
    await require_bwrap()
    config = artist_config(tmp_path, "--stubborn", sandbox="bwrap")
    fds, before = open_fds(), children_of_this_process()
    with escape_marker() as marker:
        async with Pool(config) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("artist")
                envelope = await pool.call(
                    pool.snapshot(), "mcp__artist__escape", {"marker": marker}, ticket=ANY
                )
                (escapee,) = processes_with(marker)  # its pid on the host, not in the sandbox
                assert reported(envelope.text)["pid"] != escapee
        assert process_state(escapee) is None
    assert children_of_this_process() == before
    assert opened_since(fds) == {}


async def test_r13_a_setsid_grandchild_is_reaped_even_when_the_host_is_killed(tmp_path: Path) -> None:
    folder = artist_folder(tmp_path)
    with escape_marker() as marker, anyio.fail_after(TIMEOUT):
        async with await anyio.open_process(
            [sys.executable, "-c", _HOST_CODE, str(folder), marker],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        ) as host:
            try:
                assert host.stdout is not None
                server = json.loads(await host.stdout.receive())
                (escapee,) = processes_with(marker) - {host.pid}
                tree = descendants_by_scan(host.pid)  # the shim, the server, the escapee
                assert {server, escapee} < set(tree)
            finally:
                host.kill()
                await host.wait()
        for pid in tree:
            await wait_gone(pid)
    assert process_state(server) is None and process_state(escapee) is None  # reaped by the shim


async def test_r12_a_server_exit_is_noticed_before_its_leftovers_are_swept(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path))
    with escape_marker() as marker, anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            escapee = (await ask(session, "escape", marker=marker))["pid"]
            assert session.pid is not None
            os.kill(session.pid, signal.SIGKILL)
            await session.lost.wait()
            # It holds the server's stdout and ignores SIGTERM, so it lives out the shim's
            # grace: only the server's own exit can have been noticed.
            assert is_running(escapee)
        assert process_state(escapee) is None


async def test_r14_the_server_gets_exactly_its_environment_through_the_shim(tmp_path: Path) -> None:
    # The shim's Python coerces a C locale into its own environ (LC_CTYPE); the server must
    # still get exactly what was configured, here nothing at all.
    launch = StdioLaunch("python", [str(ARTIST)], {}, tmp_path, limits=NO_LIMITS)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            assert session.pid is not None
            environ = await anyio.Path(f"/proc/{session.pid}/environ").read_bytes()
            own_group = os.getpgid(session.pid) == session.pid
    assert environ == b""
    assert own_group


async def test_r14_a_command_the_shim_cannot_execute_fails_to_start(tmp_path: Path) -> None:
    script = tmp_path / "server"
    script.write_text("#!/bin/sh\n")  # not executable
    launch = StdioLaunch(str(script), [], {}, tmp_path, limits=NO_LIMITS)
    before = children_of_this_process()
    with anyio.fail_after(TIMEOUT), pytest.raises(UpstreamUnavailable, match="could not start"):
        async with open_session("broken", launch, LEGACY, TIMEOUT):
            pass
    assert children_of_this_process() == before


async def test_both_ways_of_finding_descendants_agree(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path))
    with escape_marker() as marker, anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            await ask(session, "spawn")
            await ask(session, "escape", marker=marker)
            by_children = sorted(descendants_by_children(os.getpid()))
            by_scan = sorted(descendants_by_scan(os.getpid()))
    assert by_children == by_scan
    assert len(by_scan) >= 4  # the shim, the server, its child, the escapee
