"""The gateway hop: client → ``toolpool serve`` → upstream, against the upstream directly and
against FastMCP's proxy in front of the same upstream, side by side in one run.

    .venv/bin/python bench/gateway.py [--quick] [--eras E,..] [--json] [--profile DIR]

Arms (``_gateway_arms``): direct, ``toolpool serve``, FastMCP's proxy, and (attribution only) a
bare SDK relay: the SDK's own server forwarding each request through the SDK's client, the
floor of any Python MCP hop on this SDK. Per era (default ``legacy,2026-07-28``; every leg of
every arm speaks it):

1. over stdio, one client per arm: sequential ``tools/call echo`` and ``tools/list``, latency
   median and p95, interleaved in blocks with the arms' order rotating every round;
2. over streamable HTTP on 127.0.0.1, 16 clients per arm calling ``echo`` in a loop: calls/s in
   timed windows, one arm at a time, the order rotating every round. ``toolpool serve --http``
   with a bearer token and FastMCP's proxy over HTTP each keep the upstream on stdio; the
   baseline is the same upstream serving streamable HTTP itself.

Goals (issue 16): tools/call over stdio ≤ 1.6x direct, tools/list ≤ 1.0x, HTTP throughput ≥ 0.7x
direct; and beat FastMCP's proxy on every
figure. FastMCP runs from its own virtualenv (bench/setup-fastmcp, made on first use).
``--profile DIR`` runs both ``toolpool serve`` processes under cProfile and prints where their
main thread's time goes (the toolpool figures of such a run are inflated: read the ranking).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from _gateway_arms import Bench, Target, http_targets, stdio_targets
from _gateway_measure import NO_MARK, Mark, sequential, throughput
from _gateway_profile import ThreadMeter
from _gateway_report import GOALS, goal_rows, goal_table, http_table, profiles, stdio_tables
from _procs import FASTMCP_PYTHON, ensure_fastmcp, kill_strays
from _report import Table, machine, render

_ERAS = ("legacy", "2026-07-28")
_FULL = {"calls": 1_000, "lists": 200, "seconds": 3.0, "rounds": 5}
_QUICK = {"calls": 200, "lists": 50, "seconds": 2.0, "rounds": 3}  # and the first era only
_WARMUP = 50  # sequential requests per arm before timing (the first ones import and compile)
_HTTP_WARMUP = 5  # calls per HTTP client before timing
_CLIENTS = 16
_RUN_S = 20 * 60.0  # the whole run, bounded: about 4 minutes is normal


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sizes = dict(_QUICK if args.quick else _FULL)
    sizes.update({key: value for key in sizes if (value := getattr(args, key)) is not None})
    eras = _ERAS[:1] if args.quick and args.eras is None else tuple((args.eras or ",".join(_ERAS)).split(","))
    ensure_fastmcp()
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    results = anyio.run(_run, sizes, eras, args.clients, args.profile, not args.json)
    if args.json:
        print(json.dumps(results, indent=2))
    if args.profile is not None:
        print(profiles(args.profile, results))
    left = kill_strays()
    if left:
        print(f"processes left behind, now killed: {sorted(left)}", file=sys.stderr)
        return 1
    return 0


async def _run(
    sizes: dict[str, Any], eras: tuple[str, ...], clients: int, profile: Path | None, show: bool
) -> dict[str, Any]:
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine() | {"fastmcp": _fastmcp_version()},
        "sizes": sizes | {"clients": clients, "warmup": _WARMUP},
        "goal_vs_direct": GOALS,
        "load_average_at_start": os.getloadavg(),
        "eras": {},
    }
    if show:
        print(_heading(results), flush=True)
    with anyio.fail_after(_RUN_S), tempfile.TemporaryDirectory(prefix="toolpool-bench-gateway-") as scratch:
        for era in eras:
            bench = Bench.make(Path(scratch, era), era, profile)
            threads: dict[str, dict[str, float]] = {}
            async with stdio_targets(bench) as targets:
                mark = _meter(bench, targets)
                stdio = await sequential(targets, sizes["calls"], sizes["lists"], _WARMUP, mark)
                threads |= _parts("stdio", mark)
            _show(show, *stdio_tables(era, stdio))
            async with http_targets(bench, clients) as targets:
                mark = _meter(bench, targets)
                http = await throughput(targets, sizes["seconds"], sizes["rounds"], _HTTP_WARMUP, mark)
                threads |= _parts("http", mark)
            goal = goal_rows(stdio, http)
            results["eras"][era] = {"stdio": stdio, "http": http, "goal": goal, "threads": threads}
            _show(show, http_table(era, http), goal_table(era, goal))
    results["load_average_at_end"] = os.getloadavg()
    return results


def _meter(bench: Bench, targets: list[Target]) -> Mark:
    """With --profile, a ThreadMeter on the toolpool arm's serve process; else nothing."""
    (gateway,) = (target.proxy for target in targets if target.name == "toolpool")
    if bench.profile is None or gateway is None:
        return NO_MARK
    return ThreadMeter(gateway)


def _parts(mode: str, mark: Mark) -> dict[str, dict[str, float]]:
    return {mode: mark.parts[0]} if isinstance(mark, ThreadMeter) and mark.parts else {}


def _show(show: bool, *tables: Table) -> None:
    if show:
        for table in tables:
            print("\n" + render(table), flush=True)


def _heading(results: dict[str, Any]) -> str:
    box, sizes = results["machine"], results["sizes"]
    return (
        f"toolpool {box['toolpool']} gateway hop, {results['date']}\n"
        f"{box['cpu']}, {box['cores_usable']} usable cores; {box['implementation']} {box['python']}; "
        f"mcp {box['mcp']}, fastmcp {box['fastmcp']}\n"
        f"command: {results['command']}; load average at start "
        f"{' '.join(f'{load:.2f}' for load in results['load_average_at_start'])}\n"
        f"stdio: {sizes['calls']:,} calls and {sizes['lists']:,} lists per arm (after {sizes['warmup']} "
        f"warm-up each); HTTP: {sizes['clients']} clients per arm, {sizes['rounds']} rounds of "
        f"{sizes['seconds']:g} s windows"
    )


def _fastmcp_version() -> str:
    for dist in FASTMCP_PYTHON.parent.parent.glob("lib/python*/site-packages/fastmcp-*.dist-info"):
        return dist.name.removeprefix("fastmcp-").removesuffix(".dist-info")
    return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--quick", action="store_true", help="about 1 minute: fewer calls, shorter windows, the first era"
    )
    parser.add_argument("--eras", help=f"comma-separated protocol eras (default: {','.join(_ERAS)})")
    parser.add_argument("--calls", type=int, help="sequential tools/call per arm and era")
    parser.add_argument("--lists", type=int, help="sequential tools/list per arm and era")
    parser.add_argument("--seconds", type=float, help="length of one HTTP throughput window")
    parser.add_argument("--rounds", type=int, help="HTTP throughput windows per arm")
    parser.add_argument("--clients", type=int, default=_CLIENTS, help="concurrent HTTP clients per arm")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument("--profile", type=Path, metavar="DIR", help="cProfile toolpool serve into DIR")
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
