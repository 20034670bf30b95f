"""Where limits are counted: ``LimitState`` is the small interface, ``MemoryState`` the
in-process one (``_limits_redis.RedisState`` shares state between processes).

A ``take`` is all or nothing: every level's bucket and concurrency count and the quota are
checked first and spent only if all of them admit the call, so a refusal at the tool level
does not spend the alias's bucket. The order of the checks decides which refusal a caller
sees when several apply: the quota, then concurrency, then the rate (the longest wait).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from toolpool import errors
from toolpool.calls._limit_plan import Plan, Quota, period_bounds

__all__ = ["LimitState", "MemoryState", "Refusal", "quota_counter"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a call was not admitted: ``scope`` is the level (``alias``, ``tool``,
    ``principal``, or ``quota``), ``kind`` what was spent (``rate``, ``concurrency``,
    ``calls``, ``wait_s``, or ``redis`` for ``limits_unavailable``); ``retry_after_s`` is None
    for concurrency (the caller estimates it)."""

    code: str
    scope: str
    kind: str
    retry_after_s: float | None


class LimitState(Protocol):
    """Counts buckets, concurrency slots and quotas for one pool."""

    async def take(self, plan: Plan, slot: str, now: datetime) -> tuple[Refusal | None, bool]:
        """Admit one call under ``plan`` (``slot`` names its concurrency slots; ``now`` picks
        the quota period): the refusal, or None and whether anything was counted (nothing is
        while shared state is unreachable and the plan fails open)."""
        ...

    async def give_back(self, plan: Plan, slot: str, started: datetime, reached: bool, wait_s: float) -> None:
        """Free the call's slots; count its upstream wait against the quota of the period it
        started in, or, if it never reached the upstream, return its call to that quota."""
        ...

    async def seed(self, spent: Mapping[tuple[str, datetime, datetime], tuple[int, float]]) -> None:
        """Start quota counters at what the store says was spent: (quota key, period start,
        period end) -> (calls, wait seconds); a counter that is already counting is kept."""
        ...

    async def aclose(self) -> None: ...


def quota_counter(quota: Quota, now: datetime) -> tuple[datetime, datetime]:
    """The start and end of the quota period that ``now`` falls in."""
    return period_bounds(quota.period, now)


class _Spent:
    """One quota's counters in its current period (a new period starts them again)."""

    __slots__ = ("calls", "end", "start", "wait_s")

    def __init__(self, start: datetime, end: datetime, calls: float = 0.0, wait_s: float = 0.0) -> None:
        self.start, self.end, self.calls, self.wait_s = start, end, calls, wait_s


class MemoryState:
    """Limits counted in this process, on its event loop (so each ``take`` is atomic);
    ``monotonic`` is the buckets' clock."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self._monotonic = monotonic
        self._buckets: dict[str, tuple[float, float]] = {}
        self._slots: dict[str, int] = {}
        self._quotas: dict[str, _Spent] = {}
        self._periods: dict[str, tuple[datetime, datetime]] = {}

    def _spent(self, quota: Quota, now: datetime) -> _Spent:
        """The quota's counters for the period ``now`` is in; the period's bounds are
        remembered until it ends (computing them costs more than the rest of a take)."""
        bounds = self._periods.get(quota.period)
        if bounds is None or not bounds[0] <= now < bounds[1]:
            bounds = self._periods[quota.period] = quota_counter(quota, now)
        spent = self._quotas.get(quota.key)
        if spent is None or spent.start != bounds[0]:
            spent = self._quotas[quota.key] = _Spent(*bounds)
        return spent

    async def take(self, plan: Plan, slot: str, now: datetime) -> tuple[Refusal | None, bool]:
        quota = plan.quota
        spent: _Spent | None = None
        if quota is not None:
            spent = self._spent(quota, now)
            left = (spent.end - now).total_seconds()
            if quota.calls is not None and spent.calls >= quota.calls:
                return Refusal(errors.QUOTA_EXCEEDED, "quota", "calls", left), False
            if quota.wait_s is not None and spent.wait_s >= quota.wait_s:
                return Refusal(errors.QUOTA_EXCEEDED, "quota", "wait_s", left), False
        for level in plan.levels:
            if level.max_concurrent is not None and self._slots.get(level.key, 0) >= level.max_concurrent:
                return Refusal(errors.RATE_LIMITED, level.scope, "concurrency", None), False
        at = self._monotonic()
        filled: list[tuple[str, float]] = []
        worst: Refusal | None = None
        for level in plan.levels:
            rate, size = level.refill_per_s, level.size
            if rate is None or size is None:
                continue
            tokens, last = self._buckets.get(level.key, (float(size), at))
            tokens = min(float(size), tokens + max(0.0, at - last) * rate)
            filled.append((level.key, tokens))
            wait = (1.0 - tokens) / rate
            if tokens < 1.0 and (worst is None or wait > (worst.retry_after_s or 0.0)):
                worst = Refusal(errors.RATE_LIMITED, level.scope, "rate", wait)
        if worst is not None:
            return worst, False
        for key, tokens in filled:
            self._buckets[key] = (tokens - 1.0, at)
        for level in plan.levels:
            if level.max_concurrent is not None:
                self._slots[level.key] = self._slots.get(level.key, 0) + 1
        if spent is not None:
            spent.calls += 1
        return None, True

    async def give_back(self, plan: Plan, slot: str, started: datetime, reached: bool, wait_s: float) -> None:
        for level in plan.levels:
            if level.max_concurrent is not None:
                self._slots[level.key] = max(0, self._slots.get(level.key, 0) - 1)
        quota = plan.quota
        if quota is None:
            return
        spent = self._quotas.get(quota.key)
        if spent is None or not spent.start <= started < spent.end:
            return  # the period the call started in is over: nothing left to count in it
        if reached:
            spent.wait_s += wait_s
        else:
            spent.calls = max(0.0, spent.calls - 1)

    async def seed(self, spent: Mapping[tuple[str, datetime, datetime], tuple[int, float]]) -> None:
        for (key, start, end), (calls, wait_s) in spent.items():
            if key not in self._quotas:
                self._quotas[key] = _Spent(start, end, float(calls), wait_s)

    async def aclose(self) -> None:
        pass
