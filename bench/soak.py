"""Soak: connect/call/close cycles over hostile servers; nothing may hang, leak or raise.

    .venv/bin/python bench/soak.py [--cycles N] [--seconds S] [--modes crash,hang,...] [--json]

Each cycle opens a ``Pool`` (with its SQLite store, as users run it; one alias per mode) on one
server of
``bench/_hostile.py`` (modes rotate: crash, hang, garbage, a 10 MB result, a SIGTERM-ignoring
server with a setsid double-forked grandchild, a slow one, a ReDoS schema, a server that writes
its secret into its own definition), connects, calls its tool once and closes the pool. Every
process of the hostile tree notes its pid in a folder of its cycle; after the pool closed, any
of them still alive is a leak. Bounded: ``--cycles`` in all and ``--seconds`` of wall time,
every cycle under ``fail_after``; only 127.0.0.1 is ever involved (stdio servers, a local file).

Prints per mode: cycles, hangs, unexpected exceptions (anything but toolpool's own errors),
leaked processes, the Envelope codes seen and the worst event-loop lag while the cycles ran (a
ticker every 10 ms: a blocked loop shows here); and overall: open descriptors and RSS of this
process before and after, warnings and unraisable exceptions, and every spelling of the secret
found in the store's files.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import signal
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from _report import Table, machine, render
from toolpool import Pool, Ticket, ToolpoolError, load_config
from toolpool.redaction import spellings

MODES = ("crash", "hang", "garbage", "big", "escape", "slow", "redos", "secret")
_HOSTILE = Path(__file__).resolve().parent / "_hostile.py"
_SECRET = 'p@ss word/"x"é-soak'  # noqa: S105  # a made-up secret, hard to spell on purpose
_BACKTRACKS = "a" * 30 + "!"
_CYCLE_S = 90.0  # generous: a cycle that reaches it is a hang, not a slow cycle
_TICK_S = 0.01
_KILL_S = 5.0


@dataclass
class _Mode:
    cycles: int = 0
    hangs: int = 0
    unexpected: list[str] = field(default_factory=list)
    leaked: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    worst_lag_ms: float = 0.0


def _config_text(mode: str, pids: Path, store: Path) -> str:
    env = '{ "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "soak_token" } }'
    return f"""
[pool]
store = "sqlite:///{store}"

[servers.{mode}]
transport = "stdio"
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(_HOSTILE))}, {json.dumps(mode)}, {json.dumps(str(pids))}]
env = {env}
era = "legacy"
call_timeout_s = {2 if mode in ("hang", "garbage") else 10}
connect_timeout_s = 20

[servers.{mode}.tools.poke]
action = "soak.poke"
effect = "read"
enabled = true
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state = stat.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _survivors(pids: Path) -> list[int]:
    return [int(note.name) for note in pids.iterdir() if _alive(int(note.name))]


