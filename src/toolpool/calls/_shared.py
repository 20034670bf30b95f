"""Runtime state that every replica of a deployment shares through Redis (``[pool] redis``).

Several ``toolpool serve`` processes behind one address must act as one gateway. The store
already shares what is managed (releases, enablement, tokens, the audit log) and the limits
live in Redis (``_limits_redis``); this module shares the rest of what a call depends on:

- **Taint** (gate 6). A ledger with a *scope* (its session's id, or for a stateless HTTP
  client the token it presents) appends what each result added to the Redis list
  ``toolpool:taint:<scope>`` before the caller sees the result, and before a write tool runs it
  reads what the other replicas appended since it last looked. The list keeps the newest
  ``TAINT_MAX_DELTAS`` entries and expires ``TAINT_TTL_S`` after the last one.
  While Redis cannot be reached a write in a shared scope is refused
  (``shared_state_unavailable``): another replica may have seen text this one never heard
  of, and gate 6 fails closed. Reads are not affected.
- **Circuit breakers** (gate 7). A replica whose breaker opens sets
  ``toolpool:breaker:<alias>`` for the cooldown and publishes it (on a channel named after the
  database: channels are not per database); every replica subscribes and
  opens its own breaker for what is left of the cooldown, so a failing server is paused
  everywhere at once. Failures are counted per replica; after the cooldown each replica lets
  its own probe through. A subscriber that (re)connects reads the keys first, so an opening
  it missed still applies.

Every command is bounded by ``REDIS_TIMEOUT_S``; after a failure Redis is not tried again for
``_BACKOFF_S`` (an outage must not stall calls). The first failure emits
``shared.redis_down``, the first success after it ``shared.redis_back``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import anyio.abc
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from toolpool.calls._breaker import Breakers
from toolpool.calls._limits_redis import REDIS_TIMEOUT_S
from toolpool.calls._taint import TaintDelta, TaintLedger

__all__ = ["BREAKER_CHANNEL", "TAINT_MAX_DELTAS", "TAINT_TTL_S", "SharedState"]

_PREFIX = "toolpool:"
# Channels are one namespace for the whole Redis server, databases or not: the channel names
# the database, so that deployments on two databases of one server never hear each other.
BREAKER_CHANNEL = f"{_PREFIX}breakers:{{database}}"
# A scope's taint outlives its last result by this long: as long as an idle HTTP client is kept.
TAINT_TTL_S = 30 * 60
# Entries kept per scope (one per result that added anything): the oldest are forgotten
# first, as a ledger forgets its oldest fingerprints.
TAINT_MAX_DELTAS = 4096
_BACKOFF_S = 1.0
_RESUBSCRIBE_S = 0.5
# Publishing an opening and appending taint are awaited with the call: bounded, shielded.
_WRITE_S = 2 * REDIS_TIMEOUT_S
_SCAN_COUNT = 500

# A scope's list holds its newest entries; its counter, every entry ever appended. A reader
# that has seen ``ARGV[1]`` entries gets the count and what came after (what is left of it);
# a counter below that (the scope expired and began again) is read from its start.
_PULL = """
local total = tonumber(redis.call('GET', KEYS[2]) or '0')
local seen = tonumber(ARGV[1])
if seen > total then seen = 0 end
if total == seen then return {total} end
return {total, redis.call('LRANGE', KEYS[1], seen - total, -1)}
"""
_PUSH = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
"""


