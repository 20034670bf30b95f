"""What showing ``search_tools`` and a few found tools saves over showing every tool.

    .venv/bin/python bench/context_budget.py [--datasets DIR] [--rounds R] [--json]

Tool sets, each under the local names a model sees (``mcp__<alias>__<tool>``):

- LiveMCPBench's 527 real tools (``livemcpbench/normalized.jsonl`` in ``--datasets``);
- the ``paged`` demo kind at 300, 1,000 and 10,000 tools, built from ``toolpool.demo``'s catalog
  and listed through its own ``tools/list`` handler, in process, page by page (no server runs).

Queries come from the data: a tool's name words (``get_income_statement`` → "get income
statement"), its server and name words, and its description's first eight words. For each set:

1. estimated prompt tokens (``estimate_tokens``) of the full list against what a search shows:
   a ``search_tools`` spec plus the ``search_limit`` (5) tools found; and recall@5, how often
   the tool a query was made from is among them;
2. time per search, each call timed alone, ``--rounds`` passes over every query with the arms
   alternating: ``ToolIndex.search`` against a baseline measured in the same run, a naive scan
   that counts the query's words found as substrings of each tool's lowercased name and
   description.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import anyio
from mcp import types

from _report import Table, machine, render
from _screen_data import DEFAULT_DATASETS
from _timing import percentile
from toolpool.agent._budget import (
    DEFAULT_SEARCH_LIMIT,
    QUERY_MAX_CHARS,
    ToolIndex,
    estimate_tokens,
    order_tools,
)
from toolpool.agent._messages import ToolSpec
from toolpool.demo._catalog import KINDS, DemoOptions
from toolpool.vetting.names import local_name

PAGED_SIZES = (300, 1_000, 10_000)
_MAX_QUERIES = 1_000  # per set: larger sets are sampled evenly
_DESCRIPTION_WORDS = 8
_BUILDS = 5  # index builds per set; the median is reported

# A representative spec for the builtin the agent shows instead of the full list.
SEARCH_TOOL = ToolSpec(
    "search_tools",
    "Find tools for a task. Returns the names, descriptions and argument schemas of up to 5 tools "
    "whose names and descriptions best match the query; they can be called on the next turn.",
    {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "what you want to do, in a few words"}},
        "required": ["query"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True, slots=True)
class QuerySet:
    name: str
    tools: tuple[ToolSpec, ...]
    queries: tuple[tuple[str, str], ...]  # (query, name of the tool it was made from)


class SubstringScan:
    """The baseline: score each tool by how many query words occur in its lowercased text."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        self._tools = order_tools(tools)
        self._texts = [f"{tool.name} {tool.description}".lower() for tool in self._tools]

    def search(self, query: str, limit: int = DEFAULT_SEARCH_LIMIT) -> tuple[ToolSpec, ...]:
        words = set(query[:QUERY_MAX_CHARS].lower().split())
        scored = [(sum(word in text for word in words), doc) for doc, text in enumerate(self._texts)]
        best = sorted((-score, doc) for score, doc in scored if score > 0)[:limit]
        return tuple(self._tools[doc] for _, doc in best)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(),
        "search_limit": DEFAULT_SEARCH_LIMIT,
        "search_tool_tokens": estimate_tokens([SEARCH_TOOL]),
        "sets": [_measure(query_set, args.rounds) for query_set in _query_sets(args.datasets)],
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(_heading(results))
        print("\n" + render(_token_table(results)))
        print("\n" + render(_time_table(results)))
    return 0


