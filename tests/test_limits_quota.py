"""Quotas per principal per UTC period: calls and upstream wait time, counting only the calls
that reached the upstream, and seeded from the store's usage when a pool starts, so that a
restart does not reset them. Periods run on a virtual wall clock."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, demo_server
from tests.limit_helpers import SLEEP, WallClock, limits_config, slow_server, wait_of
from toolpool import Pool, Ticket

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ECHO = "mcp__demo_alpha__echo"
LOOKUP = "mcp__demo_alpha__lookup"
ANA = Ticket.allow("*", principal="ana")


async def test_a_quota_of_calls_refuses_until_its_period_ends_and_counts_only_calls_that_reached_the_upstream(
    tmp_path: Path,
) -> None:
    clock = WallClock()  # 10:30 UTC
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        principals={"ana": {"quota_calls": 3, "quota_period": "hour"}},
    )
    async with Pool(config, store=False, clock=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            ana = pool.session("ana", ANA)
            snapshot = ana.snapshot()
            refused_early = [
                (await ana.call(snapshot, ECHO, {"text": 1})).code,
                (
                    await pool.session("ana", Ticket.allow("other.*", principal="ana")).call(
                        snapshot, ECHO, {"text": "x"}
                    )
                ).code,
            ]
            assert refused_early == ["invalid_arguments", "denied"]
            ran = [
                (await ana.call(snapshot, ECHO, {"text": "a"})).code,
                (await ana.call(snapshot, LOOKUP, {"key": "k9"})).code,  # a remote error reached it too
                (await ana.call(snapshot, ECHO, {"text": "b"})).code,
            ]
            assert ran == ["ok", "mcp_remote_error", "ok"]
            over = await ana.call(snapshot, ECHO, {"text": "c"})
            assert over.code == "quota_exceeded" and over.meta is not None
            assert over.meta["quota"] == "calls"
            assert wait_of(over) == pytest.approx(1800)
            # Another principal has no quota; the next hour renews ana's.
            assert (await pool.call(pool.snapshot(), ECHO, {"text": "d"}, ticket=Ticket.allow("*"))).ok
            clock.advance(minutes=30)
            assert (await ana.call(ana.snapshot(), ECHO, {"text": "e"})).ok


async def test_a_quota_of_upstream_wait_time_refuses_once_spent(tmp_path: Path) -> None:
    config = limits_config(tmp_path, slow_server(), principals={"*": {"quota_wait_s": 0.2}})
    async with Pool(config, store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("slow")
            snapshot = pool.snapshot()
            first = await pool.call(snapshot, SLEEP, {"ms": 300}, ticket=Ticket.allow("*"))
            second = await pool.call(snapshot, SLEEP, {"ms": 0}, ticket=Ticket.allow("*"))
            assert first.ok and second.code == "quota_exceeded"
            assert second.meta is not None and second.meta["quota"] == "wait_s"
            assert 0 < wait_of(second) <= 86_400


@pytest.mark.parametrize("period", ["hour", "day", "month"])
async def test_a_quota_is_seeded_from_the_store_so_a_restart_does_not_reset_it(
    tmp_path: Path, period: str
) -> None:
    clock = WallClock()
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        principals={"ana": {"quota_calls": 3, "quota_period": period}},
    )
    async with Pool(config, clock=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            ana = pool.session("ana", ANA)
            snapshot = ana.snapshot()
            codes = [(await ana.call(snapshot, ECHO, {"text": text})).code for text in ("a", 2, "b")]
            assert codes == ["ok", "invalid_arguments", "ok"]
    async with Pool(config, clock=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            ana = pool.session("ana", ANA)
            snapshot = ana.snapshot()
            codes = [(await ana.call(snapshot, ECHO, {"text": "c"})).code for _ in range(2)]
            assert codes == ["ok", "quota_exceeded"]
    clock.advance(days=40)  # a new period of each kind
    async with Pool(config, clock=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            ana = pool.session("ana", ANA)
            assert (await ana.call(ana.snapshot(), ECHO, {"text": "d"})).ok
