"""How well the rule screener separates poisoned tool definitions from honest ones, and how fast.

    .venv/bin/python bench/screen_quality.py [--datasets DIR] [--json] [--repeat N] [--lexical]
        [--judge SPEC [--judge-base-url URL] [--judge-api-key-env VAR] [--judge-timeout S]]

1. ``mcpproxy-go/normalized.jsonl`` (labelled): recall on malicious entries, overall and per
   category; drop rate on benign entries and on hard negatives, separately (targets: recall
   >= 0.90, <= 5 % of benign incl. hard negatives dropped);
2. the real tools: livemcpbench's 527 (target <= 2 % dropped), mcpproxy-go's 45, and both pooled
   after de-duplicating by description. Peers are the other servers' names minus the tool's own
   server's names; the last row passes what ``Pool._peers`` passes today instead (own-server
   names that another server also publishes stay in);
3. the held-out set in ``tests/vetting/screener_heldout.jsonl`` (80 definitions written apart from
   the development data, in three batches; RESULTS.md has each batch's first-run numbers);
4. the batches written for issue 18 (``bench/data/screen_batch_*.jsonl``, peers given with their
   descriptions; RESULTS.md §4b has each batch's first run, the honest estimate);
5. time per tool over every definition above (``--repeat`` passes, median and p99), against the
   same screener given names-only peers in the same run (the seam before issue 18).

With ``--lexical`` the screener runs with its learned lexical model on (``RuleScreener(lexical=True)``,
issue 18; ``bench/lexical_model.py`` has how it was chosen and tested).

With ``--judge openai:<model>`` (or ``anthropic:<model>``) the screen judge then reviews every
definition the rules passed, and each set is reported with the rules alone and with the judge
(``_screen_judge``); when no model answers, one line says so and the run exits with 2.

Misses and false drops are listed with their id and top reason. Development data: the
numbers show fit to these files, not generalisation (see the data sets' README).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _report import Table, machine, render
from _screen_data import (
    DEFAULT_DATASETS,
    Entry,
    dedupe_by_description,
    load,
    load_batches,
    load_held_out,
)
from _screen_judge import JudgeOptions, JudgeUnavailable, judge_report, print_judge_report
from _timing import percentile
from toolpool.vetting.peer_set import PeerSet
from toolpool.vetting.screener import RuleScreener
from toolpool.vetting.screening import Verdict

_SCREENER = RuleScreener()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS, help="the shared datasets folder")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument("--repeat", type=int, default=20, help="timing passes over all tools (default 20)")
    parser.add_argument("--lexical", action="store_true", help="the screener with its lexical model on")
    parser.add_argument(
        "--judge",
        metavar="SPEC",
        help='a screen judge after the rules: "openai:<model>" or "anthropic:<model>"',
    )
    parser.add_argument(
        "--judge-base-url", metavar="URL", help="the judge's API base URL (an OpenAI-compatible server)"
    )
    parser.add_argument(
        "--judge-api-key-env", metavar="VAR", help="the environment variable holding the judge's API key"
    )
    parser.add_argument(
        "--judge-timeout", type=float, default=30.0, metavar="S", help="seconds per judgement (default 30)"
    )
    args = parser.parse_args()
    if args.lexical:
        global _SCREENER
        _SCREENER = RuleScreener(lexical=True)
    proxy = load(args.datasets / "mcpproxy-go" / "normalized.jsonl")
    live = load(args.datasets / "livemcpbench" / "normalized.jsonl")
    held_out = load_held_out()
    batches = load_batches()
    judged = None
    if args.judge:
        options = JudgeOptions(args.judge, args.judge_base_url, args.judge_api_key_env, args.judge_timeout)
        sets = {
            "mcpproxy-go (labelled+real)": proxy,
            "livemcpbench (real)": live,
            "held-out": held_out,
            **{
                f"batch {batch}": [e for e in batches if e.batch == batch]
                for batch in sorted({e.batch for e in batches})
            },
        }
        try:
            judged = judge_report(options, sets, screen)
        except JudgeUnavailable as exc:
            print(exc, file=sys.stderr)
            raise SystemExit(2) from None
    report = {
        "machine": machine(),
        "mcpproxy_go": labelled_report(proxy),
        "real": real_report(proxy, live),
        "held_out": labelled_report(held_out),
        "held_out_batches": {
            batch: labelled_report([e for e in held_out if e.batch == batch])
            for batch in sorted({e.batch for e in held_out})
        },
        "new_batches": {
            batch: labelled_report([e for e in batches if e.batch == batch])
            for batch in sorted({e.batch for e in batches})
        },
        "timing": timing_report([*proxy, *live, *held_out, *batches], args.repeat),
    }
    if judged is not None:
        report["judge"] = judged
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_report(report)
        if "judge" in report:
            print()
            print_judge_report(report["judge"])


def screen(entry: Entry, *, pool_peers: bool = False, described: bool = True) -> Verdict:
    """With the peers' definitions (issue 18) unless ``described`` is false (names only).

    Peers are one ``PeerSet`` per entry, built once, as admission builds one per connect and
    screens each of the server's tools with it (until 2026-12-07 a set of names and ``Peer``s
    was kept here, and the screener made a ``PeerGroup`` of it at every call, inside the timing:
    RESULTS.md §4ah)."""
    names = entry.pool_peers if pool_peers else entry.peers
    key = (entry.batch, entry.id, pool_peers, described)  # ids repeat across sets ("h_mal_01", batch H)
    peers = _PEERS.get(key)
    if peers is None:
        peers = _PEERS[key] = PeerSet.of([*names, *entry.described] if described else names)
    return _SCREENER.screen_tool(entry.tool, peers)


_PEERS: dict[tuple[str, str, bool, bool], PeerSet] = {}


def labelled_report(entries: Sequence[Entry]) -> dict[str, Any]:
    malicious = [e for e in entries if e.label == "malicious"]
    benign = [e for e in entries if e.label == "benign" and not e.hard_negative]
    hard = [e for e in entries if e.label == "benign" and e.hard_negative]
    verdicts = {e.id: screen(e) for e in [*malicious, *benign, *hard]}
    by_category: dict[str, list[bool]] = defaultdict(list)
    for entry in malicious:
        by_category[entry.category or "?"].append(verdicts[entry.id].drop)
    caught = sum(verdicts[e.id].drop for e in malicious)
    false_drops = [e for e in [*benign, *hard] if verdicts[e.id].drop]
    return {
        "malicious": len(malicious),
        "recall": _ratio(caught, len(malicious)),
        "recall_by_category": {c: _ratio(sum(v), len(v)) for c, v in sorted(by_category.items())},
        "category_sizes": {c: len(v) for c, v in sorted(by_category.items())},
        "benign": len(benign),
        "benign_dropped": _ratio(sum(verdicts[e.id].drop for e in benign), len(benign)),
        "hard_negatives": len(hard),
        "hard_negatives_dropped": _ratio(sum(verdicts[e.id].drop for e in hard), len(hard)),
        "all_benign_dropped": _ratio(len(false_drops), len(benign) + len(hard)),
        "misses": [_row(e, verdicts[e.id]) for e in malicious if not verdicts[e.id].drop],
        "false_drops": [_row(e, verdicts[e.id]) for e in false_drops],
    }


def real_report(proxy: Sequence[Entry], live: Sequence[Entry]) -> dict[str, Any]:
    proxy_real = [e for e in proxy if e.label == "real"]
    live_real = [e for e in live if e.label == "real"]
    pooled = list(dedupe_by_description([*live_real, *proxy_real]))
    out: dict[str, Any] = {}
    sets = (
        ("livemcpbench", live_real, False),
        ("mcpproxy_go", proxy_real, False),
        ("pooled", pooled, False),
        ("livemcpbench_pool_peers", live_real, True),
    )
    for name, entries, pool_peers in sets:
        verdicts = [(e, screen(e, pool_peers=pool_peers)) for e in entries]
        dropped = [(e, v) for e, v in verdicts if v.drop]
        out[name] = {
            "tools": len(entries),
            "dropped": len(dropped),
            "drop_rate": _ratio(len(dropped), len(entries)),
            "false_drops": [_row(e, v) for e, v in dropped],
            "near_misses": sorted(
                (_row(e, v) for e, v in verdicts if 0.6 <= v.score < 1.0), key=lambda r: -r["score"]
            ),
        }
    return out


def timing_report(entries: Sequence[Entry], repeat: int) -> dict[str, Any]:
    """Per tool, interleaved in one run: with the peers' definitions, and names only (the baseline:
    what the seam passed before issue 18)."""
    per_tool_ns: dict[str, list[int]] = defaultdict(list)
    baseline_ns: dict[str, list[int]] = defaultdict(list)
    for _ in range(max(1, repeat)):
        for entry in entries:
            began = time.perf_counter_ns()
            screen(entry)
            per_tool_ns[entry.id].append(time.perf_counter_ns() - began)
            began = time.perf_counter_ns()
            screen(entry, described=False)
            baseline_ns[entry.id].append(time.perf_counter_ns() - began)
    medians = [statistics.median(samples) for samples in per_tool_ns.values()]
    baseline = statistics.median(statistics.median(samples) for samples in baseline_ns.values())
    return {
        "names_only_median_us": round(baseline / 1000, 1),
        "ratio_to_names_only": round(statistics.median(medians) / baseline, 2),
        "tools": len(medians),
        "passes": max(1, repeat),
        "median_us": round(statistics.median(medians) / 1000, 1),
        "mean_us": round(statistics.fmean(medians) / 1000, 1),
        "p99_us": round(percentile(medians, 99) / 1000, 1),
        "max_us": round(max(medians) / 1000, 1),
    }


def print_report(report: dict[str, Any]) -> None:
    parts = [("mcpproxy-go (labelled)", report["mcpproxy_go"]), ("held-out set", report["held_out"])]
    parts += [(f"batch {batch} (bench/data)", part) for batch, part in report["new_batches"].items()]
    for title, part in parts:
        table = Table(f"{title}: recall on malicious, drop rate on benign", ["set", "n", "rate"])
        table.rows.append(["malicious caught (recall)", str(part["malicious"]), _pct(part["recall"])])
        for category, recall in part["recall_by_category"].items():
            table.rows.append([f"  {category}", str(part["category_sizes"][category]), _pct(recall)])
        table.rows.append(["benign dropped", str(part["benign"]), _pct(part["benign_dropped"])])
        table.rows.append(
            ["hard negatives dropped", str(part["hard_negatives"]), _pct(part["hard_negatives_dropped"])]
        )
        table.rows.append(
            [
                "all benign dropped",
                str(part["benign"] + part["hard_negatives"]),
                _pct(part["all_benign_dropped"]),
            ]
        )
        table.notes += [f"miss: {r['id']} ({r['score']}) {r['top']}" for r in part["misses"]]
        table.notes += [f"false drop: {r['id']} ({r['score']}) {r['top']}" for r in part["false_drops"]]
        print(render(table), end="\n\n")
    table = Table("held-out set by batch", ["batch", "malicious", "recall", "benign", "dropped"])
    for batch, part in report["held_out_batches"].items():
        benign = part["benign"] + part["hard_negatives"]
        table.rows.append(
            [
                batch,
                str(part["malicious"]),
                _pct(part["recall"]),
                str(benign),
                _pct(part["all_benign_dropped"]),
            ]
        )
    print(render(table), end="\n\n")
    table = Table("real tools: drop rate", ["set", "tools", "dropped", "rate"])
    for name, part in report["real"].items():
        table.rows.append([name, str(part["tools"]), str(part["dropped"]), _pct(part["drop_rate"])])
        table.notes += [f"{name} drop: {r['id']} ({r['score']}) {r['top']}" for r in part["false_drops"]]
    near = report["real"]["pooled"]["near_misses"][:10]
    table.notes += [f"closest pass: {r['id']} ({r['score']}) {r['top']}" for r in near]
    print(render(table), end="\n\n")
    timing = report["timing"]
    print(
        f"time per tool ({timing['tools']} tools x {timing['passes']} passes, median of each tool): "
        f"median {timing['median_us']} us, mean {timing['mean_us']} us, p99 {timing['p99_us']} us, "
        f"max {timing['max_us']} us; names-only peers (baseline, same run): median "
        f"{timing['names_only_median_us']} us, ratio {timing['ratio_to_names_only']}x"
    )
    print(f"machine: {report['machine']['cpu']}, python {report['machine']['python']}")


def _row(entry: Entry, verdict: Verdict) -> dict[str, Any]:
    return {"id": entry.id, "score": verdict.score, "top": verdict.reasons[0] if verdict.reasons else ""}


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


if __name__ == "__main__":
    main()
