"""R14 sandbox (bubblewrap) against real processes: the escape artist, the demo server and,
marked ``thirdparty``, the reference node servers. Through ``open_session`` directly.
"""

from __future__ import annotations

import os
import signal
import tempfile
import uuid
from pathlib import Path

import anyio
import pytest

from tests.helpers import EXACT_ENV, process_state
from tests.upstream.sandbox_helpers import (
    LEGACY,
    OUTSIDE,
    SERVERS,
    TIMEOUT,
    accepted_any,
    artist_folder,
    artist_launch,
    ask,
    group_members,
    loopback_listener,
    require_bwrap,
    text_of,
    wait_gone,
)
from toolpool.errors import SandboxUnavailable, UpstreamConnectionLost, UpstreamUnavailable
from toolpool.upstream import Bwrap, Limits, StdioLaunch, bwrap_problem, open_session, require_sandbox

pytestmark = pytest.mark.anyio

SANDBOX = Bwrap()
UPSTREAMS = Path(__file__).resolve().parents[2] / "upstreams"


@pytest.fixture(autouse=True)
async def _bwrap_runs() -> None:
    await require_bwrap()


async def test_r14_a_sandboxed_server_cannot_reach_a_listener_on_the_host(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX)
    with loopback_listener() as listener, anyio.fail_after(TIMEOUT):
        port = listener.getsockname()[1]
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            tried = await ask(session, "connect", host="127.0.0.1", port=port)
        assert tried == {"ok": False, "error": "ECONNREFUSED"}  # its own, empty loopback
        assert not accepted_any(listener)


async def test_r14_a_sandboxed_server_has_no_route_to_the_outside(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            tried = await ask(session, "connect", host=OUTSIDE, port=80)
    assert tried == {"ok": False, "error": "ENETUNREACH"}


async def test_r14_allow_network_lets_a_sandboxed_server_reach_the_host(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), sandbox=Bwrap(allow_network=True))
    with loopback_listener() as listener, anyio.fail_after(TIMEOUT):
        port = listener.getsockname()[1]
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            tried = await ask(session, "connect", host="127.0.0.1", port=port)
        assert tried == {"ok": True, "error": None}
        assert accepted_any(listener)


async def test_r14_a_sandboxed_server_writes_only_inside_its_own_folder(tmp_path: Path) -> None:
    folder = artist_folder(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {**EXACT_ENV, "HOME": str(home)}
    launch = artist_launch(folder, sandbox=SANDBOX, env=env)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            inside = await ask(session, "write", path=str(folder / "inside.txt"), text="mine")
            await ask(session, "write", path=str(tmp_path / "outside.txt"), text="escaped")
            in_home = await ask(session, "write", path=str(home / "escaped.txt"), text="escaped")
            in_system = await ask(session, "write", path="/usr/escaped.txt", text="escaped")
            in_root = await ask(session, "write", path="/escaped.txt", text="escaped")
    assert inside["ok"] and (folder / "inside.txt").read_text() == "mine"
    assert not (tmp_path / "outside.txt").exists()  # at most in the sandbox's private /tmp
    assert in_home == {"ok": False, "error": "ENOENT"} and not (home / "escaped.txt").exists()
    assert in_system == in_root == {"ok": False, "error": "EROFS"}


async def test_r14_a_sandboxed_server_cannot_read_what_it_was_not_given(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the parent's secret")
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            parent = await ask(session, "read", path=str(secret))
            shadow = await ask(session, "read", path="/etc/shadow")
            tests = await ask(session, "read", path=str(Path(__file__)))
    assert parent == shadow == tests == {"ok": False, "text": None, "error": "ENOENT"}


async def test_r14_a_sandboxed_server_gets_a_private_tmp(tmp_path: Path) -> None:
    name = f"/tmp/toolpool-escape-{uuid.uuid4().hex}"
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX)
    with tempfile.NamedTemporaryFile("w", dir="/tmp", suffix=".host") as host_file:
        host_file.write("host only")
        host_file.flush()
        with anyio.fail_after(TIMEOUT):
            async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
                seen = await ask(session, "read", path=host_file.name)
                wrote = await ask(session, "write", path=name, text="sandbox only")
                reread = await ask(session, "read", path=name)
    assert seen["error"] == "ENOENT"
    assert wrote["ok"] and reread["text"] == "sandbox only"
    assert not await anyio.Path(name).exists()


async def test_r14_a_sandboxed_server_gets_exactly_the_configured_environment(tmp_path: Path) -> None:
    env = {"PYTHONCOERCECLOCALE": "0", "MARK": "exact", "HOME": "/nowhere"}
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX, env=env)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            seen = await ask(session, "env")
    assert seen == env  # bwrap's own PWD is gone too