class SharedState:
    """Taint and breaker openings shared through the Redis at ``url``; ``emit(kind,
    detail)`` raises the pool's events and ``monotonic`` times the back-off after a failure."""

    def __init__(
        self,
        url: str,
        emit: Callable[[str, Mapping[str, object]], None],
        monotonic: Callable[[], float],
    ) -> None:
        self._url = url
        self._redis = _client(url)
        self._channel = BREAKER_CHANNEL.format(
            database=self._redis.connection_pool.connection_kwargs.get("db", 0)
        )
        self._emit = emit
        self._monotonic = monotonic
        self._down = False
        self._retry_at = 0.0
        self._listening = False
        self._pull = self._redis.register_script(_PULL)
        self._push = self._redis.register_script(_PUSH)

    @property
    def listening(self) -> bool:
        """Whether breaker openings of other replicas reach this one now."""
        return self._listening

    async def ping(self) -> bool:
        """Whether Redis answers now (for ``/readyz``)."""
        return await self._run(self._redis.ping()) is not None

    async def pull(self, ledger: TaintLedger) -> bool:
        """Take into ``ledger`` what was added to its scope (by any replica) since it last
        looked; False when that cannot be known (Redis down): the caller refuses the write."""
        scope = ledger.scope
        if scope is None:
            return True
        answer = await self._run(self._pull(keys=_taint_keys(scope), args=[ledger.shared_seen]))
        if answer is None:
            return False
        total, entries = int(answer[0]), answer[1] if len(answer) > 1 else []
        deltas = []
        for entry in entries:
            try:
                deltas.append(TaintDelta.decode(entry.decode("ascii")))
            except (ValueError, UnicodeDecodeError, AttributeError):
                return False  # not written by a replica: fail closed rather than guess
        ledger.restore(deltas)
        ledger.shared_seen = total
        return True

    async def push(self, ledger: TaintLedger, delta: TaintDelta) -> None:
        """Append what one result added to ``ledger``'s scope (before the caller sees it)."""
        scope = ledger.scope
        if scope is None or not delta:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(_WRITE_S):
            await self._run(
                self._push(keys=_taint_keys(scope), args=[delta.encode(), TAINT_MAX_DELTAS, TAINT_TTL_S])
            )

    async def breaker_opened(self, alias: str, principal: str | None, cooldown_s: float) -> None:
        """Tell every replica that ``alias``'s breaker (``principal``'s own, if given) opened."""
        milliseconds = max(1, int(cooldown_s * 1000))
        message = json.dumps({"alias": alias, "principal": principal, "left_ms": milliseconds})
        key = _breaker_key(alias, principal)

        async def announce() -> Any:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.set(key, message, px=milliseconds)
                pipe.publish(self._channel, message)
                return await pipe.execute()

        with anyio.CancelScope(shield=True), anyio.move_on_after(_WRITE_S):
            await self._run(announce())

    async def follow_breakers(
        self, breakers: Breakers, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Open this replica's breakers as others announce theirs, until cancelled; reconnects
        (reading the current openings first: none is missed) whenever the subscription breaks.
        Started at once: a Redis that is down must not hold up the pool."""
        task_status.started()
        while True:
            try:
                await self._follow(breakers)
            except (RedisError, OSError):
                pass
            finally:
                self._listening = False
            await anyio.sleep(_RESUBSCRIBE_S)

    async def _follow(self, breakers: Breakers) -> None:
        listener = _client(self._url, blocking=True)
        try:
            async with listener.pubsub() as pubsub:
                with anyio.fail_after(_WRITE_S):
                    await pubsub.subscribe(self._channel)
                    await self._current_openings(breakers)
                self._listening = True
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        _apply(breakers, message.get("data"), None)
        except TimeoutError:
            return  # Redis accepted but did not answer: try again
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(REDIS_TIMEOUT_S):
                await listener.aclose()

    async def _current_openings(self, breakers: Breakers) -> None:
        async for key in self._redis.scan_iter(match=f"{_PREFIX}breaker:*", count=_SCAN_COUNT):
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.get(key)
                pipe.pttl(key)
                found, left_ms = await pipe.execute()
            if found is not None and left_ms > 0:
                _apply(breakers, found, left_ms)

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(REDIS_TIMEOUT_S):
            await self._redis.aclose()

    async def _run(self, command: Any) -> Any:
        """The command's answer, or None while Redis cannot be reached."""
        if self._down and self._monotonic() < self._retry_at:
            command.close()  # never awaited: no "coroutine was never awaited" warning
            return None
        try:
            answer = await command
        except (RedisError, OSError) as exc:
            self._retry_at = self._monotonic() + _BACKOFF_S
            if not self._down:
                self._down = True
                self._emit("shared.redis_down", {"error": type(exc).__name__})
            return None
        if self._down:
            self._down = False
            self._emit("shared.redis_back", {})
        return answer


def _apply(breakers: Breakers, data: object, left_ms: int | None) -> None:
    """Open the breaker an announcement names, for ``left_ms`` (else the time it carries)."""
    try:
        opening: Any = json.loads(data) if isinstance(data, bytes | str) else None
        alias, principal = opening["alias"], opening["principal"]
        left = float(opening["left_ms"] if left_ms is None else left_ms)
    except (ValueError, TypeError, KeyError):
        return  # not an announcement of ours
    if isinstance(alias, str) and (principal is None or isinstance(principal, str)) and left > 0:
        breakers.opened_elsewhere(alias, principal, left / 1000)


def _client(url: str, *, blocking: bool = False) -> Redis:
    return Redis.from_url(
        url,
        socket_connect_timeout=REDIS_TIMEOUT_S,
        # A subscription waits for messages as long as there are none.
        socket_timeout=None if blocking else REDIS_TIMEOUT_S,
        retry=Retry(NoBackoff(), 0),
        health_check_interval=30 if blocking else 0,
    )


def _taint_keys(scope: str) -> list[str]:
    return [f"{_PREFIX}taint:{scope}", f"{_PREFIX}taint-count:{scope}"]


def _breaker_key(alias: str, principal: str | None) -> str:
    return f"{_PREFIX}breaker:{alias}" if principal is None else f"{_PREFIX}breaker:{alias}:{principal}"
