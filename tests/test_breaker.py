"""Gate 7: a circuit breaker per alias — failures open it, a cooldown, one probe, and no
alias's breaker ever affects another's. Time is a virtual clock: no sleeps."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, FAULTY_TOOLS, demo_server, write_config
from toolpool import BreakerState, Pool, Ticket
from toolpool.calls import CircuitBreaker

pytestmark = pytest.mark.anyio

ANY = Ticket.allow("*")


class VirtualClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_after_consecutive_failures_and_lets_one_probe_through() -> None:
    clock = VirtualClock()
    breaker = CircuitBreaker(threshold=3, cooldown_s=30, clock=clock)
    for _ in range(2):
        assert breaker.admit()
        breaker.failed()
    breaker.succeeded()  # a success resets the count
    for _ in range(3):
        assert breaker.admit()
        breaker.failed()
    assert breaker.state is BreakerState.OPEN and not breaker.admit()
    clock.now += 29.9
    assert not breaker.admit() and breaker.retry_in() == pytest.approx(0.1)
    clock.now += 0.1
    assert breaker.admit() and breaker.state is BreakerState.HALF_OPEN
    assert not breaker.admit()  # only one probe at a time
    breaker.failed()
    assert breaker.state is BreakerState.OPEN  # a failed probe re-opens at once
    clock.now += 30
    assert breaker.admit()
    breaker.succeeded()
    assert breaker.state is BreakerState.CLOSED and breaker.admit()


def test_an_abandoned_probe_does_not_leave_the_breaker_stuck_half_open() -> None:
    clock = VirtualClock()
    breaker = CircuitBreaker(threshold=1, cooldown_s=5, clock=clock)
    breaker.failed()
    clock.now += 5
    assert breaker.admit()
    breaker.abandoned()
    assert breaker.state is BreakerState.OPEN
    clock.now += 5
    assert breaker.admit()


async def test_repeated_failures_open_one_alias_and_leave_the_other_alone(tmp_path: Path) -> None:
    clock = VirtualClock()
    config = write_config(
        tmp_path,
        demo_server("faulty", "faulty", FAULTY_TOOLS, breaker_failures=3, breaker_cooldown_s=60),
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
    )
    async with Pool(config, monotonic=clock) as pool:
        with anyio.fail_after(60):
            await pool.connect("faulty")
            await pool.connect("demo_alpha")
            snapshot = pool.snapshot()
            codes = [(await pool.call(snapshot, "mcp__faulty__fail", {}, ticket=ANY)).code for _ in range(4)]
            fast = await pool.call(snapshot, "mcp__faulty__ok", {}, ticket=ANY)
            alpha = await pool.call(snapshot, "mcp__demo_alpha__echo", {"text": "still here"}, ticket=ANY)
            assert pool.circuit("faulty") is BreakerState.OPEN
            assert pool.circuit("demo_alpha") is BreakerState.CLOSED
            clock.now += 60
            probe = await pool.call(snapshot, "mcp__faulty__ok", {}, ticket=ANY)
            assert pool.circuit("faulty") is BreakerState.CLOSED
    assert codes == ["mcp_remote_error"] * 3 + ["circuit_open"]
    assert fast.code == "circuit_open" and "retry in 60 s" in fast.text
    assert (alpha.code, alpha.text) == ("ok", "still here")
    assert probe.code == "ok"
