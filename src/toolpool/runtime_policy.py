"""Runtime policy in the configuration: rate limits, concurrency caps, quotas and retries.

These are the configuration's values only (frozen, validated); ``toolpool.calls`` enforces
them between gates 6 and 7 (limits) and in gate 8 (retries). Limits are set the same way at
three levels — the pool (a default for every alias), a server (all calls to the alias) and a
tool — and per principal in ``[principals.NAME]`` (``"*"`` is the default for every
principal)::

    [pool]
    rate = "100/s"              # a token bucket: calls per s, min, h or day
    burst = 200                 # its size (default: one second's worth, at least 1)
    max_concurrent_calls = 32   # calls in flight at once; one more is refused, never queued

    [principals.ana]
    rate = "5/s"
    quota_calls = 1000          # calls per quota_period ...
    quota_wait_s = 600          # ... and seconds spent waiting on upstream servers
    quota_period = "day"        # "hour" | "day" | "month" (UTC)
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "QUOTA_PERIODS",
    "LimitFields",
    "PrincipalPolicy",
    "RetryPolicy",
    "rate_per_second",
]

# Field docstrings are the fields' descriptions: docs/configuration.md is generated from them.
_FROZEN = ConfigDict(frozen=True, extra="forbid", strict=True, use_attribute_docstrings=True)
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*(s|sec|second|m|min|minute|h|hour|d|day)\s*$")
_UNIT_SECONDS = {
    "s": 1.0,
    "sec": 1.0,
    "second": 1.0,
    "m": 60.0,
    "min": 60.0,
    "minute": 60.0,
    "h": 3600.0,
    "hour": 3600.0,
    "d": 86_400.0,
    "day": 86_400.0,
}
QUOTA_PERIODS = ("hour", "day", "month")


def rate_per_second(rate: str) -> float:
    """``"10/s"`` -> 10.0, ``"30/min"`` -> 0.5.

    Raises:
        ValueError: not ``COUNT/UNIT`` with a positive count and a known unit.
    """
    match = _RATE.match(rate)
    if match is None:
        raise ValueError('must be a rate such as "10/s", "600/min", "1000/h" or "5000/day"')
    count = float(match.group(1))
    if not 0 < count <= 1_000_000_000:
        raise ValueError("the count of a rate must be positive")
    return count / _UNIT_SECONDS[match.group(2)]


class LimitFields(BaseModel):
    """``rate``, ``burst`` and ``max_concurrent_calls``: the same three keys at every level."""

    model_config = _FROZEN
    rate: str | None = None
    """A token bucket for the calls at this level: `COUNT/s`, `/min`, `/h` or `/day` (`"10/s"`); unset, no rate limit."""
    burst: Annotated[int, Field(ge=1, le=1_000_000_000)] | None = None
    """The bucket's size (needs `rate`); by default one second's worth of `rate`, at least 1."""
    max_concurrent_calls: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    """Calls in flight at this level at once (held through the upstream call); unset, no cap."""
    redis_down: Literal["closed", "open"] | None = None
    """With `[pool] redis`, what this level's limits do while Redis cannot be reached: `"closed"` refuses the call (`limits_unavailable`), `"open"` lets it through uncounted; unset, the pool's, else `"closed"`."""

    @field_validator("rate")
    @classmethod
    def _rate_is_a_rate(cls, value: str | None) -> str | None:
        if value is not None:
            rate_per_second(value)
        return value

    @model_validator(mode="after")
    def _burst_needs_a_rate(self) -> LimitFields:
        if self.burst is not None and self.rate is None:
            raise ValueError("`burst` is the size of a `rate`'s bucket: set `rate` too")
        return self

    @property
    def refill_per_s(self) -> float | None:
        """Tokens per second of this level's bucket, or None without a ``rate``."""
        return None if self.rate is None else rate_per_second(self.rate)

    @property
    def bucket_size(self) -> int | None:
        """``burst``, or one second's worth of ``rate`` (at least 1); None without a rate."""
        per_s = self.refill_per_s
        if per_s is None:
            return None
        return self.burst if self.burst is not None else max(1, math.ceil(per_s))

    @property
    def limits_anything(self) -> bool:
        return self.rate is not None or self.max_concurrent_calls is not None


class PrincipalPolicy(LimitFields):
    """``[principals.NAME]``: one principal's limits and quota over all its calls."""

    quota_calls: Annotated[int, Field(ge=1)] | None = None
    """Calls that reached a server, per `quota_period`, before `quota_exceeded`; unset, no call quota."""
    quota_wait_s: Annotated[float, Field(gt=0)] | None = None
    """Seconds spent waiting on upstream servers, per `quota_period`; unset, no wait quota."""
    quota_period: Literal["hour", "day", "month"] = "day"
    """The UTC period a quota counts over."""

    @property
    def has_quota(self) -> bool:
        return self.quota_calls is not None or self.quota_wait_s is not None


class RetryPolicy(BaseModel):
    """``retry = { attempts = 2, backoff_ms = 100 }``: how many more times a *read* call is
    tried after ``mcp_connection_lost`` or ``mcp_timeout`` (so at most ``attempts + 1`` calls),
    waiting ``backoff_ms`` and then twice as long each time, all within the call's deadline.
    A write is never retried; the configuration refuses a retry on a write tool."""

    model_config = _FROZEN
    attempts: Annotated[int, Field(ge=1, le=10)] = 2
    """How many more times a read call is tried after `mcp_connection_lost` or `mcp_timeout`."""
    backoff_ms: Annotated[int, Field(ge=0, le=60_000)] = 100
    """The wait before the first retry; each further wait is twice as long."""
    deadline_s: Annotated[float, Field(gt=0, le=86_400)] | None = None
    """The call's deadline: no attempt starts after it; unset, `connect_timeout_s` plus `call_timeout_s` for each try."""
