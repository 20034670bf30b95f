"""The web UI's charts: calls per minute and calls per Envelope code, as inline SVG geometry,
and the stacked bars the usage page draws per day (``stacked_chart``).

The numbers come from the call records (gate 10) and the usage ledger; the shapes are computed
here and drawn by a template as plain ``<rect>`` and ``<text>`` elements, so the page needs no
script and no chart library. Records are read from the first one of the window on (found by a binary search
over ids: the store pages forward only), at most ``CALLS_MAX`` of them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from toolpool.serve.ui._pages import last_id
from toolpool.store import CallRecord, Store

__all__ = [
    "Bar",
    "BarChart",
    "Tick",
    "calls_since",
    "code_chart",
    "minute_chart",
    "recent_calls",
    "stacked_chart",
    "window_start",
]

CALLS_MAX = 50_000  # records read for one page of charts; more in an hour is reported as clipped
_PAGE = 5_000
WIDTH, HEIGHT = 720, 200
_LEFT, _BOTTOM, _TOP = 44, 22, 8  # room for the y labels, the x labels, the top tick


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    kind: str  # a CSS class: "ok" or "error"
    title: str  # the tooltip: what the bar counts


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    y: float
    text: str


@dataclass(frozen=True, slots=True)
class BarChart:
    title: str
    bars: tuple[Bar, ...]
    x_labels: tuple[Tick, ...]
    y_labels: tuple[Tick, ...]
    total: int
    width: int = WIDTH
    height: int = HEIGHT
    left: int = _LEFT
    baseline: int = HEIGHT - _BOTTOM


def calls_since(store: Store, since: datetime, *, cap: int = CALLS_MAX) -> tuple[list[CallRecord], bool]:
    """The call records made at or after ``since`` (at most ``cap``), and whether there were more."""

    def first_after(n: int) -> tuple[int, CallRecord] | None:
        found = store.calls.call_records(n, 1)
        return found[0] if found else None

    low, high = 0, last_id(lambda n: [i for i, _ in store.calls.call_records(n, 1)])
    while low < high:  # the smallest after_id whose next record is in the window (or absent)
        middle = (low + high) // 2
        found = first_after(middle)
        if found is not None and found[1].at < since:
            low = min(found[0], high)
        else:
            high = middle
    records: list[CallRecord] = []
    after = low
    while page := store.calls.call_records(after, _PAGE):
        records.extend(record for _, record in page if record.at >= since)
        after = page[-1][0]
        if len(records) >= cap:
            return records[:cap], True
    return records, False


def recent_calls(store: Store, count: int) -> list[CallRecord]:
    """The latest ``count`` call records, newest first."""
    last = last_id(lambda n: [i for i, _ in store.calls.call_records(n, 1)])
    return [record for _, record in reversed(store.calls.call_records(max(0, last - count), count))]


def window_start(now: datetime, minutes: int = 60) -> datetime:
    """The first moment ``minute_chart`` counts: the start of the minute ``minutes - 1`` ago."""
    return now.replace(second=0, microsecond=0) - timedelta(minutes=minutes - 1)


def minute_chart(records: Sequence[CallRecord], now: datetime, minutes: int = 60) -> BarChart:
    """Calls per minute over the last ``minutes``: errors stacked on the successful calls."""
    start = window_start(now, minutes)
    ok, failed = [0] * minutes, [0] * minutes
    for record in records:
        slot = int((record.at - start).total_seconds() // 60)
        if 0 <= slot < minutes:
            (ok if record.code == "ok" else failed)[slot] += 1
    labels = [(start + timedelta(minutes=slot)).strftime("%H:%M") for slot in range(minutes)]
    return stacked_chart(
        f"calls per minute, last {minutes} minutes (UTC)",
        labels,
        [("ok", ok), ("error", failed)],
        lambda label, count, kind: f"{label} UTC: {count} {kind}",
    )


def stacked_chart(
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[int]]],
    describe: Callable[[str, int, str], str],
) -> BarChart:
    """One bar per label, each series stacked on the ones before it; ``series`` are (kind,
    counts per label), the kind also the bars' CSS class; ``describe(label, count, kind)`` is
    a bar's tooltip. Six labels at most are written under the axis."""
    slots = max(len(labels), 1)
    top = _nice(max((sum(counts[slot] for _, counts in series) for slot in range(len(labels))), default=0))
    step = (WIDTH - _LEFT) / slots
    bars: list[Bar] = []
    for slot, label in enumerate(labels):
        x = _LEFT + slot * step + 1
        base = 0.0
        for kind, counts in series:
            if counts[slot]:
                height = _scale(counts[slot], top)
                bars.append(
                    Bar(x, _y(base) - height, step - 2, height, kind, describe(label, counts[slot], kind))
                )
                base += height
    ticks = tuple(
        Tick(_LEFT + slot * step, HEIGHT - 6, labels[slot])
        for slot in range(0, len(labels), max(1, slots // 6))
    )
    total = sum(sum(counts) for _, counts in series)
    return BarChart(title, tuple(bars), ticks, _y_ticks(top), total)


def code_chart(records: Sequence[CallRecord], minutes: int = 60) -> BarChart:
    """Calls per Envelope code, most frequent first (the 12 most frequent codes)."""
    counts = Counter(record.code for record in records).most_common(12)
    top = _nice(counts[0][1] if counts else 0)
    step = (WIDTH - _LEFT) / max(len(counts), 1)
    bars, labels = [], []
    for index, (code, count) in enumerate(counts):
        height = _scale(count, top)
        x = _LEFT + index * step
        kind = "ok" if code == "ok" else "error"
        bars.append(Bar(x + 4, _y(0) - height, step - 8, height, kind, f"{code}: {count}"))
        labels.append(Tick(x + 4, HEIGHT - 6, code))
    title = f"calls per code, last {minutes} minutes"
    return BarChart(title, tuple(bars), tuple(labels), _y_ticks(top), len(records))


def _nice(value: int) -> int:
    """The smallest of 1, 2, 5 times 10^k at or above ``value`` (at least 1): the y axis's top."""
    if value <= 1:
        return 1
    power = int(10 ** math.floor(math.log10(value)))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= value)


def _scale(count: int, top: int) -> float:
    return count / top * (HEIGHT - _BOTTOM - _TOP)


def _y(height: float) -> float:
    return HEIGHT - _BOTTOM - height


def _y_ticks(top: int) -> tuple[Tick, ...]:
    values = (0, top // 2, top) if top > 1 else (0, top)
    return tuple(Tick(_LEFT - 6, _y(_scale(value, top)) + 4, str(value)) for value in values)
