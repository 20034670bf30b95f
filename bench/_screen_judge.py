"""``screen_quality.py --judge``: the screen judge over the same sets, after the rules.

Only the definitions the rules passed are sent (the judge can only add a drop), so each row
shows the rules alone and the rules with the judge. The judge is built as a pool builds it
(``toolpool.vetting.judge.judge_model``, from a ``[pool]``-like setting), with its verdicts
kept in memory; the api key comes from an environment variable (bench code may read it).
Before any set, one probe asks the judge about a harmless definition: when no model answers,
one line says so and the run exits with 2.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import anyio
from pydantic import ValidationError

from _screen_data import Entry
from toolpool.config import PoolSettings, SecretRef
from toolpool.upstream import PublishedTool
from toolpool.vetting.judge import JudgeVerdict, MemoryJudgements, ScreenJudge, judge_model
from toolpool.vetting.screening import Verdict

__all__ = ["JudgeOptions", "JudgeUnavailable", "judge_report", "print_judge_report"]

# Reviews in flight at once: enough to keep a remote provider busy, few enough for a local one.
_AT_ONCE: Final = 4
_PROBE = PublishedTool(
    "add",
    "Adds two numbers and returns their sum.",
    {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
)


class JudgeUnavailable(Exception):
    """No judge can be built or reached; ``str()`` is the one line to print."""


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    spec: str
    base_url: str | None = None
    api_key_env: str | None = None
    timeout_s: float = 30.0
    max_calls: int = 100_000


def judge_report(
    options: JudgeOptions,
    sets: Mapping[str, Sequence[Entry]],
    rules: Callable[[Entry], Verdict],
) -> dict[str, Any]:
    """Each set's figures with the rules alone and with the judge after them.

    Raises:
        JudgeUnavailable: the judge cannot be configured, or the probe got no verdict.
    """
    return anyio.run(_report, options, sets, rules)


async def _report(
    options: JudgeOptions, sets: Mapping[str, Sequence[Entry]], rules: Callable[[Entry], Verdict]
) -> dict[str, Any]:
    judge = _judge(options)
    try:
        probe = await judge.review(_PROBE)
        if probe.judgement is None:
            where = options.base_url or "the provider's default URL"
            raise JudgeUnavailable(f"no screen judge reachable ({options.spec} at {where}): {probe.failure}")
        out: dict[str, Any] = {"judge": judge.name, "sets": {}}
        for name, entries in sets.items():
            out["sets"][name] = await _one_set(judge, entries, rules)
        out["model_calls"] = judge.calls
        return out
    finally:
        await judge.aclose()


def _judge(options: JudgeOptions) -> ScreenJudge:
    key = None if options.api_key_env is None else SecretRef(secret=options.api_key_env)
    try:
        settings = PoolSettings(
            screen_judge=options.spec,
            screen_judge_base_url=options.base_url,
            screen_judge_api_key=key,
            screen_judge_timeout_s=options.timeout_s,
        )
    except ValidationError as exc:
        raise JudgeUnavailable(f"--judge: {exc.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    model = judge_model(settings, os.environ.get)
    return ScreenJudge(
        model,
        MemoryJudgements(),
        timeout_s=options.timeout_s,
        max_calls=options.max_calls,
        max_chars=settings.screen_judge_max_chars,
        owns_model=True,
    )


async def _one_set(
    judge: ScreenJudge, entries: Sequence[Entry], rules: Callable[[Entry], Verdict]
) -> dict[str, Any]:
    ruled = [(entry, rules(entry).drop) for entry in entries]
    judged: dict[int, JudgeVerdict] = {}
    seconds: list[float] = []
    limiter = anyio.CapacityLimiter(_AT_ONCE)

    async def review(index: int, entry: Entry) -> None:
        async with limiter:
            began = time.perf_counter()
            judged[index] = await judge.review(entry.tool, entry.peers)
            if not judged[index].cached:
                seconds.append(time.perf_counter() - began)

    async with anyio.create_task_group() as tasks:
        for index, (entry, dropped) in enumerate(ruled):
            if not dropped:
                tasks.start_soon(review, index, entry)
    after = [dropped or (index in judged and judged[index].drop) for index, (_, dropped) in enumerate(ruled)]
    failures = [verdict.failure for verdict in judged.values() if verdict.failure is not None]
    return {
        "rules": _figures(entries, [dropped for _, dropped in ruled]),
        "with_judge": _figures(entries, after),
        "sent": len(judged),
        "failures": len(failures),
        "failure_examples": sorted(set(failures))[:3],
        "added_drops": [entries[i].id for i, (_, dropped) in enumerate(ruled) if after[i] and not dropped],
        "median_s": round(statistics.median(seconds), 3) if seconds else None,
    }


def _figures(entries: Sequence[Entry], dropped: Sequence[bool]) -> dict[str, Any]:
    def rate(label: str) -> tuple[int, int]:
        chosen = [drop for entry, drop in zip(entries, dropped, strict=True) if entry.label == label]
        return sum(chosen), len(chosen)

    caught, malicious = rate("malicious")
    benign_dropped, benign = rate("benign")
    real_dropped, real = rate("real")
    return {
        "malicious": malicious,
        "caught": caught,
        "benign": benign,
        "benign_dropped": benign_dropped,
        "real": real,
        "real_dropped": real_dropped,
    }


def print_judge_report(report: Mapping[str, Any]) -> None:
    print(f"screen judge {report['judge']}: {report['model_calls']} model calls")
    header = f"{'set':<28} {'recall rules':>13} {'+judge':>8} {'benign drop':>12} {'+judge':>8} {'real drop':>10} {'+judge':>8} {'sent':>5} {'fail':>5}"
    print(header)
    for name, part in report["sets"].items():
        rules, judged = part["rules"], part["with_judge"]
        print(
            f"{name:<28} {_of(rules, 'caught', 'malicious'):>13} {_of(judged, 'caught', 'malicious'):>8} "
            f"{_of(rules, 'benign_dropped', 'benign'):>12} {_of(judged, 'benign_dropped', 'benign'):>8} "
            f"{_of(rules, 'real_dropped', 'real'):>10} {_of(judged, 'real_dropped', 'real'):>8} "
            f"{part['sent']:>5} {part['failures']:>5}"
        )
        for failure in part["failure_examples"]:
            print(f"    failure: {failure}")
        if part["added_drops"]:
            print(f"    judge added drops: {', '.join(part['added_drops'][:12])}")


def _of(figures: Mapping[str, int], part: str, whole: str) -> str:
    return f"{figures[part]}/{figures[whole]}" if figures[whole] else "-"
