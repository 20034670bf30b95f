"""``toolpool ARGS`` under cProfile, for ``bench/gateway.py --profile`` only.

    TOOLPOOL_BENCH_PROFILE=out.prof python bench/_profiled_serve.py serve --stdio --config ...

Runs the CLI in this process (as ``python -m toolpool`` would), profiling its main thread (the
event loop) only between a SIGUSR1 and the next SIGUSR2, which the bench sends around its timed
part (start-up and warm-up stay out); the profile is written to the file the variable names
when the CLI returns, raises or exits, so a graceful stop (stdin closed, SIGTERM) leaves it
complete. Other threads (stdin reader, anyio workers: store writes, stdout writes, token
lookups) are not profiled; each thread gets its Python name as its OS name (``comm``, 15
bytes), so the bench can report their CPU time by name from /proc.
"""

from __future__ import annotations

import cProfile
import ctypes
import os
import runpy
import signal
import sys
import threading

_VARIABLE = "TOOLPOOL_BENCH_PROFILE"
_PR_SET_NAME = 15  # prctl(2): the calling thread's name, as /proc/PID/task/TID/comm shows it


def _name_threads() -> None:
    """Every thread started from now on names itself after its Python name."""
    libc = ctypes.CDLL(None, use_errno=True)
    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def named(thread: threading.Thread) -> None:
        libc.prctl(_PR_SET_NAME, thread.name.encode()[:15], 0, 0, 0)
        bootstrap(thread)

    setattr(threading.Thread, "_bootstrap_inner", named)  # noqa: B010 - a private method


def main() -> None:
    target = os.environ.pop(_VARIABLE)
    _name_threads()
    sys.argv = ["toolpool", *sys.argv[1:]]
    profiler = cProfile.Profile()
    signal.signal(signal.SIGUSR1, lambda _signum, _frame: profiler.enable())
    signal.signal(signal.SIGUSR2, lambda _signum, _frame: profiler.disable())
    try:
        runpy.run_module("toolpool", run_name="__main__", alter_sys=True)
    finally:
        profiler.disable()
        profiler.dump_stats(target)


if __name__ == "__main__":
    main()
