"""A stdio server's process: started under the reaper shim, watched, and stopped for good (R13).

A process group is not enough to reap a server: a child that calls ``setsid()`` (a daemon's
double fork) leaves the group and, once its parent exits, is handed to init — out of reach.
Making the host a subreaper would hand it every orphan of the host's other children too, whose
exit statuses it would then steal. So each server gets a reaper shim of its own
(``_reaper_shim.py``, a second small Python process): a subreaper, so that everything the
server starts stays below it, that sweeps the whole tree when the server exits, when the host
asks it to stop, or when the host dies.

Closing follows the MCP shutdown order — close stdin, grace, SIGTERM, grace, SIGKILL — with the
signals sent by the shim to every descendant rather than to a process group. The host closes
stdin itself and watches the server's exit through a pidfd the shim hands over, so the
watchdog (R12) sees the server's own exit at once. A shim that does not finish its sweep in
time (it never should) is killed, and the server with it, through its pidfd.

Off Linux there is no shim (it needs ``prctl`` and ``/proc``): the server is started in a
session of its own and its process group is signalled, which a ``setsid`` child escapes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio
import anyio.abc

__all__ = ["KILL_REAP_S", "STDIN_CLOSE_GRACE_S", "TERM_GRACE_S", "ServerProcess", "start_server"]

# Grace for a server to exit by itself once its stdin closes (the spec's first step).
STDIN_CLOSE_GRACE_S = 2.0
# Grace between SIGTERM and SIGKILL (the shim applies it to every descendant).
TERM_GRACE_S = 2.0
# After SIGKILL only the kernel is left; this bounds waiting for it.
KILL_REAP_S = 2.0
# Liveness fallback where pidfd_open is unavailable.
_EXIT_POLL_S = 0.2
_SHIM = Path(__file__).with_name("_reaper_shim.py")
_USE_SHIM = sys.platform == "linux" and bool(sys.executable)


class ServerProcess:
    """A started server: its pipes (those of ``process``), its pid, and its way out.

    ``pid`` is the server's own (the shim reports it once it started it), ``None`` until then.
    """

    def __init__(self, process: anyio.abc.Process, control: socket.socket | None) -> None:
        # ``process`` is the shim, or the server itself where there is none.
        self.process = process
        self.pid: int | None = process.pid if control is None else None
        self._control = control
        self._exit_fd: int | None = None  # a pidfd for the server, readable once it exited

    async def wait_exit(self) -> None:
        """Return once the server exited, or its shim did (nothing would reap below it then)."""
        async with anyio.create_task_group() as watch:

            async def until(waiter: anyio.abc.Process | int) -> None:
                await _exit_of(waiter)
                watch.cancel_scope.cancel()

            watch.start_soon(until, self.process)
            if self._exit_fd is not None:
                watch.start_soon(until, self._exit_fd)

    async def _receive_report(self) -> None:
        """The server's pid and, where the kernel has them (Linux 5.3), a pidfd for it.

        Raises:
            OSError: the shim exited without starting the command (its stderr says why).
        """
        assert self._control is not None
        await anyio.wait_readable(self._control)
        message, fds, _, _ = socket.recv_fds(self._control, 64, 1, socket.MSG_CMSG_CLOEXEC)
        if not message:
            raise OSError("the reaper shim could not start the server's command")
        self.pid, self._exit_fd = int(message), fds[0] if fds else None

    async def stop(self) -> None:
        """Stop the server and everything it started; bounded, never raises."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await self.process.stdin.aclose()
        with anyio.move_on_after(STDIN_CLOSE_GRACE_S):
            await self.wait_exit()
        if self._control is not None:
            await self._stop_through_shim()
        else:
            await self._stop_group()
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await pipe.aclose()
        with anyio.move_on_after(KILL_REAP_S):
            await self.process.wait()
        if self._exit_fd is not None:
            os.close(self._exit_fd)
            self._exit_fd = None

    async def _stop_through_shim(self) -> None:
        assert self._control is not None
        self._control.close()  # the shim's signal to sweep: SIGTERM, grace, SIGKILL until none
        with anyio.move_on_after(TERM_GRACE_S + KILL_REAP_S) as waited:
            await _exit_of(self.process)
        # Asked only of the pidfd: ``returncode`` lags the exit, and ``kill()`` would then reap
        # the shim behind the event loop's back.
        if waited.cancelled_caught:  # a stuck shim: only the kernel can help now
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        if self._exit_fd is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._exit_fd, signal.SIGKILL)

    async def _stop_group(self) -> None:
        _signal_group(self.process.pid, signal.SIGTERM)
        with anyio.move_on_after(TERM_GRACE_S):
            await _exit_of(self.process)
        _signal_group(self.process.pid, signal.SIGKILL)


async def start_server(argv: Sequence[str], env: Mapping[str, str], cwd: Path | None) -> ServerProcess:
    """Start ``argv`` with exactly ``env`` and ``cwd``, stdio piped, under a reaper shim.

    Raises:
        OSError: the process could not be started (nor, under the shim, the command).
    """
    if not _USE_SHIM:
        return ServerProcess(await _spawn(argv, env, cwd), None)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    shim = [sys.executable, "-I", "-S", str(_SHIM), str(theirs.fileno()), f"{TERM_GRACE_S:g}", *argv]
    try:
        process = await _spawn(shim, env, cwd, pass_fds=(theirs.fileno(),))
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    # No await between the spawn and this guard, so a cancellation cannot leak the process.
    server = ServerProcess(process, ours)
    try:
        await server._receive_report()
    except BaseException:
        with anyio.CancelScope(shield=True):
            await server.stop()
        raise
    return server


async def _spawn(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path | None, pass_fds: Sequence[int] = ()
) -> anyio.abc.Process:
    return await anyio.open_process(
        list(argv),
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
        pass_fds=pass_fds,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


async def _exit_of(waiter: anyio.abc.Process | int) -> None:
    """Return once a child process, or the process behind a pidfd, has exited.

    Never waits for the pipes to close, and never reaps (the event loop reaps our children).
    """
    pidfd = os.dup(waiter) if isinstance(waiter, int) else _pidfd_open(waiter.pid)
    if pidfd is None:
        assert isinstance(waiter, anyio.abc.Process)
        while waiter.returncode is None:  # noqa: ASYNC110 - no exit event without a pidfd
            await anyio.sleep(_EXIT_POLL_S)
        return
    try:
        # A pidfd of our own for each waiter: a selector watches one waiter per descriptor.
        if isinstance(waiter, int) or waiter.returncode is None:
            await anyio.wait_readable(pidfd)
    finally:
        os.close(pidfd)


def _pidfd_open(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)
