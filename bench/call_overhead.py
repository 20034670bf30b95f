"""What toolpool costs on top of the bare MCP SDK: per call, per snapshot, per connect.

    .venv/bin/python bench/call_overhead.py [--calls N] [--connect-runs R] [--eras E,..] [--json]

1. sequential ``echo`` calls to the ``alpha`` demo server over stdio: the SDK ``Client``
   directly versus ``pool.call``, interleaved in blocks in one run (goal: pool/direct <= 1.15);
   plus the in-process cost of each gate piece ``pool.call`` adds;
2. ``pool.snapshot`` at 10 / 1,000 / 10,000 tools, steady and first after a change;
3. ``pool.connect`` of 1,000 paged tools versus the bare SDK's spawn + initialize + list.

Every figure is measured in this run against a baseline measured in the same run. ``--profile``
instead runs ``pool.call`` under cProfile and prints where toolpool's own time goes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from _calls import measure_calls, measure_gates
from _connect import measure_connect
from _profile import profile_pool_calls
from _report import Table, machine, render
from _snapshots import CHANGES, SIZES, STEADY_LOOPS, STEADY_REPEATS, measure_snapshots, ratios

GOAL = 1.10  # issue 16 (was 1.15, issue 4)
_DEFAULT_CALLS = 2_000
_DEFAULT_CONNECT_RUNS = 7
_ERAS = ("2026-07-28", "legacy")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    eras = tuple(era for era in args.eras.split(",") if era)
    if args.profile:
        print(anyio.run(profile_pool_calls, eras[0], args.calls))
        return 0
    sections = frozenset(part for part in args.sections.split(",") if part)
    results = anyio.run(_run, args.calls, args.connect_runs, eras, not args.json, sections)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


async def _run(
    calls: int, connect_runs: int, eras: tuple[str, ...], show: bool, sections: frozenset[str]
) -> dict[str, Any]:
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(),
        "goal_pool_vs_direct": GOAL,
    }
    if show:
        print(_heading(results))
    block = max(10, min(100, calls // 10))
    with tempfile.TemporaryDirectory(prefix="toolpool-bench-") as scratch:
        folders = iter(Path(scratch, str(n)) for n in range(100))

        def folder() -> Path:
            path = next(folders)
            path.mkdir()
            return path

        if "calls" in sections:
            call_rows = [
                await measure_calls(folder(), era, calls, block, max(50, calls // 10)) for era in eras
            ]
            gates = await measure_gates(folder(), eras[0])
            results["calls"] = {"calls_per_arm": calls, "block": block, "by_era": call_rows, "gates": gates}
            _show(show, _call_table(results["calls"]), _gate_table(gates, call_rows))
        if "snapshots" in sections:
            snapshots = [await measure_snapshots(folder(), eras[0], size) for size in SIZES]
            results["snapshots"] = {"by_size": snapshots, "ratio_largest_vs_smallest": ratios(snapshots)}
            _show(show, _snapshot_table(results["snapshots"]))
        if "connect" in sections:
            results["connect"] = await measure_connect(folder(), eras[0], connect_runs)
            _show(show, _connect_table(results["connect"]))
    return results


def _show(show: bool, *tables: Table) -> None:
    if show:
        for table in tables:
            print("\n" + render(table), flush=True)


def _heading(results: dict[str, Any]) -> str:
    box = results["machine"]
    return (
        f"toolpool {box['toolpool']} call overhead, {results['date']}\n"
        f"{box['cpu']}, {box['cores_usable']} usable cores; {box['implementation']} {box['python']}; "
        f"mcp {box['mcp']}, anyio {box['anyio']}, jsonschema {box['jsonschema']}\n"
        f"command: {results['command']}"
    )


def _call_table(calls: dict[str, Any]) -> Table:
    table = Table(
        f"1. sequential echo calls over stdio to the alpha demo server: {calls['calls_per_arm']} calls "
        f"per arm, blocks of {calls['block']}, arm order rotating every round",
        ("era  arm", "median µs", "p90 µs", "median ÷ direct", "CPU µs/call", "CPU vs row above"),
    )
    for row in calls["by_era"]:
        direct = row["arms"]["direct"]["median_us"]
        above: float | None = None
        for arm in row["arms"].values():
            cpu = arm["cpu_us_per_call"]
            step = "" if above is None else f"{cpu - above:+,.0f}"
            above = cpu
            median, p90 = arm["median_us"], arm["p90_us"]
            name = f"{row['era']}  {arm['label']}"
            table.rows.append((name, _f(median), _f(p90), _r(median / direct), _f(cpu), step))
        ratio = row["ratios"]
        verdict = "meets" if ratio["pool_vs_direct_median"] <= GOAL else "misses"
        table.rows.append(
            (
                f"{row['era']}  telemetry on ÷ off",
                _r(ratio["telemetry_on_vs_off_median"]),
                "",
                "",
                _r(ratio["telemetry_on_vs_off_cpu"]),
                "",
            )
        )
        table.rows.append(
            (
                f"{row['era']}  pool ÷ direct ({verdict} goal ≤ {GOAL})",
                _r(ratio["pool_vs_direct_median"]),
                _r(ratio["pool_vs_direct_p90"]),
                "",
                _r(ratio["pool_vs_direct_cpu"]),
                "",
            )
        )
    table.notes.append(
        "CPU µs/call: this process's CPU time per call (client side only), median over blocks."
    )
    table.notes.append(
        "The middle two arms only attribute: toolpool's stdio transport, then its session wrapper."
    )
    return table


def _gate_table(gates: dict[str, Any], call_rows: list[dict[str, Any]]) -> Table:
    table = Table(
        "1b. pure-Python pieces pool.call adds (no I/O): in a hot loop, and in order right after a real call",
        ("piece", "hot µs", "in situ µs"),
    )
    hot, in_situ = gates["hot_ns"], gates["in_situ_ns"]
    table.rows += [(label, _f(hot[label] / 1e3, 1), _f(in_situ[label] / 1e3, 1)) for label in hot]
    table.rows.append(
        ("sum of the pieces", _f(sum(hot.values()) / 1e3, 1), _f(sum(in_situ.values()) / 1e3, 1))
    )
    for row in call_rows:
        arms = row["arms"]
        extra = arms["pool"]["cpu_us_per_call"] - arms["session"]["cpu_us_per_call"]
        table.rows.append((f"measured CPU/call: pool.call - UpstreamSession ({row['era']})", "", _f(extra)))
    return table


def _snapshot_table(snapshots: dict[str, Any]) -> Table:
    keys = (
        ("pool_snapshot_ticket_steady_ns", "ns"),
        ("registry_snapshot_steady_ns", "ns"),
        ("pool_snapshot_ticket_first_after_change_us", "µs"),
        ("pool_snapshot_first_after_change_us", "µs"),
        ("registry_admit_one_us", "µs"),
        ("registry_revoke_one_us", "µs"),
    )
    table = Table(
        "2. snapshots through a real Pool (paged demo server connected with n tools)",
        (
            "tools",
            "pool.snapshot(t) ns",
            "registry.snapshot() ns",
            "1st pool.snapshot(t) after change µs",
            "1st pool.snapshot() after change µs",
            "registry.admit(+1) µs",
            "registry.revoke(-1) µs",
        ),
    )
    for row in snapshots["by_size"]:
        table.rows.append(
            (f"{row['tools']:,}", *(_f(row[key], 1 if unit == "µs" else 0) for key, unit in keys))
        )
    ratio = snapshots["ratio_largest_vs_smallest"]
    table.rows.append((f"{SIZES[-1]:,} ÷ {SIZES[0]}", *(_r(ratio[key]) for key, _ in keys)))
    table.notes.append(
        f"steady: median of {STEADY_REPEATS} batches of {STEADY_LOOPS:,} takes with nothing changed; "
        "t = Ticket.allow('bench.*')."
    )
    table.notes.append(
        f"after change: one tool disabled and enabled again, then one take timed; median of {CHANGES}."
    )
    return table


def _connect_table(connect: dict[str, Any]) -> Table:
    table = Table(
        f"3. connect + vet {connect['tools']:,} tools (paged demo, page size {connect['page_size']}), "
        f"{connect['runs']} runs per arm, arm order rotating",
        ("what", "median ms", "min ms", "max ms", "CPU ms (this process)"),
    )
    arms = (
        ("SDK Client: spawn, list all pages", "sdk_s"),
        ("toolpool open_session + list_tools (no vet)", "session_s"),
        ("pool.connect: spawn, list, vet, admit", "pool_s"),
    )
    for label, key in arms:
        spread = connect[key]
        table.rows.append(
            (label, *(_f(spread[part] * 1e3) for part in ("median", "min", "max", "cpu_median")))
        )
    pool, sdk = connect["pool_s"], connect["sdk_s"]
    table.rows.append(
        (
            "pool.connect - SDK (medians)",
            _f((pool["median"] - sdk["median"]) * 1e3),
            "",
            "",
            _f((pool["cpu_median"] - sdk["cpu_median"]) * 1e3),
        )
    )
    table.rows.append(("pool.connect ÷ SDK (medians)", _r(pool["median"] / sdk["median"]), "", "", ""))
    table.rows.append(("vet() alone, in-process", _f(connect["vet_alone_s"] * 1e3, 1), "", "", ""))
    table.rows.append(
        ("PublishedTool.from_wire x 1,000, in-process", _f(connect["from_wire_alone_s"] * 1e3, 1), "", "", "")
    )
    table.notes.append("CPU ms: this process's CPU time per connect; the server's own startup is not in it.")
    return table


def _f(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def _r(value: float) -> str:
    return f"{value:.2f}x"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=_DEFAULT_CALLS, help="timed calls per arm and era")
    parser.add_argument("--connect-runs", type=int, default=_DEFAULT_CONNECT_RUNS, help="connects per arm")
    parser.add_argument(
        "--eras", default=",".join(_ERAS), help="comma-separated; the first is used for 1b, 2, 3"
    )
    parser.add_argument(
        "--sections",
        default="calls,snapshots,connect",
        help="comma-separated: which of calls (1, 1b), snapshots (2), connect (3) to run",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument("--profile", action="store_true", help="profile --calls pool.calls with cProfile")
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
