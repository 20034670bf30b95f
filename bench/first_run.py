"""Screen a sealed batch once: the honest first-run figures of issue 18.

    .venv/bin/python bench/first_run.py bench/sealed/screen_batch_p.jsonl [--json]

The lead runs this exactly once per sealed batch, before any rule is changed for it, and
records what it prints in ``bench/RESULTS.md``; then the batch moves to ``bench/data`` and
gains an entry in ``_first_runs.FIRST_RUNS``. It prints figures and entry ids only, never a
definition's text, so reading its output does not unseal anything else.

Both screeners are run: the rules (``RuleScreener()``) and the rules with the lexical model
(``RuleScreener(lexical=True)``). Peers are given as ``load_batches`` builds them: every peer's
server and tool name, and each peer's definition (name and description).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _screen_data import Entry, load_batches
from _timing import percentile
from toolpool.vetting.screener import RuleScreener
from toolpool.vetting.screening import Peer

_CATEGORIES = ("squatting", "exfiltration", "shadowing", "line_jumping", "rug_pull", "schema_poisoning")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screen a sealed batch once (issue 18 first run).")
    parser.add_argument("batch", type=Path, help="a batch file of one definition per line")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if not args.batch.is_file():
        parser.error(f"no such batch file: {args.batch}")
    entries = load_batches((args.batch,))
    if not entries:
        parser.error(f"{args.batch} holds no definitions")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "load": os.getloadavg(),
        "batch": sorted({entry.batch for entry in entries}),
        "definitions": len(entries),
        "screeners": {
            "rules": _screened(entries, RuleScreener()),
            "rules + lexical": _screened(entries, RuleScreener(lexical=True)),
        },
    }
    print(json.dumps(report, indent=2) if args.json else _text(report))
    return 0


def _screened(entries: list[Entry], screener: RuleScreener) -> dict[str, Any]:
    caught: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    missed: list[str] = []
    false_drops: list[str] = []
    times: list[float] = []
    for entry in entries:
        peers: frozenset[str | Peer] = frozenset([*entry.peers, *entry.described])
        started = time.perf_counter()
        verdict = screener.screen_tool(entry.tool, peers)
        times.append((time.perf_counter() - started) * 1e6)
        category = entry.category or "?"
        if entry.label == "malicious":
            if verdict.drop:
                caught[category] += 1
            else:
                missed.append(entry.id)
        elif verdict.drop:
            dropped[category] += 1
            false_drops.append(entry.id)
    poisoned = sum(entry.label == "malicious" for entry in entries)
    honest = len(entries) - poisoned
    by_class = Counter(entry.category or "?" for entry in entries if entry.label == "malicious")
    return {
        "recall": _share(poisoned - len(missed), poisoned),
        "honest dropped": _share(len(false_drops), honest),
        "by class (caught/poisoned, dropped)": {
            category: f"{caught[category]}/{by_class[category]}, {dropped[category]}"
            for category in _CATEGORIES
            if by_class[category] or dropped[category]
        },
        "missed": missed,
        "dropped honest": false_drops,
        "median µs": round(statistics.median(times)),
        "p99 µs": round(percentile(times, 99)),
    }


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f} %" if whole else "0/0"


def _commit() -> str:
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return head.stdout.strip() or "unknown"


def _text(report: dict[str, Any]) -> str:
    lines = [
        f"batch {', '.join(report['batch'])}: {report['definitions']} definitions, "
        f"commit {report['commit']}, {report['date']}, load {report['load'][0]:.2f}"
    ]
    for name, figures in report["screeners"].items():
        lines.append(f"\n{name}:")
        lines.extend(f"  {key}: {value}" for key, value in figures.items())
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
