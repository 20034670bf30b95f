"""Section 3: connect + vet of 1,000 tools, ``pool.connect`` versus the bare SDK client.

Both arms start ``python -m toolpool.demo paged --tools 1000 --page-size 100`` in the same era
and read all ten pages (the second page's cursor is the empty string). ``pool.connect`` also
vets every tool and admits them; the bare SDK client only lists. Runs alternate between the
arms; closing is not timed. ``vet()`` is also timed alone, in-process, on the same 1,000
published tools, so the part of the difference that is vetting is visible by itself.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import mcp_types
from mcp import Client, StdioServerParameters

from _configs import EXACT_ENV, demo_args, paged_server, sdk_command, write_config
from toolpool import Config, Pool, PublishedTool
from toolpool.vetting import PassingScreener, vet

__all__ = ["TOOLS", "measure_connect"]

ALIAS = "bench_paged"
TOOLS = 1_000
PAGE_SIZE = 100
_VET_REPEATS = 7


async def measure_connect(folder: Path, era: str, runs: int) -> dict[str, Any]:
    config = write_config(folder, paged_server(ALIAS, TOOLS, PAGE_SIZE, era))
    pool_s: list[float] = []
    sdk_s: list[float] = []
    published: list[mcp_types.Tool] = []
    async with Pool(config) as pool:
        for run in range(runs):
            for arm in ("pool", "sdk") if run % 2 == 0 else ("sdk", "pool"):
                if arm == "pool":
                    pool_s.append(await _pool_connect(pool))
                else:
                    seconds, published = await _sdk_connect_and_list(era)
                    sdk_s.append(seconds)
    vet_s, wire_s = _vet_alone(config, published)
    return {
        "tools": TOOLS,
        "page_size": PAGE_SIZE,
        "runs": runs,
        "pool_connect_s": _spread(pool_s),
        "sdk_connect_list_s": _spread(sdk_s),
        "difference_median_s": statistics.median(pool_s) - statistics.median(sdk_s),
        "ratio_median": statistics.median(pool_s) / statistics.median(sdk_s),
        "vet_alone_s": vet_s,
        "from_wire_alone_s": wire_s,
    }


async def _pool_connect(pool: Pool) -> float:
    start = time.perf_counter()
    await pool.connect(ALIAS)
    seconds = time.perf_counter() - start
    if len(pool.snapshot()) != TOOLS:
        raise RuntimeError(f"pool.connect exposed {len(pool.snapshot())} tools, not {TOOLS}")
    await pool.disconnect(ALIAS)
    return seconds


async def _sdk_connect_and_list(era: str) -> tuple[float, list[mcp_types.Tool]]:
    server = StdioServerParameters(
        command=sdk_command(),
        args=demo_args("paged", "--tools", str(TOOLS), "--page-size", str(PAGE_SIZE)),
        env=dict(EXACT_ENV),
    )
    start = time.perf_counter()
    async with Client(server, mode=era, cache=None) as client:
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        while True:
            page = await client.session.list_tools(params=mcp_types.PaginatedRequestParams(cursor=cursor))
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:  # "" is a cursor, not the end
                break
        seconds = time.perf_counter() - start
    if len(tools) != TOOLS:
        raise RuntimeError(f"the SDK listed {len(tools)} tools, not {TOOLS}")
    return seconds, tools


def _vet_alone(config: Config, wire: list[mcp_types.Tool]) -> tuple[float, float]:
    spec = config.servers[ALIAS]
    vet_figures, wire_figures = [], []
    for _ in range(_VET_REPEATS):
        start = time.perf_counter()
        published = [PublishedTool.from_wire(tool) for tool in wire]
        converted = time.perf_counter()
        admission = vet(spec, published, config.pool, PassingScreener(), owner=object())
        vet_figures.append(time.perf_counter() - converted)
        wire_figures.append(converted - start)
        if len(admission.exposed) != TOOLS:
            raise RuntimeError("vet() did not expose every tool")
    return statistics.median(vet_figures), statistics.median(wire_figures)


def _spread(seconds: list[float]) -> dict[str, float]:
    return {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}