def _query_sets(datasets: Path) -> list[QuerySet]:
    rows = [
        json.loads(line)
        for line in (datasets / "livemcpbench" / "normalized.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    live = tuple(
        ToolSpec(
            local_name(row["server"], row["name"]), row.get("description") or "", row.get("inputSchema") or {}
        )
        for row in rows
    )
    sets = [
        QuerySet("livemcpbench: name words", live, _queries(live, [_words(row["name"]) for row in rows])),
        QuerySet(
            "livemcpbench: server + name words",
            live,
            _queries(live, [_words(f"{row['server']} {row['name']}") for row in rows]),
        ),
        QuerySet(
            "livemcpbench: description's first words",
            live,
            _queries(
                live, [" ".join((row.get("description") or "").split()[:_DESCRIPTION_WORDS]) for row in rows]
            ),
        ),
    ]
    for size in PAGED_SIZES:
        paged = anyio.run(_paged_tools, size)
        remote = [tool.name.removeprefix("mcp__paged__") for tool in paged]
        sets.append(
            QuerySet(f"paged demo, {size:,} tools: name words", paged, _queries(paged, map(_words, remote)))
        )
    return sets


def _queries(tools: Sequence[ToolSpec], texts: Iterable[str]) -> tuple[tuple[str, str], ...]:
    pairs = [(text, tool.name) for tool, text in zip(tools, texts, strict=True) if text.strip()]
    step = max(1, len(pairs) // _MAX_QUERIES)
    return tuple(pairs[::step][:_MAX_QUERIES])


def _words(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    return " ".join(word.lower() for word in re.findall(r"[^\W_]+", spaced))


async def _paged_tools(size: int) -> tuple[ToolSpec, ...]:
    """The paged kind's tools as ``tools/list`` pages them, with no transport and no process."""
    server = KINDS["paged"].build(DemoOptions(tools=size))
    entry = server.get_request_handler("tools/list")
    assert entry is not None
    found: list[types.Tool] = []
    cursor: str | None = None
    while True:
        # The handler ignores its request context; the runner would build one per request.
        page = await entry.handler(cast(Any, None), types.PaginatedRequestParams(cursor=cursor))
        assert isinstance(page, types.ListToolsResult)
        found += page.tools
        cursor = page.next_cursor
        if cursor is None:  # the cursor after page one is "": a trap, not the end
            break
    return tuple(
        ToolSpec(local_name("paged", tool.name), tool.description or "", tool.input_schema) for tool in found
    )


def _measure(query_set: QuerySet, rounds: int) -> dict[str, Any]:
    builds = []
    for _ in range(_BUILDS):
        start = time.perf_counter_ns()
        index = ToolIndex(query_set.tools)
        builds.append(time.perf_counter_ns() - start)
    scan = SubstringScan(query_set.tools)
    shown, hits, scan_hits = [], 0, 0
    for query, target in query_set.queries:
        found = index.search(query)
        shown.append(estimate_tokens([SEARCH_TOOL, *found]))
        hits += target in {tool.name for tool in found}
        scan_hits += target in {tool.name for tool in scan.search(query)}
    largest = sorted((estimate_tokens([tool]) for tool in query_set.tools), reverse=True)
    full = estimate_tokens(query_set.tools)
    timing = _interleave(
        {"bm25": index.search, "scan": scan.search}, [q for q, _ in query_set.queries], rounds
    )
    return {
        "name": query_set.name,
        "tools": len(query_set.tools),
        "queries": len(query_set.queries),
        "full_tokens": full,
        "shown_median_tokens": statistics.median(shown),
        "shown_max_tokens": max(shown),
        "shown_bound_tokens": estimate_tokens([SEARCH_TOOL]) + sum(largest[:DEFAULT_SEARCH_LIMIT]),
        "ratio_median_vs_full": statistics.median(shown) / full,
        "recall_at_5": hits / len(query_set.queries),
        "recall_at_5_scan": scan_hits / len(query_set.queries),
        "index_build_ms": statistics.median(builds) / 1e6,
        "timing": timing,
    }


def _interleave(
    arms: dict[str, Callable[[str], object]], queries: Sequence[str], rounds: int
) -> dict[str, dict[str, float]]:
    """Every query through every arm, each call timed alone; the arms' order alternates."""
    items = list(arms.items())
    samples: dict[str, list[int]] = {name: [] for name in arms}
    for _, fn in items:  # warm-up
        for query in queries[:50]:
            fn(query)
    for round_number in range(rounds):
        shift = round_number % len(items)
        for name, fn in (*items[shift:], *items[:shift]):
            into = samples[name]
            for query in queries:
                begin = time.perf_counter_ns()
                fn(query)
                into.append(time.perf_counter_ns() - begin)
    return {
        name: {"median_us": statistics.median(values) / 1e3, "p90_us": percentile(values, 90) / 1e3}
        for name, values in samples.items()
    }


def _token_table(results: dict[str, Any]) -> Table:
    table = Table(
        f"1. Estimated tokens: full list vs search_tools ({results['search_tool_tokens']}) "
        f"+ the {results['search_limit']} tools found",
        [
            "set",
            "tools",
            "queries",
            "full",
            "shown median",
            "shown max",
            "shown bound",
            "median ÷ full",
            "recall@5",
            "scan recall@5",
        ],
    )
    for row in results["sets"]:
        table.rows.append(
            [
                row["name"],
                f"{row['tools']:,}",
                f"{row['queries']:,}",
                f"{row['full_tokens']:,}",
                f"{row['shown_median_tokens']:,.0f}",
                f"{row['shown_max_tokens']:,}",
                f"{row['shown_bound_tokens']:,}",
                f"{row['ratio_median_vs_full']:.3f}",
                f"{row['recall_at_5']:.1%}",
                f"{row['recall_at_5_scan']:.1%}",
            ]
        )
    table.notes.append("shown = search_tools spec + the tools found; bound: with the set's 5 largest tools")
    return table


def _time_table(results: dict[str, Any]) -> Table:
    table = Table(
        "2. Time per search (each call timed alone), BM25 vs the substring scan baseline",
        [
            "set",
            "BM25 median µs",
            "BM25 p90 µs",
            "scan median µs",
            "scan p90 µs",
            "BM25 ÷ scan",
            "index build ms (median of 5)",
        ],
    )
    for row in results["sets"]:
        bm25, scan = row["timing"]["bm25"], row["timing"]["scan"]
        table.rows.append(
            [
                row["name"],
                f"{bm25['median_us']:,.1f}",
                f"{bm25['p90_us']:,.1f}",
                f"{scan['median_us']:,.1f}",
                f"{scan['p90_us']:,.1f}",
                f"{bm25['median_us'] / scan['median_us']:.2f}",
                f"{row['index_build_ms']:,.1f}",
            ]
        )
    return table


def _heading(results: dict[str, Any]) -> str:
    box = results["machine"]
    return (
        f"toolpool {box['toolpool']} context budget (estimate_tokens, ToolIndex), {results['date']}\n"
        f"{box['cpu']}, {box['cores_usable']} usable cores; {box['implementation']} {box['python']}\n"
        f"command: {results['command']}"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS, help="the shared datasets folder")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over every query (default 3)")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of tables")
    return parser


if __name__ == "__main__":
    sys.exit(main())