def _kill(pids: list[int]) -> None:
    """The bench leaves nothing running, whatever toolpool did."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + _KILL_S
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def _cycle(mode: str, folder: Path, number: int, stats: _Mode) -> None:
    pids = folder / f"pids-{number}"
    pids.mkdir()
    config_path = folder / f"cycle-{number}.toml"
    config_path.write_text(_config_text(mode, pids, folder / "toolpool.db"), encoding="utf-8")
    arguments = {"text": _BACKTRACKS if mode == "redos" else "hello"}
    started = time.perf_counter()
    try:
        with anyio.fail_after(_CYCLE_S):
            async with Pool(load_config(config_path), secrets={"soak_token": _SECRET}) as pool:
                try:
                    await pool.connect(mode)
                except ToolpoolError as refused:
                    stats.outcomes[f"connect: {type(refused).__name__}"] += 1
                    return
                envelope = await pool.call(
                    pool.snapshot(), f"mcp__{mode}__poke", arguments, ticket=Ticket.allow("*")
                )
                stats.outcomes[envelope.code] += 1
    except TimeoutError:
        stats.hangs += 1
    except Exception as exc:  # the point: count what toolpool let through
        stats.unexpected.append(f"{type(exc).__name__}: {str(exc)[:120]}")
    finally:
        stats.cycles += 1
        stats.seconds += time.perf_counter() - started
        left = _survivors(pids)
        stats.leaked += len(left)
        _kill(left)


async def _ticker(lags: list[float]) -> None:
    last = time.perf_counter()
    while True:
        await anyio.sleep(_TICK_S)
        now = time.perf_counter()
        lags.append(now - last - _TICK_S)
        last = now


async def soak(modes: tuple[str, ...], cycles: int, seconds: float) -> dict[str, Any]:
    unraisable: list[str] = []
    sys.unraisablehook = lambda hook: unraisable.append(f"{hook.exc_type.__name__}: {hook.exc_value}")
    results = {mode: _Mode() for mode in modes}
    lags: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="toolpool-soak-") as name,
        warnings.catch_warnings(record=True) as seen,
    ):
        warnings.simplefilter("always")
        folder = Path(name)
        fds_before, rss_before = _fds(), _rss_kib()
        deadline = time.monotonic() + seconds
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_ticker, lags)
            for number in range(cycles):
                if time.monotonic() > deadline:
                    break
                mode = modes[number % len(modes)]
                mark = len(lags)
                await _cycle(mode, folder, number, results[mode])
                worst = 1000 * max(lags[mark:], default=0.0)
                results[mode].worst_lag_ms = max(results[mode].worst_lag_ms, worst)
            tasks.cancel_scope.cancel()
        gc.collect()
        report: dict[str, Any] = {
            "machine": machine(),
            "modes": {mode: _mode_report(stats) for mode, stats in results.items() if stats.cycles},
            "fds": [fds_before, _fds()],
            "rss_kib": [rss_before, _rss_kib()],
            "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in seen}),
            "unraisable": unraisable,
            "secret_in_store": _secret_in_store(folder),
        }
    return report


def _mode_report(stats: _Mode) -> dict[str, Any]:
    return {
        "cycles": stats.cycles,
        "hangs": stats.hangs,
        "unexpected": stats.unexpected,
        "leaked_processes": stats.leaked,
        "outcomes": dict(stats.outcomes),
        "seconds_per_cycle": stats.seconds / stats.cycles,
        "worst_loop_lag_ms": stats.worst_lag_ms,
    }


def _secret_in_store(folder: Path) -> list[str]:
    """Every spelling of the secret found in the store's database, WAL or shared memory."""
    data = b"".join(path.read_bytes() for path in folder.glob("toolpool.db*"))
    return sorted(form for form in spellings(_SECRET) if form.encode("utf-8") in data)


def _render(report: dict[str, Any], cycles: int, seconds: float) -> str:
    table = Table(
        f"soak: up to {cycles} cycles in {seconds:.0f} s, modes rotating",
        ["mode", "cycles", "hangs", "unexpected", "leaked", "outcomes", "s/cycle", "worst loop lag ms"],
    )
    for mode, row in report["modes"].items():
        outcomes = ", ".join(f"{code} {count}" for code, count in sorted(row["outcomes"].items()))
        table.rows.append(
            [
                mode,
                str(row["cycles"]),
                str(row["hangs"]),
                str(len(row["unexpected"])),
                str(row["leaked_processes"]),
                outcomes,
                f"{row['seconds_per_cycle']:.2f}",
                f"{row['worst_loop_lag_ms']:.0f}",
            ]
        )
    fds, rss = report["fds"], report["rss_kib"]
    lines = [
        render(table),
        f"open descriptors before / after: {fds[0]} / {fds[1]}",
        f"RSS before / after: {rss[0] / 1024:.1f} / {rss[1] / 1024:.1f} MiB",
        f"warnings: {report['warnings'] or 'none'}",
        f"unraisable exceptions: {report['unraisable'] or 'none'}",
        f"secret spellings in the store's files: {report['secret_in_store'] or 'none'}",
    ]
    for mode, row in report["modes"].items():
        lines += [f"unexpected in {mode}: {text}" for text in row["unexpected"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cycles", type=int, default=80, help="cycles in all (default 80)")
    parser.add_argument("--seconds", type=float, default=600.0, help="wall-time bound (default 600)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, from: " + ", ".join(MODES))
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    args = parser.parse_args(argv)
    modes = tuple(mode for mode in args.modes.split(",") if mode)
    unknown = sorted(set(modes) - set(MODES))
    if unknown or not modes:
        parser.error(f"unknown modes: {', '.join(unknown) or '(none given)'}")
    report = anyio.run(soak, modes, args.cycles, args.seconds)
    print(json.dumps(report, indent=2) if args.json else _render(report, args.cycles, args.seconds))
    clean = all(
        not row["hangs"] and not row["unexpected"] and not row["leaked_processes"]
        for row in report["modes"].values()
    )
    return 0 if clean and not report["secret_in_store"] and not report["unraisable"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
