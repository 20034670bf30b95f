"""The limits gate (between gates 6 and 7, after approval): rate limits, concurrency caps and
quotas per alias, tool and principal (``_limit_plan`` says which apply).

A call over a limit is refused at once, never queued: ``rate_limited`` with
``meta = {"retry_after_s": ...}`` (a bucket's time to its next token; for a concurrency cap,
the median of the alias's last upstream calls, or 1 s before there are any: a guess at when a
slot frees up), ``quota_exceeded`` with the seconds until the quota's UTC period ends and
which quota, or ``limits_unavailable`` while Redis is down and the limit fails closed.

A call that is admitted gets a ``Permit``: it holds the concurrency slots across the breaker
and the upstream call (gates 7-9) and gives them back on leaving, also when the call is
cancelled. A quota counts the calls that reached the upstream (``permit.reached()``) and the
seconds spent waiting on it; a call refused later (``circuit_open``) returns its call.
"""

from __future__ import annotations

import secrets
import statistics
from collections import deque
from collections.abc import Callable, Mapping
from datetime import datetime
from itertools import count
from types import TracebackType

from toolpool import errors
from toolpool.calls._envelope import Envelope, refusal
from toolpool.calls._limit_plan import REACHED_CODES, Plan, PlanBook, period_bounds, quota_policies
from toolpool.calls._limit_state import LimitState, MemoryState, Refusal
from toolpool.config import Config
from toolpool.store import Store

__all__ = ["NO_PERMIT", "Limits", "Permit"]

# The wait a concurrency refusal suggests before the alias has a call time to go by.
_DEFAULT_SLOT_WAIT_S = 1.0
_SLOT_WAIT_RANGE = (0.05, 60.0)
_RECENT_CALLS = 31  # upstream call times per alias kept for the median
_MIN_WAIT_S = 0.001  # a wait of 0 is never suggested

_SCOPES = {"alias": "the server's", "tool": "the tool's", "principal": "your"}


class Permit:
    """One admitted call's hold on its limits; ``async with`` it around gates 7-9."""

    def __init__(self, limits: Limits | None, plan: Plan | None, slot: str, started: datetime) -> None:
        self._limits = limits
        self._plan = plan
        self._slot = slot
        self._started = started
        self._reached_at: float | None = None

    def reached(self) -> None:
        """The call goes to the upstream now: it counts against the quota, with its wait."""
        if self._limits is not None:
            self._reached_at = self._limits.monotonic()

    async def __aenter__(self) -> Permit:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        limits, plan = self._limits, self._plan
        if limits is None or plan is None:
            return
        reached = self._reached_at is not None
        wait_s = 0.0 if self._reached_at is None else max(0.0, limits.monotonic() - self._reached_at)
        if reached:
            limits.took(plan.alias, wait_s)
        # Never suspends in process; RedisState shields and bounds its round trip itself.
        await limits.state.give_back(plan, self._slot, self._started, reached, wait_s)


# What a call without a quota passes for "now": only quotas need the wall clock.
_NO_PERIOD = datetime.min

NO_PERMIT = Permit(None, None, "", _NO_PERIOD)
"""The permit of a call no limit applies to: nothing to count or give back."""


class Limits:
    """The limits of one pool; ``state`` counts them (in process, or in Redis)."""

    def __init__(
        self,
        config: Config | None,
        state: LimitState | None,
        *,
        clock: Callable[[], datetime],
        monotonic: Callable[[], float],
    ) -> None:
        self._book = PlanBook(config) if config is not None else None
        self._principals = config.principals if config is not None else {}
        self.monotonic = monotonic
        self.state: LimitState = state if state is not None else MemoryState(monotonic)
        self._clock = clock
        # Slot names must be unique across every process that shares a Redis.
        self._slot_prefix = secrets.token_hex(8)
        self._slots = count(1)
        self._recent: dict[str, deque[float]] = {}

    @classmethod
    def none(cls) -> Limits:
        """Limits that admit every call (for a pipeline built without any)."""
        return cls(None, None, clock=lambda: datetime.min, monotonic=lambda: 0.0)

    async def admit(self, alias: str, tool: str, name: str, principal: str) -> Permit | Envelope:
        """A permit for one call of ``tool`` on ``alias`` by ``principal``, or the refusal
        (``name`` is the tool's local name, for the text)."""
        book = self._book
        if book is None or not book.any_limits:
            return NO_PERMIT
        plan = book.plan(alias, tool, principal)
        if plan.empty:
            return NO_PERMIT
        now = self._clock() if plan.quota is not None else _NO_PERIOD
        slot = f"{self._slot_prefix}-{next(self._slots)}"
        refused, counted = await self.state.take(plan, slot, now)
        if refused is not None:
            return self._refusal(refused, name, alias)
        return Permit(self, plan, slot, now) if counted else NO_PERMIT

    def took(self, alias: str, seconds: float) -> None:
        """Remember one upstream call's time, for the wait a concurrency refusal suggests."""
        recent = self._recent.get(alias)
        if recent is None:
            recent = self._recent[alias] = deque(maxlen=_RECENT_CALLS)
        recent.append(seconds)

    async def seed(self, store: Store) -> None:
        """Start each principal's quota at what the store's usage says it spent in the
        current period, so that a restart does not reset it."""
        policies = quota_policies(self._principals)
        if not policies or self._book is None:
            return
        now = self._clock()
        spent: dict[tuple[str, datetime, datetime], tuple[int, float]] = {}
        for period in sorted({policy.quota_period for policy in policies.values()}):
            start, end = period_bounds(period, now)
            for principal, used in store.usage.spent(start, REACHED_CODES).items():
                policy = self._book.policy_of(principal)
                if policy is not None and policy.has_quota and policy.quota_period == period:
                    spent[(f"q:{principal}", start, end)] = used
        await self.state.seed(spent)

    async def aclose(self) -> None:
        await self.state.aclose()

    def _refusal(self, refused: Refusal, name: str, alias: str) -> Envelope:
        if refused.code == errors.LIMITS_UNAVAILABLE:
            return refusal(
                errors.LIMITS_UNAVAILABLE,
                name,
                f"the limits of {name} cannot be checked right now, so the call was not made",
            )
        wait = refused.retry_after_s if refused.retry_after_s is not None else self._slot_wait(alias)
        wait = round(max(_MIN_WAIT_S, wait), 3)
        if refused.code == errors.QUOTA_EXCEEDED:
            meta: Mapping[str, object] = {"retry_after_s": wait, "quota": refused.kind}
            what = "calls" if refused.kind == "calls" else "upstream wait time"
            return refusal(
                errors.QUOTA_EXCEEDED,
                name,
                f"your quota of {what} for this period is spent; it renews in {wait:.0f} s",
                meta,
            )
        owner = _SCOPES.get(refused.scope, refused.scope)
        limit = "calls in flight" if refused.kind == "concurrency" else "call rate"
        return refusal(
            errors.RATE_LIMITED,
            name,
            f"{owner} limit of {limit} for {name} is reached; retry in {wait:.3g} s",
            {"retry_after_s": wait, "limit": refused.scope, "kind": refused.kind},
        )

    def _slot_wait(self, alias: str) -> float:
        recent = self._recent.get(alias)
        if not recent:
            return _DEFAULT_SLOT_WAIT_S
        low, high = _SLOT_WAIT_RANGE
        return min(high, max(low, statistics.median(recent)))
