"""CPU time per tool of the rule screener, against a baseline ``src`` measured in the same run.

    PYTHONPATH=$PWD/src .venv/bin/python bench/screen_speed.py [--baseline-rev REV | --baseline-src DIR]
        [--current-src DIR] [--passes N] [--json] [--profile] [--guard-all]

Two worker processes load the same definitions (the batches of ``bench/data``, mcpproxy-go's
labelled set, the held-out set, the real tools of livemcpbench and mcpproxy-go, each with its peers' definitions as
``screen_quality.py`` passes them, one ``PeerSet`` for the tools of a server as the pool passes
it), one importing this tree's ``toolpool`` and one the baseline's
(``git archive REV src``, default 609de79: ``main`` before the speed work of issue 18). Passes
alternate between them (A B B A …), so load on the shared machine falls on both alike; each
``screen_tool`` call is timed with ``time.thread_time_ns`` (CPU time of the thread: less noisy
than the wall clock). Printed per set: each tool's median over the passes, then the median and
p99 over tools for both sides, and the ratio (this tree / baseline) of the medians and the median
of per-tool ratios. The load average is printed before and after.

``--profile`` runs one pass of this tree under cProfile instead and prints the top entries.
``--guard-all`` measures this tree with every pattern the screener compiles at import guarded
(``_guard``): the experiment of RESULTS.md §4bc, done in §4bj (``_guard.compiled``), so it now adds
only the few patterns left plain on purpose.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _timing import percentile

_ROOT = Path(__file__).resolve().parents[1]
_BENCH = Path(__file__).resolve().parent
_WARMUP = 1
_SETS = ("batches", "labelled", "heldout", "real")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-rev", default="609de79", help="git revision whose src is the baseline")
    parser.add_argument("--baseline-src", type=Path, help="a src folder to use as the baseline instead")
    parser.add_argument("--current-src", type=Path, default=_ROOT / "src", help="the src folder measured")
    parser.add_argument("--passes", type=int, default=10, help="timed passes per side (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument("--profile", action="store_true", help="profile one pass of this tree instead")
    parser.add_argument(
        "--guard-all",
        action="store_true",
        help="an experiment: this tree with every pattern the screener compiles guarded (_guard)",
    )
    parser.add_argument("--worker", choices=("plain", "guard-all"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker == "guard-all")
    elif args.profile:
        print(_profile())
    else:
        with tempfile.TemporaryDirectory(prefix="screen-speed-") as scratch:
            baseline = args.baseline_src or _extract(args.baseline_rev, Path(scratch))
            report = measure(args.current_src, baseline, max(1, args.passes), guard_all=args.guard_all)
        report["baseline"] = str(args.baseline_src or args.baseline_rev)
        report["guard_all"] = args.guard_all
        print(json.dumps(report, indent=2) if args.json else render(report))


def measure(current: Path, baseline: Path, passes: int, *, guard_all: bool = False) -> dict[str, Any]:
    """Alternate passes of two workers; per set, medians, p99 and ratios (CPU time, microseconds)."""
    load_before = _loadavg()
    workers = {"current": _start(current, guard_all=guard_all), "baseline": _start(baseline)}
    try:
        samples: dict[str, dict[str, list[int]]] = {side: {} for side in workers}
        groups: dict[str, str] = {}
        for number in range(_WARMUP + passes):
            order = ("current", "baseline") if number % 2 == 0 else ("baseline", "current")
            for side in order:
                result = _ask(workers[side])
                if number < _WARMUP:
                    continue
                for key, (group, ns) in result.items():
                    groups[key] = group
                    samples[side].setdefault(key, []).append(ns)
    finally:
        for worker in workers.values():
            worker.stdin.close()  # type: ignore[union-attr]
            worker.wait(timeout=60)
    report: dict[str, Any] = {"passes": passes, "load_before": load_before, "load_after": _loadavg()}
    for group in (*_SETS, "all"):
        keys = [k for k in samples["current"] if group in ("all", groups[k])]
        report[group] = _summary(keys, samples)
    return report


def _summary(keys: Sequence[str], samples: dict[str, dict[str, list[int]]]) -> dict[str, Any]:
    medians = {side: [statistics.median(samples[side][k]) for k in keys] for side in samples}
    ratios = [c / b for c, b in zip(medians["current"], medians["baseline"], strict=True) if b > 0]
    out: dict[str, Any] = {"tools": len(keys)}
    for side, values in medians.items():
        out[f"{side}_median_us"] = round(statistics.median(values) / 1000, 1)
        out[f"{side}_p99_us"] = round(percentile(values, 99) / 1000, 1)
        out[f"{side}_mean_us"] = round(statistics.fmean(values) / 1000, 1)
    out["ratio_of_medians"] = round(
        statistics.median(medians["current"]) / statistics.median(medians["baseline"]), 3
    )
    out["median_ratio"] = round(statistics.median(ratios), 3)
    out["ratio_of_totals"] = round(sum(medians["current"]) / sum(medians["baseline"]), 3)
    return out


def render(report: dict[str, Any]) -> str:
    lines = [
        f"CPU time per tool (thread_time_ns), {report['passes']} alternated passes per side; "
        f"baseline {report['baseline']}; load {report['load_before']} -> {report['load_after']}"
        + ("; this tree with every pattern guarded (--guard-all)" if report.get("guard_all") else ""),
        f"{'set':<8} {'tools':>5} {'median us':>17} {'p99 us':>17} {'mean us':>17} "
        f"{'ratio med':>9} {'med ratio':>9} {'ratio sum':>9}",
    ]
    for group in (*_SETS, "all"):
        row = report[group]
        pair = [
            f"{row[f'current_{m}_us']:>7} / {row[f'baseline_{m}_us']:<7}" for m in ("median", "p99", "mean")
        ]
        lines.append(
            f"{group:<8} {row['tools']:>5} {pair[0]:>17} {pair[1]:>17} {pair[2]:>17} "
            f"{row['ratio_of_medians']:>9} {row['median_ratio']:>9} {row['ratio_of_totals']:>9}"
        )
    lines.append("(each cell: this tree / baseline)")
    return "\n".join(lines)


def _extract(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(_ROOT), "archive", rev, "src"], capture_output=True, check=True, timeout=120
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _start(src: Path, *, guard_all: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(_BENCH)]), "PYTHONHASHSEED": "0"}
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--worker", "guard-all" if guard_all else "plain"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _ask(worker: subprocess.Popen[str]) -> dict[str, tuple[str, int]]:
    assert worker.stdin is not None
    assert worker.stdout is not None
    worker.stdin.write("pass\n")
    worker.stdin.flush()
    line = worker.stdout.readline()
    if not line:
        raise RuntimeError("a screen_speed worker exited")
    result: dict[str, tuple[str, int]] = json.loads(line)
    return result


def _cases() -> list[tuple[str, str, Any, Any]]:
    """(key, set, tool, peers) for every definition, loaded by the worker's own ``toolpool``."""
    from _screen_data import DEFAULT_DATASETS, load, load_batches, load_held_out
    from toolpool.vetting.peer_set import PeerSet

    sets: list[tuple[str, str, list[Any]]] = [
        ("real", name, load(DEFAULT_DATASETS / name / "normalized.jsonl"))
        for name in ("mcpproxy-go", "livemcpbench")
    ]
    sets.append(("heldout", "heldout", load_held_out()))
    sets.append(("batches", "batches", load_batches()))
    out: list[tuple[str, str, Any, Any]] = []
    shared: dict[tuple[frozenset[str], frozenset[Any]], Any] = {}
    for group, name, entries in sets:
        for index, entry in enumerate(entries):
            group_of = "labelled" if entry.label in ("malicious", "benign") and group == "real" else group
            # One set for the tools that share their peers (a server's tools), as the pool passes it.
            peers = shared.setdefault(
                (entry.peers, entry.described), PeerSet.of([*entry.peers, *entry.described])
            )
            out.append((f"{name}/{index}", group_of, entry.tool, peers))
    return out


