"""The reaper shim: a tiny launcher between toolpool and one stdio server (R13), Linux only.

Run by ``toolpool.upstream._reaper`` as
``python -I -S _reaper_shim.py CONTROL_FD TERM_GRACE_S COMMAND [ARG ...]``, with the server's
exact environment, cwd and stdio. Standard library only and no ``site``, so it starts in a few
milliseconds and nothing of toolpool's (or the host's) import path runs in it.

It makes itself a child subreaper, so that whatever the server starts stays below it however
it detaches (``setsid``, a double fork, its parent's exit), and reaps those orphans as they
exit. It spawns COMMAND in a process group of its own with the environment it was itself given
(read back from ``/proc/self/environ``: Python may have coerced the locale into ``environ``),
sends the server's pid and a pidfd for it over CONTROL_FD (a Unix socket whose other end the
host keeps), and lets go of the server's stdio. Then it waits for one of: the server exits, the
host closes its end (a request to stop, or the host died: the kernel closes it then), or
SIGTERM (also sent by ``PR_SET_PDEATHSIG`` when the host's spawning thread ends). Then it stops
the whole tree — SIGTERM to every descendant, up to TERM_GRACE_S for them to exit, then SIGKILL
until no descendant is left — reaps everything and exits.
"""

from __future__ import annotations

import _socket
import ctypes
import os
import select
import sys
import time

# ``signal`` imports enum, which took a third of the shim's start; ``_signal`` has the same
# functions, with plain ints for signal numbers (typing is not imported either, for the same reason).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
else:
    import _signal as signal

# prctl(2) options and the status a spawn failure is reported with (as a shell would).
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_SPAWN_FAILED = 127
# Between sweeps, how long to wait for a SIGCHLD before looking at the tree again.
_SWEEP_POLL_S = 0.01
# Python ignores these at start-up; the server gets them at their default, as it would without
# the shim (subprocess resets them), and every other disposition as the host had it.
_PYTHON_IGNORES = (signal.SIGPIPE, signal.SIGXFSZ)


def main(argv: list[str]) -> int:
    control, grace, command = int(argv[1]), float(argv[2]), argv[3:]
    os.set_inheritable(control, False)
    wake = _signal_wakeups()
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    try:
        server = os.posix_spawnp(
            command[0], command, _given_environment(), setpgroup=0, setsigdef=_PYTHON_IGNORES
        )
    except (OSError, ValueError) as exc:
        os.write(2, f"toolpool: cannot start {command[0]}: {exc}\n".encode())
        return _SPAWN_FAILED
    _report(control, server)
    _let_go_of_stdio()
    _wait_for_stop(control, wake, server)
    _stop_tree(wake, grace)
    return 0


def _prctl(option: int, value: int) -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


_stop_signalled = False


def _on_sigterm(signum: int, frame: object) -> None:
    global _stop_signalled
    _stop_signalled = True


def _signal_wakeups() -> int:
    """A pipe that gets a byte whenever SIGCHLD or SIGTERM arrives; its read end."""
    read_end, write_end = os.pipe()
    for end in (read_end, write_end):
        os.set_blocking(end, False)
    signal.set_wakeup_fd(write_end)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, _on_sigterm)
    return read_end


def _given_environment() -> dict[bytes, bytes]:
    """The environment this process was started with, as the kernel recorded it."""
    with open("/proc/self/environ", "rb") as environ:
        entries = environ.read().split(b"\0")
    return dict(entry.partition(b"=")[::2] for entry in entries if entry)


def _report(control: int, server: int) -> None:
    """Send the server's pid, and a pidfd for it where the kernel has them (Linux 5.3)."""
    try:
        pidfd: int | None = os.pidfd_open(server)
    except OSError:
        pidfd = None
    fds = (
        [] if pidfd is None else [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))]
    )
    channel = _socket.socket(fileno=os.dup(control))
    try:
        channel.sendmsg([b"%d\n" % server], fds)
    except OSError:
        pass  # the host is already gone: its end's EOF stops everything below
    finally:
        channel.close()
        if pidfd is not None:
            os.close(pidfd)


def _let_go_of_stdio() -> None:
    # So that the host sees EOF on the server's pipes as soon as the server's side closes.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _wait_for_stop(control: int, wake: int, server: int) -> None:
    poller = select.poll()
    poller.register(control, select.POLLIN)
    poller.register(wake, select.POLLIN)
    while True:
        for fd, _ in poller.poll():
            if fd == wake:
                _drain(wake)
            elif not os.read(control, 64):
                return  # EOF: the host asked to stop, or is gone
        if server in _reap() or _stop_signalled:
            return


def _stop_tree(wake: int, grace: float) -> None:
    """SIGTERM to every descendant, a grace, then SIGKILL until none is left; all reaped."""
    deadline = time.monotonic() + grace
    _signal_all(_descendants(), signal.SIGTERM)
    while _descendants() and time.monotonic() < deadline:
        _pause(wake)
    while left := _descendants():
        _signal_all(left, signal.SIGKILL)
        _pause(wake)


def _pause(wake: int) -> None:
    select.select([wake], [], [], _SWEEP_POLL_S)
    _drain(wake)
    _reap()


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:  # noqa: SIM105 - importing contextlib would slow the shim's start
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def _reap() -> set[int]:
    """Reap every child that has exited (the server, or an orphan handed to us)."""
    reaped: set[int] = set()
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.add(pid)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def descendants_by_children(root: int) -> list[int]:
    """Every process below ``root``, zombies included, through ``/proc/PID/task/TID/children``."""
    found: list[int] = []
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children", "rb") as children:
                    below = [int(child) for child in children.read().split()]
            except OSError:
                continue
            found += below
            frontier += below
    return found


def descendants_by_scan(root: int) -> list[int]:
    """The same, from every process's parent in ``/proc/PID/stat`` (kernels without the above)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(parent, []).append(int(entry))
    found: list[int] = []
    frontier = [root]
    while frontier:
        below = parents.get(frontier.pop(), [])
        found += below
        frontier += below
    return found


def _descendants() -> list[int]:
    return _DESCENDANTS(os.getpid())


# CONFIG_PROC_CHILDREN is set on the common distributions' kernels; the scan is the fallback.
_DESCENDANTS = (
    descendants_by_children
    if os.path.exists(f"/proc/self/task/{os.getpid()}/children")
    else descendants_by_scan
)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
