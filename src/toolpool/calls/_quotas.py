"""Where each principal stands against its quota in the current period, as the store's usage
says (``toolpool usage --quotas`` and the UI's usage page show it).

The store is what every process writes, so this is the shared answer whether limits are
counted in process or in Redis; it trails the live counters by the calls not yet flushed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from toolpool.calls._limit_plan import REACHED_CODES, period_bounds, quota_policies
from toolpool.runtime_policy import PrincipalPolicy
from toolpool.store import Store

__all__ = ["QuotaStanding", "quota_standings"]


@dataclass(frozen=True, slots=True)
class QuotaStanding:
    """One principal's quota and what it spent of it in the period that ends at ``renews``."""

    principal: str
    period: str
    renews: datetime
    calls: int
    calls_limit: int | None
    wait_s: float
    wait_limit_s: float | None

    @property
    def exceeded(self) -> bool:
        over_calls = self.calls_limit is not None and self.calls >= self.calls_limit
        return over_calls or (self.wait_limit_s is not None and self.wait_s >= self.wait_limit_s)

    def as_dict(self) -> dict[str, object]:
        return {
            "principal": self.principal,
            "period": self.period,
            "renews": self.renews.isoformat(),
            "calls": self.calls,
            "calls_limit": self.calls_limit,
            "wait_s": round(self.wait_s, 3),
            "wait_limit_s": self.wait_limit_s,
            "exceeded": self.exceeded,
        }


def quota_standings(
    principals: Mapping[str, PrincipalPolicy], store: Store, now: datetime
) -> list[QuotaStanding]:
    """Every principal named with a quota (spent or not), and every other principal that
    spent something under the ``"*"`` quota, in name order."""
    policies = quota_policies(principals)
    default = policies.get("*")
    found: list[QuotaStanding] = []
    for period in sorted({policy.quota_period for policy in policies.values()}):
        start, end = period_bounds(period, now)
        spent = store.usage.spent(start, REACHED_CODES)
        names = {name for name, policy in policies.items() if name != "*" and policy.quota_period == period}
        if default is not None and default.quota_period == period:
            names |= {name for name in spent if name not in principals}
        for name in names:
            policy = policies.get(name, default)
            assert policy is not None
            calls, wait_s = spent.get(name, (0, 0.0))
            found.append(
                QuotaStanding(name, period, end, calls, policy.quota_calls, wait_s, policy.quota_wait_s)
            )
    return sorted(found, key=lambda standing: (standing.principal, standing.period))