async def test_r14_a_sandboxed_server_keeps_its_limits_and_cannot_raise_them(tmp_path: Path) -> None:
    launch = artist_launch(
        artist_folder(tmp_path), sandbox=SANDBOX, limits=Limits(memory_mb=128, open_files=32)
    )
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            limits = await ask(session, "limits")
            large = await ask(session, "allocate", mb=256)
            files = await ask(session, "open_files", count=1000)
    assert limits["at_start"]["nofile"] == [32, 32] and limits["raise"].startswith("refused")
    assert large["error"] == "MemoryError"
    assert files["error"] == "EMFILE"


async def test_r14_a_sandboxed_server_is_killed_at_its_cpu_limit(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX, limits=Limits(cpu_s=1))
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            with pytest.raises(UpstreamConnectionLost):
                await ask(session, "burn", seconds=20)
            await session.lost.wait()


async def test_r14_read_only_paths_are_visible_and_unchangeable(tmp_path: Path) -> None:
    folder = tmp_path / "server"
    folder.mkdir()
    launch = StdioLaunch(
        command="python",
        args=[str(SERVERS / "escape_artist.py")],
        env=EXACT_ENV,
        cwd=folder,
        sandbox=Bwrap(read_only=(SERVERS,)),
    )
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            changed = await ask(session, "write", path=str(SERVERS / "escape_artist.py"), text="")
    assert changed == {"ok": False, "error": "EROFS"}
    assert (SERVERS / "escape_artist.py").stat().st_size > 0


async def test_r13_closing_reaps_a_stubborn_sandboxed_server_and_its_child(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX, stubborn=True)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            await ask(session, "spawn")
            assert session.pid is not None
            leader = session.pid
            members = group_members(leader)
        for pid in members:
            await wait_gone(pid)
    assert len(members) >= 4  # bwrap, its pid-namespace init, the artist, the artist's child
    assert process_state(leader) is None  # reaped: no zombie
    assert group_members(leader) == set()


async def test_r12_killing_the_sandbox_from_outside_ends_everything_inside(tmp_path: Path) -> None:
    launch = artist_launch(artist_folder(tmp_path), sandbox=SANDBOX, stubborn=True)
    with anyio.fail_after(TIMEOUT):
        async with open_session("artist", launch, LEGACY, TIMEOUT) as session:
            await ask(session, "spawn")
            assert session.pid is not None
            members = group_members(session.pid)
            os.kill(session.pid, signal.SIGKILL)  # bwrap alone: --die-with-parent does the rest
            await session.lost.wait()
            for pid in members:
                await wait_gone(pid)


async def test_r14_this_interpreter_is_visible_so_the_demo_server_runs_sandboxed(tmp_path: Path) -> None:
    env = {"PYTHONCOERCECLOCALE": "0", "DEMO_MARK": "sandboxed"}
    launch = StdioLaunch(
        command="python", args=["-m", "toolpool.demo", "alpha"], env=env, cwd=tmp_path, sandbox=SANDBOX
    )
    with anyio.fail_after(TIMEOUT):
        async with open_session("demo_alpha", launch, LEGACY, TIMEOUT) as session:
            tools = await session.list_tools(TIMEOUT, 10, 100)
            info = await ask(session, "process_info")
    assert {tool.name for tool in tools} == {"lookup", "echo", "process_info"}
    assert info["env"] == env
    assert info["cwd"] == str(tmp_path)
    assert info["pgid"] == 0  # its process group's leader (bwrap) lives outside its pid namespace


