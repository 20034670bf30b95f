"""What bench/gateway.py measures on connected arms: sequential latency, and HTTP throughput.

Sequential (one client per arm): ``tools/call echo`` and ``tools/list``, interleaved in blocks
with the arms' order rotating every round (``_timing.interleave``). Throughput (N clients per
arm over HTTP): timed windows, one arm at a time, the order rotating every round; in a window
every client calls in a loop until the window's end, and a call started before the end is
awaited and counted, so calls/s = calls ÷ (first start → last end).

Besides wall time: this process's CPU (the client side) and the CPU of each server process
(proxy, upstream) per call, read from /proc around the timed part only.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from _gateway_arms import TEXT, WAIT_S, Target, text_of
from _procs import cpu_seconds
from _timing import Arm, AsyncCall, interleave, percentile

__all__ = ["NO_MARK", "Mark", "sequential", "throughput"]

Mark = Callable[[bool], None]
"""Told True right before the timed calls and False right after (``--profile`` uses it)."""

_ARGUMENTS = {"text": TEXT}
_LISTED = 3  # alpha publishes lookup, echo, process_info; the configuration allows all three
_SETTLE_S = 0.2  # between throughput windows: a server's deferred work (audit writes) drains


def _call(target: Target, index: int = 0) -> AsyncCall:
    session, tool = target.sessions[index], target.tool

    async def call() -> None:
        result = await session.call_tool(tool, _ARGUMENTS, read_timeout_seconds=WAIT_S)
        if result.is_error or TEXT not in text_of(result):
            raise RuntimeError(f"{target.name}: echo failed: {result}")

    return call


def _list(target: Target) -> AsyncCall:
    session = target.sessions[0]

    async def call() -> None:
        listed = await session.list_tools()
        if len(listed.tools) != _LISTED:
            raise RuntimeError(f"{target.name}: tools/list gave {len(listed.tools)} tools")

    return call


_PARTS = ("client", "proxy", "proxy_main", "upstream")


class _Cpu:
    """CPU seconds used since it was made: by this process (the clients), by the proxy, by the
    proxy's main thread (its event loop; the rest is its other threads), by the upstream."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self._start = self._now()

    def _now(self) -> tuple[float, ...]:
        proxy = self._target.proxy
        return (
            time.process_time(),
            0.0 if proxy is None else cpu_seconds(proxy),
            0.0 if proxy is None else cpu_seconds(proxy, main_thread=True),
            cpu_seconds(self._target.upstream),
        )

    def used(self) -> tuple[float, ...]:
        return tuple(now - start for now, start in zip(self._now(), self._start, strict=True))


def _cpu_per_call(used: Sequence[float], calls: int) -> dict[str, float]:
    return {f"{part}_cpu_us": seconds * 1e6 / calls for part, seconds in zip(_PARTS, used, strict=True)}


def _latency(wall_ns: Sequence[int], block: int) -> dict[str, Any]:
    medians = [statistics.median(wall_ns[i : i + block]) / 1e3 for i in range(0, len(wall_ns), block)]
    return {
        "n": len(wall_ns),
        "median_us": statistics.median(wall_ns) / 1e3,
        "p95_us": percentile(wall_ns, 95) / 1e3,
        "block_median_min_us": min(medians),
        "block_median_max_us": max(medians),
    }


def _no_mark(_on: bool) -> None:
    pass


NO_MARK: Mark = _no_mark


async def sequential(
    targets: Sequence[Target], calls: int, lists: int, warmup: int, mark: Mark = NO_MARK
) -> dict[str, Any]:
    """Per arm: latency of ``tools/call`` and of ``tools/list``, and CPU per request."""
    results: dict[str, Any] = {}
    for kind, count, make in (("call", calls, _call), ("list", lists, _list)):
        arms = [Arm(target.name, target.name, make(target)) for target in targets]
        for arm in arms:
            for _ in range(warmup):
                await arm.call()
        block = max(10, min(100, count // 10))
        meters = {target.name: _Cpu(target) for target in targets}
        mark(kind == "call")
        samples = await interleave(arms, count, block, warmup=0)
        mark(False)
        arms_figures = {}
        for target in targets:
            timed = samples[target.name]
            # This process ran every arm meanwhile: its CPU per call comes from the arm's blocks.
            client = statistics.median(timed.cpu_ns_per_call) / 1e9 * count
            _, *servers = meters[target.name].used()
            arms_figures[target.name] = _latency(timed.wall_ns, block) | _cpu_per_call(
                (client, *servers), count
            )
        results[kind] = {"block": block, "arms": arms_figures}
    return results


@dataclass
class _Window:
    calls: int = 0
    wall_ns: list[int] = field(default_factory=list)


async def _window(target: Target, seconds: float, window: _Window) -> float:
    """Every client of ``target`` calling in a loop for ``seconds``, into ``window``: elapsed s."""
    start = time.perf_counter_ns()
    deadline = start + int(seconds * 1e9)

    async def client(index: int) -> None:
        call = _call(target, index)
        while (began := time.perf_counter_ns()) < deadline:
            await call()
            window.wall_ns.append(time.perf_counter_ns() - began)
            window.calls += 1

    with anyio.fail_after(seconds + WAIT_S):
        async with anyio.create_task_group() as tasks:
            for index in range(len(target.sessions)):
                tasks.start_soon(client, index)
    return (time.perf_counter_ns() - start) / 1e9


async def throughput(
    targets: Sequence[Target], seconds: float, rounds: int, warmup: int, mark: Mark = NO_MARK
) -> dict[str, Any]:
    """Per arm: calls/s of all clients together, per round (median, min, max) and CPU per call."""
    for target in targets:
        for index in range(len(target.sessions)):
            for _ in range(warmup):
                await _call(target, index)()
    rates: dict[str, list[float]] = {target.name: [] for target in targets}
    windows = {target.name: _Window() for target in targets}  # all rounds of an arm together
    used = {target.name: [0.0] * len(_PARTS) for target in targets}  # CPU seconds
    mark(True)
    for round_number in range(rounds):
        shift = round_number % len(targets)
        for target in (*targets[shift:], *targets[:shift]):
            await anyio.sleep(_SETTLE_S)
            meter, before = _Cpu(target), windows[target.name].calls
            elapsed = await _window(target, seconds, windows[target.name])
            rates[target.name].append((windows[target.name].calls - before) / elapsed)
            used[target.name] = [a + b for a, b in zip(used[target.name], meter.used(), strict=True)]
    mark(False)
    return {
        "clients": len(targets[0].sessions),
        "seconds": seconds,
        "rounds": rounds,
        "arms": {name: _rate(values, windows[name], used[name]) for name, values in rates.items()},
    }


def _rate(rates: Sequence[float], window: _Window, used: Sequence[float]) -> dict[str, Any]:
    return {
        "calls": window.calls,
        "calls_per_s": statistics.median(rates),
        "calls_per_s_min": min(rates),
        "calls_per_s_max": max(rates),
        "median_us": statistics.median(window.wall_ns) / 1e3,
        "p95_us": percentile(window.wall_ns, 95) / 1e3,
    } | _cpu_per_call(used, window.calls)
