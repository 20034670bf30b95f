"""What the limits gate costs per call: in process and with Redis, against no limits, in one run.

Two sections, each interleaving its arms in blocks (the machine is noisy):

1. **The check alone**: ``Limits.admit`` and the permit's release, the gate's whole work, in
   a loop: ``none`` (a configuration without limits: the fast path every pool without limits
   takes), ``memory`` (in process) and ``redis`` (one Lua round trip to take, one to give
   back), each with a rate and a concurrency cap on the alias, a rate on the tool, and a rate
   and a quota on the principal — none of them ever refuses.
2. **Whole calls**: ``pool.call`` of the ``alpha`` demo's ``echo`` over stdio, with the same
   three configurations.

Redis is the machine's (``--redis``, default ``redis://127.0.0.1:6379/15``); its database is
flushed before and after. Run ``python bench/limits.py`` (``--json`` for one JSON document).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import redis.asyncio

from _configs import alpha_server, local_name
from _timing import Arm, AsyncCall, interleave, summary
from toolpool import Config, Pool, Ticket, load_config
from toolpool.calls import Envelope, Limits, RedisState

ALIAS = "bench_alpha"
TOOL = "echo"
NAME = local_name(ALIAS, TOOL)
_NEVER_REFUSES_RATE = 'rate = "1000000/s"\nburst = 1000000000\n'
_ARMS = ("none", "memory", "redis")


def _config(folder: Path, arm: str, redis_url: str) -> Config:
    """``alpha`` with no limits, or with limits on every level (in Redis for ``redis``)."""
    folder.mkdir(parents=True, exist_ok=True)
    server = alpha_server(ALIAS, "2026-07-28")
    pool = f'[pool]\nredis = "{redis_url}"\n' if arm == "redis" else "[pool]\n"
    principals = ""
    if arm != "none":
        server = server.replace(
            f"[servers.{ALIAS}]\n", f"[servers.{ALIAS}]\n{_NEVER_REFUSES_RATE}max_concurrent_calls = 1000\n"
        )
        server = server.replace(
            f'[servers.{ALIAS}.tools."{TOOL}"]\n', f'[servers.{ALIAS}.tools."{TOOL}"]\n{_NEVER_REFUSES_RATE}'
        )
        principals = f'\n[principals."*"]\n{_NEVER_REFUSES_RATE}quota_calls = 1000000000\n'
    path = folder / "toolpool.toml"
    path.write_text(pool + "\n" + server + principals, encoding="utf-8")
    return load_config(path)


def _check(limits: Limits) -> AsyncCall:
    async def call() -> None:
        permit = await limits.admit(ALIAS, TOOL, NAME, "pool")
        if isinstance(permit, Envelope):
            raise AssertionError(f"refused: {permit.code}")
        async with permit:
            permit.reached()

    return call


def _whole(pool: Pool) -> AsyncCall:
    snapshot = pool.snapshot()
    ticket = Ticket.allow("*")

    async def call() -> None:
        envelope = await pool.call(snapshot, NAME, {"text": "hello"}, ticket=ticket)
        if not envelope.ok:
            raise AssertionError(f"call failed: {envelope.code}")

    return call


def _report(title: str, results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    base = results["none"]["median_us"]
    for arm in _ARMS:
        results[arm]["ratio_to_none"] = results[arm]["median_us"] / base
        results[arm]["added_us"] = results[arm]["median_us"] - base
    return {"section": title, "arms": results}


async def measure(folder: Path, redis_url: str, calls: int, block: int) -> list[dict[str, Any]]:
    flusher = redis.asyncio.Redis.from_url(redis_url)
    await flusher.flushdb()
    sections = []
    try:
        async with AsyncExitStack() as stack:
            configs = {arm: _config(folder / arm, arm, redis_url) for arm in _ARMS}
            checks = []
            pools = []
            for arm in _ARMS:
                state = RedisState(redis_url, _no_event, time.monotonic) if arm == "redis" else None
                limits = Limits(configs[arm], state, clock=_utcnow, monotonic=time.monotonic)
                stack.push_async_callback(limits.aclose)
                checks.append(Arm(arm, f"limit check ({arm})", _check(limits)))
                pool = await stack.enter_async_context(Pool(configs[arm], store=False))
                await pool.connect(ALIAS)
                pools.append(Arm(arm, f"pool.call ({arm})", _whole(pool)))
            samples = await interleave(checks, calls * 5, block, warmup=200)
            sections.append(_report("1. the check alone", {arm: summary(s) for arm, s in samples.items()}))
            samples = await interleave(pools, calls, block, warmup=50)
            sections.append(_report("2. whole calls", {arm: summary(s) for arm, s in samples.items()}))
    finally:
        await flusher.flushdb()
        await flusher.aclose()
    return sections


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _no_event(kind: str, detail: Mapping[str, object]) -> None:
    raise AssertionError(f"Redis failed during the bench: {kind}")


def _print(sections: list[dict[str, Any]]) -> None:
    for section in sections:
        print(f"\n{section['section']}")
        print(f"  {'arm':<8} {'median µs':>10} {'p90 µs':>10} {'cpu µs':>10} {'+µs':>9} {'÷ none':>8}")
        for arm, row in section["arms"].items():
            print(
                f"  {arm:<8} {row['median_us']:>10.1f} {row['p90_us']:>10.1f} {row['cpu_us_per_call']:>10.1f}"
                f" {row['added_us']:>9.1f} {row['ratio_to_none']:>8.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=2000, help="timed whole calls per arm (the check: 5x)")
    parser.add_argument("--block", type=int, default=100)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-limits-") as folder:
        sections = anyio.run(measure, Path(folder), options.redis, options.calls, options.block)
    if options.json:
        json.dump(sections, sys.stdout, indent=2)
        print()
    else:
        _print(sections)


if __name__ == "__main__":
    main()