async def test_r14_a_missing_bwrap_is_sandbox_unavailable_in_its_own_words(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-bwrap")
    with anyio.fail_after(TIMEOUT), pytest.raises(SandboxUnavailable) as raised:
        await require_sandbox("artist", Bwrap(executable=missing))
    assert raised.value.alias == "artist"
    assert raised.value.problem == f"cannot execute {missing}: No such file or directory"


async def test_r14_a_broken_bwrap_is_sandbox_unavailable_with_the_exact_error_probed_once(
    tmp_path: Path,
) -> None:
    said = "bwrap: No permissions to create a new namespace, likely because the kernel does not allow it"
    runs = tmp_path / "runs"
    broken = tmp_path / "bwrap"
    broken.write_text(f"#!/bin/sh\necho run >> {runs}\necho '{said}' >&2\nexit 1\n")
    broken.chmod(0o755)
    with anyio.fail_after(TIMEOUT):
        for _ in range(3):
            with pytest.raises(SandboxUnavailable) as raised:
                await require_sandbox("artist", Bwrap(executable=str(broken)))
            assert raised.value.problem == said
        assert await bwrap_problem(str(broken)) == said
    assert runs.read_text() == "run\n"


async def test_r14_a_broken_bwrap_never_falls_back_to_running_unsandboxed(tmp_path: Path) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: cannot run here' >&2\nexit 1\n")
    broken.chmod(0o755)
    launch = artist_launch(artist_folder(tmp_path), sandbox=Bwrap(executable=str(broken)))
    with anyio.fail_after(TIMEOUT), pytest.raises(UpstreamUnavailable):
        async with open_session("artist", launch, LEGACY, TIMEOUT):
            pass


@pytest.mark.thirdparty
@pytest.mark.parametrize("node_limits", [Limits(), Limits(memory_mb=512)])
async def test_r14_a_real_node_server_runs_sandboxed_with_exactly_its_environment(
    tmp_path: Path, node_limits: Limits
) -> None:
    script = UPSTREAMS / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    launch = StdioLaunch(
        command="/usr/bin/node",
        args=[str(script), "stdio"],
        env={},
        cwd=tmp_path,
        limits=node_limits,
        sandbox=Bwrap(read_only=(UPSTREAMS / "node_modules",)),
    )
    with anyio.fail_after(TIMEOUT):
        async with open_session("everything", launch, LEGACY, TIMEOUT) as session:
            result = await session.call_tool("get-env", {}, TIMEOUT)
    assert text_of(result) == "{}"


@pytest.mark.thirdparty
async def test_r14_a_real_filesystem_server_shares_only_its_sandboxed_folder(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello\n")
    script = UPSTREAMS / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
    launch = StdioLaunch(
        command="/usr/bin/node",
        args=[str(script), "."],
        env={},
        cwd=tmp_path,
        sandbox=Bwrap(read_only=(UPSTREAMS / "node_modules",)),
    )
    with anyio.fail_after(TIMEOUT):
        async with open_session("filesystem", launch, LEGACY, TIMEOUT) as session:
            listed = await session.call_tool("list_directory", {"path": str(tmp_path)}, TIMEOUT)
    assert text_of(listed) == "[FILE] hello.txt"


async def test_r14_a_sandboxed_server_without_a_folder_starts_in_the_sandbox_root() -> None:
    launch = StdioLaunch("python", ["-c", "import os; print(os.getcwd())"], {}, None, sandbox=SANDBOX)
    with anyio.fail_after(TIMEOUT):
        done = await anyio.run_process(launch.argv(), env=dict(launch.env))
    assert launch.argv()[0] == SANDBOX.executable
    assert done.stdout == b"/\n"
