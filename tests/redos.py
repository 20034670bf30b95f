"""The hostile pattern and input shared by the ReDoS attack tests, and a loop-lag probe."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel

# Exponential in a backtracking engine: in Python's ``re`` 26 characters took 2 s and
# 31 take about a minute; a linear-time engine answers in microseconds.
HOSTILE = r"^(\w+\s?)*$"
ATTACK = "a" * 30 + "!"
LAG_LIMIT_S = 0.1  # the bound for a concurrent call's latency
_TICK_S = 0.002


def hostile_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {"q": {"type": "string", "pattern": HOSTILE}}}


@asynccontextmanager
async def loop_lag() -> AsyncIterator[list[float]]:
    """``[worst]``: the longest the loop kept a ticker task waiting beyond its sleep, counting
    at exit the gap still open (work that never yields leaves the ticker no turn to record)."""
    worst = [0.0]
    last = [time.perf_counter()]

    async def tick() -> None:
        while True:
            await anyio.sleep(_TICK_S)
            now = time.perf_counter()
            worst[0] = max(worst[0], now - last[0] - _TICK_S)
            last[0] = now

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(tick)
        await anyio.lowlevel.checkpoint()  # the ticker runs before the measured work starts
        last[0] = time.perf_counter()
        yield worst
        worst[0] = max(worst[0], time.perf_counter() - last[0] - _TICK_S)
        tasks.cancel_scope.cancel()


# Linear-time engines still cost about (program size x text length) steps when a pattern
# defeats their DFA (2^100 states here): a megabyte took 0.5 s in the Rust crate, on the loop.
DFA_HOSTILE = r"[ab]*a[ab]{100}c"


def dfa_attack(length: int) -> str:
    """``length`` random a/b characters (fixed seed): every position may start a match."""
    chooser = random.Random(12)  # noqa: S311  # a reproducible attack, not a secret
    return "".join(chooser.choice("ab") for _ in range(length))
