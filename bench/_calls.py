"""Section 1: sequential ``echo`` calls over stdio, bare SDK client versus ``pool.call``.

Three arms talk to three processes of the same demo server (``alpha``), all in one era:

- ``direct``: the SDK ``Client`` on the SDK's own stdio transport, ``session.call_tool``
  (the layer toolpool calls too), after one ``tools/list`` as toolpool does on connect;
- ``transport``: the same SDK ``Client`` on toolpool's own stdio transport (attribution only:
  it separates the transport's share of the overhead from the call pipeline's);
- ``pool``: ``pool.call`` through every gate (connected once, one snapshot, ``Ticket.allow("*")``).

The gate breakdown times, in-process and without I/O, the pure-Python pieces that ``pool.call``
adds around the SDK call, so the measured difference can be put down to them.
"""

from __future__ import annotations

import json
import statistics
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession

from _configs import CALL_TIMEOUT_S, EXACT_ENV, alpha_server, demo_args, local_name, sdk_command, write_config
from _timing import Arm, interleave, micro_ns, summary
from toolpool import Pool, Snapshot, Ticket, authorize
from toolpool.upstream import StdioLaunch, StdioTransport

__all__ = ["TEXT", "measure_calls", "measure_gates"]

ALIAS = "bench_alpha"
TEXT = "hello"
_ARGUMENTS = {"text": TEXT}
_MICRO_LOOPS = 20_000
_MICRO_REPEATS = 7


async def measure_calls(folder: Path, era: str, calls: int, block: int, warmup: int) -> dict[str, Any]:
    """Median and p90 wall time and CPU per call of each arm, and the pool/direct ratios."""
    config = write_config(folder, alpha_server(ALIAS, era))
    async with AsyncExitStack() as stack:
        direct = await _sdk_session(stack, StdioServerParameters(**_sdk_launch()), era)
        own_stdio = StdioTransport(
            StdioLaunch(command="python", args=demo_args("alpha"), env=EXACT_ENV, cwd=None)
        )
        transport = await _sdk_session(stack, own_stdio, era)
        pool = await stack.enter_async_context(Pool(config))
        await pool.connect(ALIAS)
        arms = (
            Arm("direct", "SDK Client, SDK stdio", _sdk_call(direct)),
            Arm("transport", "SDK Client, toolpool stdio", _sdk_call(transport)),
            Arm("pool", "pool.call", _pool_call(pool, pool.snapshot(), Ticket.allow("*"))),
        )
        samples = await interleave(arms, calls, block, warmup)
    figures = {arm.name: {"label": arm.label, **summary(samples[arm.name])} for arm in arms}
    return {"era": era, "arms": figures, "ratios": _ratios(figures)}


async def measure_gates(folder: Path, era: str) -> dict[str, Any]:
    """Nanoseconds per call of each pure-Python piece ``pool.call`` adds, and their sum."""
    config = write_config(folder, alpha_server(ALIAS, era))
    name = local_name(ALIAS, "echo")
    async with Pool(config) as pool:
        await pool.connect(ALIAS)
        snapshot = pool.snapshot()
        tool = snapshot.get(name)
        assert tool is not None
        ticket = Ticket.allow("*")
        pieces = {
            "gate 1: name in snapshot": lambda: snapshot.get(name),
            "gate 4: clock + authorize(ticket)": lambda: authorize(
                ticket, tool.action, None, datetime.now(UTC)
            ),
            "gate 5: argument size (json.dumps)": lambda: json.dumps(
                _ARGUMENTS, separators=(",", ":"), ensure_ascii=False, allow_nan=False
            ).encode(),
            "gate 5: schema (jsonschema is_valid)": lambda: tool.input.problems(_ARGUMENTS),
            "timeout scope (anyio.fail_after)": _timeout_scope,
        }
        figures = {
            label: statistics.median(micro_ns(fn, _MICRO_LOOPS, _MICRO_REPEATS))
            for label, fn in pieces.items()
        }
    return {"ns": figures, "sum_ns": sum(figures.values())}


def _timeout_scope() -> None:
    # Entering and leaving a deadline scope is synchronous; the pool's session wraps every
    # SDK request in one, on top of the SDK's own read timeout.
    with anyio.fail_after(CALL_TIMEOUT_S + 1):  # noqa: ASYNC100 - the scope itself is measured
        pass


def _sdk_launch() -> dict[str, Any]:
    return {"command": sdk_command(), "args": demo_args("alpha"), "env": dict(EXACT_ENV)}


async def _sdk_session(stack: AsyncExitStack, server: Any, era: str) -> ClientSession:
    # cache=None: toolpool's session turns the SDK's response cache off too.
    client = await stack.enter_async_context(Client(server, mode=era, cache=None))
    await client.session.list_tools()
    return client.session


def _sdk_call(session: ClientSession) -> Any:
    async def call() -> None:
        result = await session.call_tool("echo", _ARGUMENTS, read_timeout_seconds=CALL_TIMEOUT_S)
        if result.is_error:
            raise RuntimeError(f"echo failed: {result}")

    return call


def _pool_call(pool: Pool, snapshot: Snapshot, ticket: Ticket) -> Any:
    name = local_name(ALIAS, "echo")

    async def call() -> None:
        envelope = await pool.call(snapshot, name, _ARGUMENTS, ticket=ticket)
        if not envelope.ok or envelope.text != TEXT:
            raise RuntimeError(f"pool.call failed: {envelope.code} {envelope.text}")

    return call


def _ratios(figures: dict[str, dict[str, Any]]) -> dict[str, float]:
    pool, direct, transport = figures["pool"], figures["direct"], figures["transport"]
    return {
        "pool_vs_direct_median": pool["median_us"] / direct["median_us"],
        "pool_vs_direct_p90": pool["p90_us"] / direct["p90_us"],
        "pool_vs_direct_cpu": pool["cpu_us_per_call"] / direct["cpu_us_per_call"],
        "transport_vs_direct_median": transport["median_us"] / direct["median_us"],
        "pool_vs_transport_median": pool["median_us"] / transport["median_us"],
    }
