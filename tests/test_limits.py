"""The limits gate in process: token buckets and concurrency caps per alias, tool and principal,
checked after the ticket and the arguments (a refused call spends nothing), all levels taken
at once, never queued. Buckets run on a virtual clock: no sleeps."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server
from tests.limit_helpers import ANY, SLEEP, Monotonic, codes, limits_config, slow_server, wait_of
from toolpool import Envelope, Pool, Ticket

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ECHO = "mcp__demo_alpha__echo"
LOOKUP = "mcp__demo_alpha__lookup"
TEXT = {"text": "hi"}


async def test_a_burst_over_the_alias_rate_is_rate_limited_and_runs_again_after_the_wait(
    tmp_path: Path,
) -> None:
    clock = Monotonic()
    config = limits_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS, rate="1/s", burst=3))
    async with Pool(config, store=False, monotonic=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            assert await codes(pool, ECHO, TEXT, 3) == ["ok"] * 3
            refused = await pool.call(pool.snapshot(), ECHO, TEXT, ticket=ANY)
            assert refused.code == "rate_limited" and refused.meta is not None
            assert wait_of(refused) == pytest.approx(1.0)
            assert refused.meta["limit"] == "alias" and refused.meta["kind"] == "rate"
            # The other tools of the alias share its bucket.
            assert await codes(pool, LOOKUP, {"key": "k1"}, 1) == ["rate_limited"]
            clock.now += wait_of(refused)
            assert await codes(pool, ECHO, TEXT, 2) == ["ok", "rate_limited"]


async def test_a_tool_rate_limits_that_tool_and_leaves_its_siblings_alone(tmp_path: Path) -> None:
    clock = Monotonic()
    tools = {**ALPHA_TOOLS, "echo": {**ALPHA_TOOLS["echo"], "rate": "2/min"}}
    config = limits_config(tmp_path, demo_server("demo_alpha", "alpha", tools))
    async with Pool(config, store=False, monotonic=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            assert await codes(pool, ECHO, TEXT, 2) == ["ok", "rate_limited"]
            refused = await pool.call(pool.snapshot(), ECHO, TEXT, ticket=ANY)
            assert refused.meta is not None and refused.meta["limit"] == "tool"
            assert wait_of(refused) == pytest.approx(30.0)
            assert await codes(pool, LOOKUP, {"key": "k1"}, 5) == ["ok"] * 5
            clock.now += 30
            assert await codes(pool, ECHO, TEXT, 2) == ["ok", "rate_limited"]


async def test_each_principal_has_its_own_bucket_and_star_is_everyone_elses(tmp_path: Path) -> None:
    clock = Monotonic()
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        principals={"ana": {"rate": "1/s", "burst": 2}, "*": {"rate": "1/min"}},
    )
    async with Pool(config, store=False, monotonic=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            ana, bob, eve = (
                pool.session(name, Ticket.allow("*", principal=name)) for name in ("ana", "bob", "eve")
            )
            ana_codes = [(await ana.call(ana.snapshot(), ECHO, TEXT)).code for _ in range(3)]
            bob_codes = [(await bob.call(bob.snapshot(), ECHO, TEXT)).code for _ in range(2)]
            eve_first = await eve.call(eve.snapshot(), ECHO, TEXT)
            assert ana_codes == ["ok", "ok", "rate_limited"]
            assert bob_codes == ["ok", "rate_limited"]  # bob and eve each get "*"'s own bucket
            assert eve_first.code == "ok"
            refused = await ana.call(ana.snapshot(), ECHO, TEXT)
            assert refused.meta is not None and refused.meta["limit"] == "principal"
            clock.now += 1
            assert (await ana.call(ana.snapshot(), ECHO, TEXT)).code == "ok"
            assert (await bob.call(bob.snapshot(), ECHO, TEXT)).code == "rate_limited"
            clock.now += 60
            assert (await bob.call(bob.snapshot(), ECHO, TEXT)).code == "ok"


async def test_a_denied_or_invalid_call_spends_no_token(tmp_path: Path) -> None:
    clock = Monotonic()
    config = limits_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS, rate="1/min"))
    async with Pool(config, store=False, monotonic=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            snapshot = pool.snapshot()
            denied = await pool.call(snapshot, ECHO, TEXT, ticket=Ticket.allow("other.*"))
            invalid = await pool.call(snapshot, ECHO, {"text": 5}, ticket=ANY)
            unknown = await pool.call(snapshot, "mcp__demo_alpha__nothing", TEXT, ticket=ANY)
            assert (denied.code, invalid.code, unknown.code) == (
                "denied",
                "invalid_arguments",
                "unknown_tool",
            )
            assert await codes(pool, ECHO, TEXT, 2) == ["ok", "rate_limited"]


async def test_a_refusal_at_the_tool_level_does_not_spend_the_alias_bucket(tmp_path: Path) -> None:
    clock = Monotonic()
    tools = {**ALPHA_TOOLS, "echo": {**ALPHA_TOOLS["echo"], "rate": "1/min"}}
    config = limits_config(tmp_path, demo_server("demo_alpha", "alpha", tools, rate="1/min", burst=3))
    async with Pool(config, store=False, monotonic=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            assert await codes(pool, ECHO, TEXT, 4) == ["ok"] + ["rate_limited"] * 3
            # Only the one call that ran took from the alias's bucket of 3.
            assert await codes(pool, LOOKUP, {"key": "k1"}, 3) == ["ok", "ok", "rate_limited"]


async def test_the_pool_limits_apply_to_each_alias_that_sets_none_separately(tmp_path: Path) -> None:
    clock = Monotonic()
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", BETA_TOOLS, rate="10/min", burst=3),
        pool={"rate": "1/min"},
    )
    async with Pool(config, store=False, monotonic=clock) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await pool.connect("demo_beta")
            assert await codes(pool, ECHO, TEXT, 2) == ["ok", "rate_limited"]
            assert await codes(pool, "mcp__demo_beta__lookup", {"key": "k1"}, 4) == ["ok"] * 3 + [
                "rate_limited"
            ]


async def test_a_concurrency_cap_holds_with_fifty_concurrent_callers_and_queues_none(tmp_path: Path) -> None:
    cap = 4
    config = limits_config(tmp_path, slow_server(max_concurrent_calls=cap))
    results: list[Envelope] = []
    async with Pool(config, store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("slow")
            snapshot = pool.snapshot()

            async def caller() -> None:
                results.append(await pool.call(snapshot, SLEEP, {"ms": 1500}, ticket=ANY))

            async with anyio.create_task_group() as callers:
                for _ in range(50):
                    callers.start_soon(caller)
            ran = [envelope for envelope in results if envelope.ok]
            refused = [envelope for envelope in results if not envelope.ok]
            assert len(ran) == cap and len(refused) == 50 - cap
            assert {envelope.code for envelope in refused} == {"rate_limited"}
            assert all(
                envelope.meta is not None and envelope.meta["kind"] == "concurrency" for envelope in refused
            )
            assert min(wait_of(envelope) for envelope in refused) > 0
            assert max(json.loads(envelope.text)["peak"] for envelope in ran) <= cap
            # The slots were given back: a new round runs again, and the wait now follows
            # the alias's recent call time.
            again = await pool.call(snapshot, SLEEP, {"ms": 0}, ticket=ANY)
            assert again.ok


async def test_a_cancelled_call_gives_its_concurrency_slot_back(tmp_path: Path) -> None:
    config = limits_config(tmp_path, slow_server(max_concurrent_calls=1, call_timeout_s=30))
    async with Pool(config, store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("slow")
            snapshot = pool.snapshot()
            with anyio.move_on_after(0.5):
                await pool.call(snapshot, SLEEP, {"ms": 20_000}, ticket=ANY)
            assert (await pool.call(snapshot, SLEEP, {"ms": 0}, ticket=ANY)).ok
