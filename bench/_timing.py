"""Timing helpers: interleaved rounds of async arms, percentiles, micro-benchmark loops."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Arm", "ArmSamples", "interleave", "micro_ns", "percentile", "summary"]

AsyncCall = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Arm:
    """One way of doing the same thing; ``call`` does it once and checks the outcome."""

    name: str
    label: str
    call: AsyncCall


@dataclass(slots=True)
class ArmSamples:
    """Wall-clock time of every call (ns) and this process's CPU time per call of each block (ns)."""

    wall_ns: list[int] = field(default_factory=list)
    cpu_ns_per_call: list[float] = field(default_factory=list)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linearly interpolated between the closest ranks."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(samples: ArmSamples) -> dict[str, Any]:
    """Median and p90 of the wall-clock times and the median CPU per call, in microseconds."""
    return {
        "calls": len(samples.wall_ns),
        "median_us": statistics.median(samples.wall_ns) / 1e3,
        "p90_us": percentile(samples.wall_ns, 90) / 1e3,
        "cpu_us_per_call": statistics.median(samples.cpu_ns_per_call) / 1e3,
    }


async def interleave(arms: Sequence[Arm], calls: int, block: int, warmup: int) -> dict[str, ArmSamples]:
    """Run ``calls`` calls of every arm, in blocks of ``block``, the arms' order rotating
    from round to round, so that a noisy stretch of time hits every arm alike."""
    for arm in arms:
        for _ in range(warmup):
            await arm.call()
    samples = {arm.name: ArmSamples() for arm in arms}
    rounds = math.ceil(calls / block)
    for round_number in range(rounds):
        shift = round_number % len(arms)
        size = min(block, calls - round_number * block)
        for arm in (*arms[shift:], *arms[:shift]):
            await _block(arm, size, samples[arm.name])
    return samples


async def _block(arm: Arm, size: int, into: ArmSamples) -> None:
    call = arm.call
    cpu_start = time.process_time_ns()
    for _ in range(size):
        start = time.perf_counter_ns()
        await call()
        into.wall_ns.append(time.perf_counter_ns() - start)
    into.cpu_ns_per_call.append((time.process_time_ns() - cpu_start) / size)


def micro_ns(fn: Callable[[], object], loops: int, repeats: int) -> list[float]:
    """Nanoseconds per call of ``fn``, one figure per repeat of ``loops`` calls."""
    figures = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(loops):
            fn()
        figures.append((time.perf_counter_ns() - start) / loops)
    return figures