def _worker(guard_all: bool) -> None:
    if guard_all:
        _import_guarding_all()
    from toolpool.vetting.screener import RuleScreener

    screener, cases = RuleScreener(), _cases()
    clock = time.thread_time_ns
    for _ in sys.stdin:
        result = {}
        for key, group, tool, peers in cases:
            began = clock()
            screener.screen_tool(tool, peers)
            result[key] = (group, clock() - began)
        print(json.dumps(result), flush=True)


def _import_guarding_all() -> None:
    """Import the screener with ``re.compile`` guarding each pattern it compiles at import: what
    wrapping every module-level ``re.compile`` of the screener in ``guarded`` would give."""
    import importlib.util
    import re

    import toolpool

    path = Path(toolpool.__file__).parent / "vetting" / "screener" / "_guard.py"
    spec = importlib.util.spec_from_file_location("_guard_outside", path)
    assert spec is not None
    assert spec.loader is not None
    guard = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(guard)  # before the patch: its own compiles stay plain
    plain = re.compile

    def compile_guarded(pattern: Any, flags: Any = 0) -> Any:
        compiled = plain(pattern, flags)
        return guard.guarded(compiled) if isinstance(compiled.pattern, str) else compiled

    re.compile = compile_guarded
    try:
        import toolpool.vetting.screener
    finally:
        re.compile = plain


def _profile(shown: int = 30) -> str:
    from toolpool.vetting.screener import RuleScreener

    screener, cases = RuleScreener(), _cases()
    for _, _, tool, peers in cases:  # warm the caches, as a long-running pool has them
        screener.screen_tool(tool, peers)
    profile = cProfile.Profile()
    profile.enable()
    for _, _, tool, peers in cases:
        screener.screen_tool(tool, peers)
    profile.disable()
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out).sort_stats("tottime")
    stats.print_stats(shown)
    return out.getvalue()


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
