"""The tables bench/gateway.py prints, from the figures ``_gateway_measure`` returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _gateway_arms import ARMS, LABELS
from _gateway_profile import package_table, thread_table, toolpool_functions
from _report import Table, render

__all__ = ["GOALS", "goal_rows", "goal_table", "http_table", "profiles", "stdio_tables"]

# Issue 16, per figure (a cost: arm ÷ direct; throughput direct ÷ arm): tools/call over stdio
# ≤ 1.6x, tools/list ≤ 1.0x, HTTP throughput ≥ 0.7x direct.
GOALS = {"call": 1.6, "list": 1.0, "http": 1 / 0.7}


def stdio_tables(era: str, stdio: dict[str, Any]) -> list[Table]:
    tables = []
    for kind, what in (("call", "tools/call echo"), ("list", "tools/list (3 tools)")):
        figures = stdio[kind]
        arms, block = figures["arms"], figures["block"]
        table = Table(
            f"{era}: sequential {what} over stdio, {arms['direct']['n']:,} per arm, blocks of {block}",
            (
                "arm",
                "median µs",
                "p95 µs",
                "median ÷ direct",
                "p95 ÷ direct",
                "block medians µs",
                "client CPU µs",
                "proxy CPU µs (loop + threads)",
                "upstream CPU µs",
            ),
        )
        direct = arms["direct"]
        for name in ARMS:
            arm = arms[name]
            table.rows.append(
                (
                    LABELS[name],
                    _f(arm["median_us"]),
                    _f(arm["p95_us"]),
                    _r(arm["median_us"] / direct["median_us"]),
                    _r(arm["p95_us"] / direct["p95_us"]),
                    f"{_f(arm['block_median_min_us'])} to {_f(arm['block_median_max_us'])}",
                    *_cpu(arm),
                )
            )
        table.notes.append(
            "CPU µs: per request, of this process (client), the proxy (its main thread + its other "
            "threads) and the upstream."
        )
        tables.append(table)
    return tables


def http_table(era: str, http: dict[str, Any]) -> Table:
    arms = http["arms"]
    table = Table(
        f"{era}: throughput over streamable HTTP, {http['clients']} clients per arm, "
        f"{http['rounds']} rounds of {http['seconds']:g} s per arm, order rotating",
        (
            "arm",
            "calls/s",
            "min to max",
            "direct ÷ arm",
            "median µs",
            "p95 µs",
            "client CPU µs",
            "proxy CPU µs (loop + threads)",
            "upstream CPU µs",
        ),
    )
    direct = arms["direct"]["calls_per_s"]
    for name in ARMS:
        arm = arms[name]
        table.rows.append(
            (
                LABELS[name],
                _f(arm["calls_per_s"]),
                f"{_f(arm['calls_per_s_min'])} to {_f(arm['calls_per_s_max'])}",
                _r(direct / arm["calls_per_s"]),
                _f(arm["median_us"]),
                _f(arm["p95_us"]),
                *_cpu(arm),
            )
        )
    table.notes.append("calls/s: median of the rounds; µs: latency of each call under that load.")
    table.notes.append("direct: the upstream serving HTTP itself; the proxies keep it on stdio.")
    return table


def goal_rows(stdio: dict[str, Any], http: dict[str, Any]) -> list[dict[str, Any]]:
    """Each figure as a cost ratio to direct (higher is slower) for toolpool and FastMCP."""
    rows = []
    for kind, what in (("call", "tools/call"), ("list", "tools/list")):
        arms = stdio[kind]["arms"]
        for stat in ("median_us", "p95_us"):
            cost = {name: arms[name][stat] / arms["direct"][stat] for name in ARMS}
            rows.append({"figure": f"stdio {what} {stat.split('_')[0]}", "goal": GOALS[kind], **cost})
    rates = http["arms"]
    cost = {name: rates["direct"]["calls_per_s"] / rates[name]["calls_per_s"] for name in ARMS}
    rows.append(
        {"figure": f"HTTP {http['clients']} clients, calls/s (direct ÷ arm)", "goal": GOALS["http"], **cost}
    )
    for row in rows:
        row["within_goal"] = row["toolpool"] <= row["goal"]
        row["beats_fastmcp"] = row["toolpool"] < row["fastmcp"]
    return rows


def goal_table(era: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(
        f"{era}: the goal — toolpool within each figure's goal (issue 16), and faster than FastMCP's proxy "
        "(each figure as a cost: arm ÷ direct, throughput direct ÷ arm)",
        (
            "figure",
            "relay (floor)",
            "toolpool",
            "toolpool --sdk-front",
            "FastMCP",
            "toolpool ÷ relay",
            "goal",
            "toolpool within goal",
            "toolpool beats FastMCP",
        ),
    )
    for row in rows:
        table.rows.append(
            (
                row["figure"],
                _r(row["relay"]),
                _r(row["toolpool"]),
                _r(row["sdkfront"]),
                _r(row["fastmcp"]),
                _r(row["toolpool"] / row["relay"]),
                f"≤ {row['goal']:.2f}",
                "yes" if row["within_goal"] else "NO",
                "yes" if row["beats_fastmcp"] else "NO",
            )
        )
    return table


def profiles(folder: Path, results: dict[str, Any]) -> str:
    """Per era and transport: the serve process's threads, then its main thread's profile."""
    out: list[str] = []
    for era, figures in results["eras"].items():
        for mode, used in figures.get("threads", {}).items():
            timed = figures["stdio"]["call"] if mode == "stdio" else figures["http"]
            calls = timed["arms"]["toolpool"]["n" if mode == "stdio" else "calls"]
            title = f"{era}, {mode}: toolpool serve's threads during the timed calls (profiled)"
            out.append(render(thread_table(title, used, calls)))
            profile = folder / f"serve-{mode}-{era}.prof"
            out += [render(package_table(profile)), toolpool_functions(profile)]
    return "\n\n".join(out)


def _cpu(arm: dict[str, Any]) -> tuple[str, str, str]:
    proxy, main = arm["proxy_cpu_us"], arm["proxy_main_cpu_us"]
    shown = f"{_f(proxy)} ({_f(main)} + {_f(proxy - main)})" if proxy else ""
    return _f(arm["client_cpu_us"]), shown, _f(arm["upstream_cpu_us"])


def _f(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def _r(value: float) -> str:
    return f"{value:.2f}x"
