"""The usage page's model: the usage ledger summed per principal, session, alias, tool or day
from a day on (the table), and per day as two charts — calls (errors stacked on the
successful ones) and tokens (tool lists shown, model input, model output).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from toolpool.calls import QuotaStanding, quota_standings
from toolpool.runtime_policy import PrincipalPolicy
from toolpool.serve.ui._charts import BarChart, stacked_chart
from toolpool.store import USAGE_KEYS, Store, UsageBy, UsageTotal

__all__ = ["CHART_DAYS_MAX", "DEFAULT_DAYS", "UsagePage", "usage_page"]

DEFAULT_DAYS = 30  # the page opens on the last 30 days, today included
CHART_DAYS_MAX = 92  # bars per chart: an earlier `since` widens the table, not the charts
BY_CHOICES: tuple[UsageBy, ...] = tuple(USAGE_KEYS)


@dataclass(frozen=True, slots=True)
class UsagePage:
    by: UsageBy
    since: date
    columns: tuple[str, ...]  # the key's columns, as the table heads them
    totals: tuple[UsageTotal, ...]
    charts: tuple[BarChart, ...]
    choices: tuple[UsageBy, ...] = BY_CHOICES
    quotas: tuple[QuotaStanding, ...] = ()

    @property
    def grand(self) -> UsageTotal:
        """Every row of the table, summed."""
        return _sum(self.totals)


def usage_page(
    store: Store,
    by: UsageBy,
    since: date | None,
    today: date,
    principals: Mapping[str, PrincipalPolicy] | None = None,
) -> UsagePage:
    """The page for ``by`` from ``since`` (default: ``DEFAULT_DAYS`` ago) on; with the
    configuration's ``principals``, each one's quota in its current period."""
    since = since if since is not None else today - timedelta(days=DEFAULT_DAYS - 1)
    totals = store.usage.totals(by, since)
    first = min(max(since, today - timedelta(days=CHART_DAYS_MAX - 1)), today)
    per_day = {total.key["day"]: total for total in store.usage.totals("day", first)}
    days = [first + timedelta(days=n) for n in range((today - first).days + 1)]
    found = [per_day.get(day.isoformat()) for day in days]
    labels = [day.strftime("%m-%d") for day in days]
    calls = stacked_chart(
        f"calls per day (UTC), {first:%Y-%m-%d} to {today:%Y-%m-%d}",
        labels,
        [
            ("ok", [0 if t is None else t.calls - t.errors for t in found]),
            ("error", [0 if t is None else t.errors for t in found]),
        ],
        lambda label, count, kind: f"{label}: {count} {kind}",
    )
    tokens = stacked_chart(
        f"tokens per day (UTC), {first:%Y-%m-%d} to {today:%Y-%m-%d}",
        labels,
        [
            ("list", [0 if t is None else t.list_tokens for t in found]),
            ("input", [0 if t is None else t.input_tokens for t in found]),
            ("output", [0 if t is None else t.output_tokens for t in found]),
        ],
        lambda label, count, kind: f"{label}: {count} {_TOKEN_KINDS[kind]} tokens",
    )
    quotas = () if not principals else tuple(quota_standings(principals, store, datetime.now(UTC)))
    return UsagePage(by, since, USAGE_KEYS[by], tuple(totals), (calls, tokens), quotas=quotas)


_TOKEN_KINDS = {"list": "tool-list", "input": "model input", "output": "model output"}


def _sum(totals: Sequence[UsageTotal]) -> UsageTotal:
    codes: dict[str, int] = {}
    for total in totals:
        for code, count in total.codes.items():
            codes[code] = codes.get(code, 0) + count
    return UsageTotal(
        key={},
        calls=sum(t.calls for t in totals),
        errors=sum(t.errors for t in totals),
        codes=dict(sorted(codes.items())),
        wait_ms=sum(t.wait_ms for t in totals),
        bytes_in=sum(t.bytes_in for t in totals),
        bytes_out=sum(t.bytes_out for t in totals),
        lists=sum(t.lists for t in totals),
        list_tokens=sum(t.list_tokens for t in totals),
        model_requests=sum(t.model_requests for t in totals),
        input_tokens=sum(t.input_tokens for t in totals),
        output_tokens=sum(t.output_tokens for t in totals),
    )
