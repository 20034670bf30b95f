"""Section 3: connect + vet of 1,000 tools, ``pool.connect`` versus the bare SDK client.

Every arm starts ``python -m toolpool.demo paged --tools 1000 --page-size 100`` in the same era
and reads all ten pages (the second page's cursor is the empty string):

- ``sdk``: the SDK ``Client`` on its own stdio transport: spawn, (handshake), list all pages;
- ``session``: toolpool's ``open_session`` + ``UpstreamSession.list_tools``, no vetting
  (attribution only: toolpool's transport and paging without ``vet``);
- ``pool``: ``pool.connect``: the same, then ``vet`` every tool and admit them.

The arms' order rotates from run to run; closing is not timed. Besides wall time, this
process's CPU time per connect is recorded (the child's startup is not in it), and ``vet()``
is timed alone, in-process, on the same 1,000 published tools.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import mcp_types
from mcp import Client, StdioServerParameters

from _configs import CALL_TIMEOUT_S, EXACT_ENV, demo_args, paged_server, sdk_command, write_config
from toolpool import Config, Pool, PublishedTool
from toolpool.upstream import Era, Link, StdioLaunch, open_session
from toolpool.vetting import PassingScreener, vet

__all__ = ["TOOLS", "measure_connect"]

ALIAS = "bench_paged"
TOOLS = 1_000
PAGE_SIZE = 100
_VET_REPEATS = 7
_CONNECT_TIMEOUT_S = 60.0

Timed = tuple[float, float]  # wall seconds, CPU seconds of this process


class _Stopwatch:
    def __init__(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def stop(self) -> Timed:
        return time.perf_counter() - self._wall, time.process_time() - self._cpu


async def measure_connect(folder: Path, era: str, runs: int) -> dict[str, Any]:
    config = write_config(folder, paged_server(ALIAS, TOOLS, PAGE_SIZE, era))
    published: list[mcp_types.Tool] = []
    figures: dict[str, list[Timed]] = {"sdk": [], "session": [], "pool": []}

    async def sdk() -> Timed:
        nonlocal published
        timed, published = await _sdk_connect_and_list(era)
        return timed

    async with Pool(config) as pool:
        arms: dict[str, Callable[[], Awaitable[Timed]]] = {
            "sdk": sdk,
            "session": lambda: _session_connect_and_list(config, era),
            "pool": lambda: _pool_connect(pool),
        }
        names = list(arms)
        for run in range(runs):
            shift = run % len(names)
            for name in names[shift:] + names[:shift]:
                gc.collect()  # so that no arm pays for the garbage of another
                figures[name].append(await arms[name]())
    vet_s, wire_s = _vet_alone(config, published)
    result: dict[str, Any] = {"tools": TOOLS, "page_size": PAGE_SIZE, "runs": runs}
    result.update({f"{name}_s": _spread(timed) for name, timed in figures.items()})
    result["vet_alone_s"], result["from_wire_alone_s"] = vet_s, wire_s
    return result


async def _pool_connect(pool: Pool) -> Timed:
    clock = _Stopwatch()
    await pool.connect(ALIAS)
    timed = clock.stop()
    if len(pool.snapshot()) != TOOLS:
        raise RuntimeError(f"pool.connect exposed {len(pool.snapshot())} tools, not {TOOLS}")
    await pool.disconnect(ALIAS)
    return timed


async def _sdk_connect_and_list(era: str) -> tuple[Timed, list[mcp_types.Tool]]:
    args = demo_args("paged", "--tools", str(TOOLS), "--page-size", str(PAGE_SIZE))
    server = StdioServerParameters(command=sdk_command(), args=args, env=dict(EXACT_ENV))
    clock = _Stopwatch()
    async with Client(server, mode=era, cache=None) as client:
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        while True:
            params = mcp_types.PaginatedRequestParams(cursor=cursor)
            page = await client.session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:  # "" is a cursor, not the end
                break
        timed = clock.stop()
    if len(tools) != TOOLS:
        raise RuntimeError(f"the SDK listed {len(tools)} tools, not {TOOLS}")
    return timed, tools


async def _session_connect_and_list(config: Config, era: str) -> Timed:
    spec = config.servers[ALIAS]
    launch = StdioLaunch(command="python", args=spec.args, env=EXACT_ENV, cwd=None)
    settings = config.pool
    clock = _Stopwatch()
    async with open_session(ALIAS, launch, Era(era), _CONNECT_TIMEOUT_S) as session:
        tools = await session.list_tools(
            CALL_TIMEOUT_S, settings.max_list_pages, settings.max_tools_per_server
        )
        timed = clock.stop()
    if len(tools) != TOOLS:
        raise RuntimeError(f"toolpool's session listed {len(tools)} tools, not {TOOLS}")
    return timed


def _vet_alone(config: Config, wire: list[mcp_types.Tool]) -> tuple[float, float]:
    spec = config.servers[ALIAS]
    vet_figures, wire_figures = [], []
    for _ in range(_VET_REPEATS):
        start = time.perf_counter()
        published = [PublishedTool.from_wire(tool) for tool in wire]
        converted = time.perf_counter()
        admission = vet(
            spec, published, config.pool, PassingScreener(), owner=cast(Link, object())
        )  # never called
        vet_figures.append(time.perf_counter() - converted)
        wire_figures.append(converted - start)
        if len(admission.exposed) != TOOLS:
            raise RuntimeError("vet() did not expose every tool")
    return statistics.median(vet_figures), statistics.median(wire_figures)


def _spread(timed: list[Timed]) -> dict[str, float]:
    walls = [wall for wall, _ in timed]
    return {
        "median": statistics.median(walls),
        "min": min(walls),
        "max": max(walls),
        "cpu_median": statistics.median(cpu for _, cpu in timed),
    }
