"""Where ``pool.call``'s own time goes, in situ: each piece switched off in turn, against the whole.

    .venv/bin/python bench/call_pieces.py [--era ERA] [--rounds N] [--block B] [--pieces a,b,...]

A hot loop says what a piece costs with warm caches (``call_overhead.py`` §1b); inside a real
call it costs several times that (the upstream's round trip evicts the caches). This probe runs
``pool.call`` on the alpha demo's ``echo`` (the store on, as a user runs it) in blocks of B calls,
the arms in rotating order, each arm with one piece made a no-op for its blocks only, and reports
per arm the median CPU per call of this process (the loop and the recorder's worker thread) and
its wall time, and the difference to the whole. Two arms switch nothing off: their difference is
the noise of the run.

A probe, not a proposal: a piece switched off is a guarantee switched off (gate 9's screen, gate
10's records, ...). It tells the next person what is worth making cheaper.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio

from _configs import alpha_server, local_name, write_config
from _report import Table, render
from toolpool import Pool, Ticket
from toolpool.calls import CallPipeline, CallRecording, TaintLedger
from toolpool.calls._envelope import Envelope
from toolpool.store._enablement import StoreEnablement
from toolpool.vetting.screener import RuleScreener

_ALIAS = "bench_alpha"
_WARMUP = 300
_Switch = Callable[[], contextlib.AbstractContextManager[None]]


@contextlib.contextmanager
def _replaced(owner: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


def _switches() -> dict[str, _Switch]:
    nothing = RuleScreener().screen_text("")

    async def no_arguments(self: CallPipeline, *_: object) -> tuple[str, None, None]:
        return "taint", None, None

    async def bare_result(tool: Any, result: Any, *_: object) -> Envelope:
        text = result.content[0].text if result.content else ""
        return Envelope(ok=True, code="ok", text=text, structured=None, untrusted=True, tool=tool.name)

    import toolpool.calls._pipeline as pipeline

    return {
        "whole (1)": contextlib.nullcontext,
        "gate 3: enabled from memory": lambda: _replaced(StoreEnablement, "is_enabled", lambda *_: True),
        "gates 5-6: arguments and taint": lambda: _replaced(CallPipeline, "_check_arguments", no_arguments),
        "gate 6: noting the result": lambda: _replaced(TaintLedger, "note", lambda *_: None),
        "gate 9: screening the result": lambda: _replaced(RuleScreener, "screen_text", lambda *_: nothing),
        "gate 9: the whole result shaping": lambda: _replaced(pipeline, "shape_result", bare_result),
        "gate 10: call record and audit event": lambda: _replaced(CallRecording, "record", lambda *_: None),
        "whole (2)": contextlib.nullcontext,
    }


async def _run(era: str, rounds: int, block: int, chosen: list[str]) -> Table:
    switches = _switches()
    names = [name for name in switches if not chosen or name in chosen or name.startswith("whole")]
    cpu: dict[str, list[float]] = {name: [] for name in names}
    wall: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="toolpool-pieces-") as folder:
        config = write_config(Path(folder), alpha_server(_ALIAS, era))
        async with Pool(config) as pool:
            await pool.connect(_ALIAS)
            snapshot, ticket, name = pool.snapshot(), Ticket.allow("*"), local_name(_ALIAS, "echo")
            arguments = {"text": "hello"}
            for _ in range(_WARMUP):
                await pool.call(snapshot, name, arguments, ticket=ticket)
            for number in range(rounds):
                shift = number % len(names)
                for arm in (*names[shift:], *names[:shift]):
                    with switches[arm]():
                        cpu_start, wall_start = time.process_time_ns(), time.perf_counter_ns()
                        for _ in range(block):
                            envelope = await pool.call(snapshot, name, arguments, ticket=ticket)
                            assert envelope.ok, envelope.text
                        cpu[arm].append((time.process_time_ns() - cpu_start) / block / 1e3)
                        wall[arm].append((time.perf_counter_ns() - wall_start) / block / 1e3)
    whole = statistics.median(cpu["whole (1)"] + cpu["whole (2)"])
    table = Table(
        f"pool.call on {era}, {rounds} rounds of {block} calls per arm, arms rotating",
        ["arm (switched off)", "CPU µs/call", "wall µs/call", "CPU - whole"],
    )
    for arm in names:
        median_cpu = statistics.median(cpu[arm])
        table.rows.append(
            [arm, f"{median_cpu:,.0f}", f"{statistics.median(wall[arm]):,.0f}", f"{median_cpu - whole:+,.1f}"]
        )
    table.notes.append(
        "CPU: this process (the loop and the recorder's thread); the whole: both unswitched arms."
    )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--era", default="2026-07-28", help="the demo server's protocol era")
    parser.add_argument("--rounds", type=int, default=40, help="blocks per arm (default 40)")
    parser.add_argument("--block", type=int, default=100, help="calls per block (default 100)")
    parser.add_argument("--pieces", default="", help="comma-separated arm names (default: all)")
    args = parser.parse_args()
    chosen = [piece for piece in args.pieces.split(",") if piece]
    sys.stdout.write(render(anyio.run(_run, args.era, args.rounds, args.block, chosen)) + "\n")


if __name__ == "__main__":
    main()
