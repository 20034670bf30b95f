"""``bench/gateway.py --profile DIR``: where a ``toolpool serve`` process spends its time.

Two views of the timed part only (``_profiled_serve.py`` profiles between SIGUSR1 and SIGUSR2):

- CPU time per call of each of its threads, by name, from /proc: the main thread (the event
  loop: the SDK's server and client, toolpool's gates), ``toolpool stdin`` (the stdio reader)
  and ``AnyIO worker thread`` (anyio's ``to_thread``: the SDK's stdout writes and toolpool's
  batched store writes);
- the main thread's cProfile, its own time summed by package (time blocked in ``epoll`` left
  out: that is waiting, not work), and toolpool's functions by cumulative time.

cProfile counts each resumption of a coroutine as a call and slows pure-Python code several
times over: read its figures as shares and a ranking, and the unprofiled run for timings.
"""

from __future__ import annotations

import io
import os
import pstats
import signal
from collections import Counter
from pathlib import Path

from _procs import thread_cpu
from _report import Table

__all__ = ["ThreadMeter", "package_table", "thread_table", "toolpool_functions"]

_POLL = "<method 'poll' of 'select.epoll' objects>"
_SHOWN = 14


class ThreadMeter:
    """A ``Mark`` for one profiled serve process: starts and stops its profiler and keeps the
    CPU time each of its threads used in each marked part."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._start: dict[str, float] | None = None
        self.parts: list[dict[str, float]] = []

    def __call__(self, on: bool) -> None:
        if on:
            os.kill(self._pid, signal.SIGUSR1)
            self._start = thread_cpu(self._pid)
        elif self._start is not None:
            now, start = thread_cpu(self._pid), self._start
            os.kill(self._pid, signal.SIGUSR2)
            self.parts.append({name: now[name] - start.get(name, 0.0) for name in now})
            self._start = None


def thread_table(title: str, used: dict[str, float], calls: int) -> Table:
    table = Table(title, ("thread", "CPU µs per call", "share"))
    total = sum(used.values())
    for name, seconds in sorted(used.items(), key=lambda item: -item[1]):
        table.rows.append((name, f"{seconds * 1e6 / calls:,.0f}", f"{seconds / total:.0%}" if total else ""))
    table.rows.append(("all threads", f"{total * 1e6 / calls:,.0f}", ""))
    return table


def _package(path: str, function: str) -> str:
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0]
    if "/src/toolpool/" in path:
        return "toolpool." + path.split("/src/toolpool/", 1)[1].split("/", 1)[0].removesuffix(".py")
    if path == "~":  # a built-in: name the interesting ones, lump the rest
        for key in ("posix.write", "_thread.lock", "sqlite3", "pydantic_core", "socket"):
            if key in function:
                return f"built-in: {key}"
        return "built-in: other"
    return "stdlib: " + Path(path).name


def package_table(profile: Path) -> Table:
    """The main thread's own time, by package, busy time only."""
    stats = pstats.Stats(str(profile))
    by: Counter[str] = Counter()
    for (path, _line, function), row in stats.stats.items():  # type: ignore[attr-defined]
        if function != _POLL:
            by[_package(path, function)] += row[2]
    busy = sum(by.values())
    table = Table(
        f"{profile.name}: main thread busy {busy:.2f} s (profiled), own time by package",
        ("package", "s", "share"),
    )
    for name, seconds in by.most_common(_SHOWN):
        table.rows.append((name, f"{seconds:.3f}", f"{seconds / busy:.1%}"))
    own = sum(seconds for name, seconds in by.items() if name.startswith("toolpool."))
    table.rows.append(("toolpool.* together", f"{own:.3f}", f"{own / busy:.1%}"))
    return table


def toolpool_functions(profile: Path) -> str:
    out = io.StringIO()
    stats = pstats.Stats(str(profile), stream=out)
    out.write(f"{profile.name}: toolpool's functions by cumulative time (ncalls counts resumptions)\n")
    stats.sort_stats("cumulative").print_stats("/src/toolpool/", _SHOWN)
    return out.getvalue()
