"""Section 2: the cost of a snapshot at 10, 1,000 and 10,000 tools, through a real Pool.

For each size a pool connects the paged demo server publishing that many tools (its policy
names all of them). Then:

- steady state: ``pool.snapshot(ticket)`` and ``registry.snapshot()`` with nothing changed
  (expected O(1): a cached view, a stored object);
- first take after a change: a tool is disabled and enabled again (``ConfigEnablement``), so
  the next ``pool.snapshot`` rebuilds its view, with and without a ticket (O(n) by design);
- a registry change: ``Registry.admit`` and ``Registry.revoke`` of one more one-tool
  connection, on a registry holding the same n vetted tools (where the registry pays its O(n)).
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from pathlib import Path
from typing import Any, cast

from _configs import local_name, paged_server, paged_tool_names, write_config
from _timing import micro_ns
from toolpool import ConfigEnablement, ExposedTool, Pool, Ticket
from toolpool.registry import Registry
from toolpool.upstream import Link

__all__ = ["CHANGES", "SIZES", "STEADY_LOOPS", "STEADY_REPEATS", "measure_snapshots", "ratios"]

SIZES = (10, 1_000, 10_000)
ALIAS = "bench_paged"
_PAGE_SIZE = 500
STEADY_LOOPS = 20_000
STEADY_REPEATS = 9
CHANGES = 15


async def measure_snapshots(folder: Path, era: str, size: int) -> dict[str, Any]:
    settings = {"max_tools_per_server": max(2_000, size), "max_list_pages": max(100, size // _PAGE_SIZE + 1)}
    config = write_config(folder, paged_server(ALIAS, size, _PAGE_SIZE, era), pool=settings)
    enablement = ConfigEnablement(config)
    ticket = Ticket.allow("bench.*")
    async with Pool(config, enablement=enablement) as pool:
        started = time.perf_counter()
        await pool.connect(ALIAS)
        connect_s = time.perf_counter() - started
        tools = pool.snapshot(ticket).tools
        if len(tools) != size:
            raise RuntimeError(f"expected {size} tools in the snapshot, got {len(tools)}")

        def change() -> None:
            enablement.disable(ALIAS, paged_tool_names(size)[0])
            enablement.enable(ALIAS, paged_tool_names(size)[0])

        steady_pool = micro_ns(lambda: pool.snapshot(ticket), STEADY_LOOPS, STEADY_REPEATS)
        first_ticket = _first_after_change(change, lambda: pool.snapshot(ticket))
        first_plain = _first_after_change(change, pool.snapshot)
    return {
        "tools": size,
        "connect_s": connect_s,
        "pool_snapshot_ticket_steady_ns": statistics.median(steady_pool),
        "pool_snapshot_ticket_steady_min_ns": min(steady_pool),
        "pool_snapshot_ticket_first_after_change_us": statistics.median(first_ticket) / 1e3,
        "pool_snapshot_first_after_change_us": statistics.median(first_plain) / 1e3,
        **_registry_figures(tools),
    }


def ratios(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Each figure at the largest size divided by the same figure at the smallest."""
    small, large = rows[0], rows[-1]
    keys = [key for key in small if key.endswith(("_ns", "_us")) and not key.endswith("_min_ns")]
    return {key: large[key] / small[key] for key in keys}


def _registry_figures(tools: tuple[ExposedTool, ...]) -> dict[str, Any]:
    registry = Registry()
    registry.admit(tools[0].owner, tools)
    steady = micro_ns(registry.snapshot, STEADY_LOOPS, STEADY_REPEATS)
    admits: list[int] = []
    revokes: list[int] = []
    for round_number in range(CHANGES):
        owner = cast(Link, object())  # never called: only its identity matters to the registry
        extra = dataclasses.replace(
            tools[0], name=local_name("bench_extra", f"t{round_number}"), alias="bench_extra", owner=owner
        )
        start = time.perf_counter_ns()
        registry.admit(owner, (extra,))
        admitted = time.perf_counter_ns()
        registry.revoke(owner)
        admits.append(admitted - start)
        revokes.append(time.perf_counter_ns() - admitted)
    return {
        "registry_snapshot_steady_ns": statistics.median(steady),
        "registry_snapshot_steady_min_ns": min(steady),
        "registry_admit_one_us": statistics.median(admits) / 1e3,
        "registry_revoke_one_us": statistics.median(revokes) / 1e3,
    }


def _first_after_change(change: Any, take: Any) -> list[int]:
    figures = []
    for _ in range(CHANGES):
        change()
        start = time.perf_counter_ns()
        take()
        figures.append(time.perf_counter_ns() - start)
    return figures
