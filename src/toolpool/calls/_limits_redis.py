"""Limits shared by every process of a deployment: ``[pool] redis = "redis://host:port/db"``.

Buckets, concurrency slots and quota counters live in Redis under ``toolpool:``, and one Lua
script per call checks and spends every level at once (one round trip, atomic, on Redis's
own clock so that the processes' clocks need not agree):

- a bucket is a hash ``{tokens, at}`` that expires once it would be full again anyway;
- a level's concurrency is a sorted set of slots scored by their expiry (the call's timeout
  plus a grace), so a process that crashed holding slots loses them by itself;
- a quota is a hash ``{calls, wait}`` per principal and UTC period, expiring after it.

While Redis cannot be reached (connect and command timeouts of ``REDIS_TIMEOUT_S``, and no
retry for ``_BACKOFF_S`` after a failure, so an outage never stalls calls) each plan does what
its ``redis_down`` says: fail closed (``limits_unavailable``) or let calls through uncounted.
The first failure emits ``limits.redis_down``, the first success after it ``limits.redis_back``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import anyio
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from toolpool import errors
from toolpool.calls._limit_plan import Plan
from toolpool.calls._limit_state import Refusal, quota_counter

__all__ = ["REDIS_TIMEOUT_S", "RedisState"]

# Bounds every connect and command: a healthy local Redis answers in well under a millisecond.
REDIS_TIMEOUT_S = 0.5
# After a failure, calls do not try Redis again for this long (each try could cost a timeout).
_BACKOFF_S = 1.0
_GIVE_BACK_S = 2.0
_PREFIX = "toolpool:"
# A quota counter outlives its period by this much, for calls that end after it.
_QUOTA_GRACE_S = 3600

_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local n = tonumber(ARGV[1])
local slot, slot_ttl = ARGV[2], tonumber(ARGV[3])
local quota = KEYS[2 * n + 1]
if quota then
  local used = redis.call('HMGET', quota, 'calls', 'wait')
  local calls_max, wait_max = tonumber(ARGV[5]), tonumber(ARGV[6])
  if calls_max >= 0 and (tonumber(used[1]) or 0) >= calls_max then return {2, 0, 'calls'} end
  if wait_max >= 0 and (tonumber(used[2]) or 0) >= wait_max then return {2, 0, 'wait_s'} end
end
for i = 1, n do
  local most = tonumber(ARGV[6 + 3 * i])
  if most >= 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now)
    if redis.call('ZCARD', KEYS[2 * i]) >= most then return {1, i, ''} end
  end
end
local tokens, worst, worst_i = {}, 0, 0
for i = 1, n do
  local rate, size = tonumber(ARGV[4 + 3 * i]), tonumber(ARGV[5 + 3 * i])
  if rate > 0 then
    local b = redis.call('HMGET', KEYS[2 * i - 1], 'tokens', 'at')
    local have, at = tonumber(b[1]), tonumber(b[2])
    if have == nil then have, at = size, now end
    have = math.min(size, have + math.max(0, now - at) * rate)
    tokens[i] = have
    if have < 1 and (1 - have) / rate > worst then worst, worst_i = (1 - have) / rate, i end
  end
end
if worst_i > 0 then return {1, worst_i, tostring(worst)} end
for i = 1, n do
  local rate, size, most = tonumber(ARGV[4 + 3 * i]), tonumber(ARGV[5 + 3 * i]), tonumber(ARGV[6 + 3 * i])
  if rate > 0 then
    redis.call('HSET', KEYS[2 * i - 1], 'tokens', tostring(tokens[i] - 1), 'at', tostring(now))
    redis.call('EXPIRE', KEYS[2 * i - 1], math.ceil(size / rate) + 1)
  end
  if most >= 0 then
    redis.call('ZADD', KEYS[2 * i], now + slot_ttl, slot)
    redis.call('EXPIRE', KEYS[2 * i], math.ceil(slot_ttl) + 1)
  end
end
if quota then
  redis.call('HINCRBY', quota, 'calls', 1)
  redis.call('EXPIRE', quota, tonumber(ARGV[4]))
end
return {0, 0, ''}
"""

_GIVE_BACK = """
local n = tonumber(ARGV[2])
for i = 1, n do redis.call('ZREM', KEYS[i], ARGV[1]) end
local quota = KEYS[n + 1]
if quota then
  if ARGV[3] == '1' then redis.call('HINCRBYFLOAT', quota, 'wait', ARGV[4])
  else redis.call('HINCRBY', quota, 'calls', -1) end
  redis.call('EXPIRE', quota, tonumber(ARGV[5]))
end
return 1
"""

