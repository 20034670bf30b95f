"""Section 1: sequential ``echo`` calls over stdio, bare SDK client versus ``pool.call``.

Four arms, one era, the same demo server kind (``alpha``); each arm adds one layer:

- ``direct``: the SDK ``Client`` on the SDK's own stdio transport, ``session.call_tool``
  (the layer toolpool calls too), after one ``tools/list`` as toolpool does on connect;
- ``transport``: the same, on toolpool's own stdio transport;
- ``session``: toolpool's ``UpstreamSession.call_tool`` on the pool's live connection
  (``pool.session_of``): adds the deadline scope and the fault mapping;
- ``pool``: ``pool.call`` through every gate (connected once, one snapshot, ``Ticket.allow("*")``);
- ``telemetry``: the same with telemetry on: spans to a batch processor (an exporter that drops
  them), every metric, and the call log (to /dev/null); with it off, ``pool`` pays one branch.

``transport`` and ``session`` are there only to tell where a difference comes from. The
gate breakdown times the pure-Python pieces ``pool.call`` adds, in a hot loop and "in situ":
in order, right after a real call, which is the state they run in for real.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from _configs import CALL_TIMEOUT_S, EXACT_ENV, alpha_server, demo_args, local_name, sdk_command, write_config
from _timing import Arm, AsyncCall, interleave, micro_ns, summary
from toolpool import Pool, Snapshot, Ticket, authorize
from toolpool.telemetry import CallLog, Telemetry
from toolpool.upstream import StdioLaunch, StdioTransport, UpstreamSession

__all__ = ["ALIAS", "TEXT", "measure_calls", "measure_gates"]

ALIAS = "bench_alpha"
TEXT = "hello"
_ARGUMENTS = {"text": TEXT}
# The same encoder and "no clock needed" value the call pipeline uses.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_NO_CLOCK = datetime.min
_MICRO_LOOPS = 20_000
_MICRO_REPEATS = 7
_IN_SITU = 500


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
        observed_folder = folder / "telemetry"
        observed_folder.mkdir()
        observed_config = write_config(observed_folder, alpha_server(ALIAS, era))
        observed = await stack.enter_async_context(Pool(observed_config, telemetry=_telemetry_on(stack)))
        await observed.connect(ALIAS)
        arms = (
            Arm("direct", "SDK Client, SDK stdio", _sdk_call(direct)),
            Arm("transport", "SDK Client, toolpool stdio", _sdk_call(transport)),
            Arm("session", "toolpool UpstreamSession", _session_call(_live_session(pool))),
            Arm("pool", "pool.call (telemetry off)", _pool_call(pool, pool.snapshot(), Ticket.allow("*"))),
            Arm(
                "telemetry",
                "pool.call, telemetry on",
                _pool_call(observed, observed.snapshot(), Ticket.allow("*")),
            ),
        )
        samples = await interleave(arms, calls, block, warmup)
    figures = {arm.name: {"label": arm.label, **summary(samples[arm.name])} for arm in arms}
    return {"era": era, "arms": figures, "ratios": _ratios(figures)}


async def measure_gates(folder: Path, era: str) -> dict[str, Any]:
    """Nanoseconds per use of each pure-Python piece ``pool.call`` adds: hot and in situ."""
    config = write_config(folder, alpha_server(ALIAS, era))
    name = local_name(ALIAS, "echo")
    async with Pool(config) as pool:
        await pool.connect(ALIAS)
        snapshot = pool.snapshot()
        tool = snapshot.get(name)
        assert tool is not None
        ticket = Ticket.allow("*")
        pieces: dict[str, Callable[[], object]] = {
            "gate 1: name in snapshot": lambda: snapshot.get(name),
            "gate 4: authorize(ticket) (no expiry: no clock)": lambda: authorize(
                ticket, tool.action, None, _NO_CLOCK
            ),
            "gate 5: argument size (one shared JSONEncoder)": lambda: _ENCODER.encode(_ARGUMENTS).encode(),
            "gate 5: schema (CompiledSchema.problems, fast path)": lambda: tool.input.problems(_ARGUMENTS),
            "deadline scope (anyio.CancelScope)": _deadline_scope,
        }
        hot = {
            label: statistics.median(micro_ns(fn, _MICRO_LOOPS, _MICRO_REPEATS))
            for label, fn in pieces.items()
        }
        in_situ = await _in_situ(_session_call(_live_session(pool)), pieces)
    return {"hot_ns": hot, "in_situ_ns": in_situ}


async def _in_situ(real_call: AsyncCall, pieces: dict[str, Callable[[], object]]) -> dict[str, float]:
    """After each real call, every piece once, in the pipeline's order, each timed: the caches
    are then as warm or as cold as in ``pool.call`` itself."""
    figures: dict[str, list[int]] = {label: [] for label in pieces}
    for _ in range(_IN_SITU):
        await real_call()
        for label, fn in pieces.items():
            start = time.perf_counter_ns()
            fn()
            figures[label].append(time.perf_counter_ns() - start)
    return {label: statistics.median(values) for label, values in figures.items()}


def _deadline_scope() -> None:
    # Entering and leaving a deadline scope is synchronous; toolpool's session wraps every
    # SDK request in one, on top of the SDK's own read timeout.
    with anyio.CancelScope(deadline=anyio.current_time() + CALL_TIMEOUT_S + 1):  # noqa: ASYNC100
        pass


def _sdk_launch() -> dict[str, Any]:
    return {"command": sdk_command(), "args": demo_args("alpha"), "env": dict(EXACT_ENV)}


def _live_session(pool: Pool) -> UpstreamSession:
    session = pool.session_of(ALIAS)
    if session is None:
        raise RuntimeError(f"{ALIAS} is not connected")
    return session


async def _sdk_session(stack: AsyncExitStack, server: Any, era: str) -> ClientSession:
    # cache=None: toolpool's session turns the SDK's response cache off too.
    client = await stack.enter_async_context(Client(server, mode=era, cache=None))
    await client.session.list_tools()
    return client.session


def _sdk_call(session: ClientSession) -> AsyncCall:
    async def call() -> None:
        result = await session.call_tool("echo", _ARGUMENTS, read_timeout_seconds=CALL_TIMEOUT_S)
        if result.is_error:
            raise RuntimeError(f"echo failed: {result}")

    return call


def _session_call(session: UpstreamSession) -> AsyncCall:
    async def call() -> None:
        result = await session.call_tool("echo", _ARGUMENTS, CALL_TIMEOUT_S)
        if result.is_error:
            raise RuntimeError(f"echo failed: {result}")

    return call


def _pool_call(pool: Pool, snapshot: Snapshot, ticket: Ticket) -> AsyncCall:
    name = local_name(ALIAS, "echo")

    async def call() -> None:
        envelope = await pool.call(snapshot, name, _ARGUMENTS, ticket=ticket)
        if not envelope.ok or envelope.text != TEXT:
            raise RuntimeError(f"pool.call failed: {envelope.code} {envelope.text}")

    return call


def _ratios(figures: dict[str, dict[str, Any]]) -> dict[str, float]:
    pool, direct, observed = figures["pool"], figures["direct"], figures["telemetry"]
    return {
        "pool_vs_direct_median": pool["median_us"] / direct["median_us"],
        "pool_vs_direct_p90": pool["p90_us"] / direct["p90_us"],
        "pool_vs_direct_cpu": pool["cpu_us_per_call"] / direct["cpu_us_per_call"],
        "telemetry_on_vs_off_median": observed["median_us"] / pool["median_us"],
        "telemetry_on_vs_off_cpu": observed["cpu_us_per_call"] / pool["cpu_us_per_call"],
    }


class _Dropped(SpanExporter):
    """An exporter that takes every batch and keeps nothing: the cost measured is toolpool's."""

    def export(self, spans: Any) -> SpanExportResult:
        del spans
        return SpanExportResult.SUCCESS


def _telemetry_on(stack: AsyncExitStack) -> Telemetry:
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(_Dropped()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed by the stack
    handler = logging.StreamHandler(sink)
    logger = logging.getLogger("toolpool.bench.calls")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    stack.callback(sink.close)
    stack.callback(logger.removeHandler, handler)
    stack.callback(meter_provider.shutdown)
    stack.callback(tracer_provider.shutdown)
    return Telemetry(tracer_provider=tracer_provider, meter_provider=meter_provider, call_log=CallLog(logger))