_SEED = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'calls', ARGV[1], 'wait', ARGV[2])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
end
return 1
"""


class RedisState:
    """Limits counted in Redis at ``url``; ``emit(kind, detail)`` raises the pool's events
    and ``monotonic`` times the back-off after a failure."""

    def __init__(
        self,
        url: str,
        emit: Callable[[str, Mapping[str, object]], None],
        monotonic: Callable[[], float],
    ) -> None:
        self._redis = Redis.from_url(
            url,
            socket_connect_timeout=REDIS_TIMEOUT_S,
            socket_timeout=REDIS_TIMEOUT_S,
            retry=Retry(NoBackoff(), 0),
        )
        self._take = self._redis.register_script(_TAKE)
        self._give_back = self._redis.register_script(_GIVE_BACK)
        self._seed = self._redis.register_script(_SEED)
        self._emit = emit
        self._monotonic = monotonic
        self._down = False
        self._retry_at = 0.0

    async def take(self, plan: Plan, slot: str, now: datetime) -> tuple[Refusal | None, bool]:
        keys: list[str] = []
        args: list[Any] = [len(plan.levels), slot, plan.slot_ttl_s, 0, -1, -1]
        for level in plan.levels:
            keys += [f"{_PREFIX}b:{level.key}", f"{_PREFIX}c:{level.key}"]
            args += [level.refill_per_s or 0, level.size or 0, _or_none(level.max_concurrent)]
        quota = plan.quota
        if quota is not None:
            start, end = quota_counter(quota, now)
            keys.append(_quota_key(quota.key, start))
            args[3:6] = [_quota_ttl(now, end), _or_none(quota.calls), _or_none(quota.wait_s)]
        answer = await self._run(self._take, keys, args)
        if answer is None:
            if plan.fails_open:
                return None, False
            return Refusal(errors.LIMITS_UNAVAILABLE, "redis", "redis", None), False
        status, index, extra = int(answer[0]), int(answer[1]), _text(answer[2])
        if status == 0:
            return None, True
        if status == 2:
            assert quota is not None
            left = (quota_counter(quota, now)[1] - now).total_seconds()
            return Refusal(errors.QUOTA_EXCEEDED, "quota", extra, left), False
        level = plan.levels[index - 1]
        if extra:
            return Refusal(errors.RATE_LIMITED, level.scope, "rate", float(extra)), False
        return Refusal(errors.RATE_LIMITED, level.scope, "concurrency", None), False

    async def give_back(self, plan: Plan, slot: str, started: datetime, reached: bool, wait_s: float) -> None:
        keys = [f"{_PREFIX}c:{level.key}" for level in plan.levels if level.max_concurrent is not None]
        args: list[Any] = [slot, len(keys), int(reached), repr(wait_s), 0]
        quota = plan.quota
        if quota is not None:
            start, end = quota_counter(quota, started)
            keys.append(_quota_key(quota.key, start))
            args[4] = _quota_ttl(started, end)
        if keys:
            # Also when the call was cancelled; bounded: a slot not given back expires by itself.
            with anyio.CancelScope(shield=True), anyio.move_on_after(_GIVE_BACK_S):
                await self._run(self._give_back, keys, args)

    async def seed(self, spent: Mapping[tuple[str, datetime, datetime], tuple[int, float]]) -> None:
        for (key, start, end), (calls, wait_s) in spent.items():
            ttl = int((end - start).total_seconds()) + _QUOTA_GRACE_S
            await self._run(self._seed, [_quota_key(key, start)], [calls, repr(wait_s), ttl])

    async def aclose(self) -> None:
        await self._redis.aclose()

    async def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """The script's answer, or None while Redis cannot be reached."""
        if self._down and self._monotonic() < self._retry_at:
            return None
        try:
            answer = await script(keys=keys, args=args)
        except (RedisError, OSError) as exc:
            self._retry_at = self._monotonic() + _BACKOFF_S
            if not self._down:
                self._down = True
                self._emit("limits.redis_down", {"error": type(exc).__name__})
            return None
        if self._down:
            self._down = False
            self._emit("limits.redis_back", {})
        return answer


def _quota_key(key: str, start: datetime) -> str:
    return f"{_PREFIX}{key}@{start.strftime('%Y-%m-%dT%H')}"


def _quota_ttl(now: datetime, end: datetime) -> int:
    return int((end - now).total_seconds()) + _QUOTA_GRACE_S


def _or_none(value: float | None) -> float:
    return -1 if value is None else value


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
