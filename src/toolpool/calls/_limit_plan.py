"""Which limits apply to a call: the configuration's rate, concurrency and quota keys resolved
into the levels one call must pass (``Plan``), and the UTC periods quotas count in.

Levels, each with a bucket and a concurrency count of its own:

- ``alias``: the server's ``rate``/``burst`` and ``max_concurrent_calls``; a key the server
  does not set is taken from ``[pool]`` — so the pool's keys are each alias's default, counted
  per alias, never one budget shared by all aliases;
- ``tool``: the tool's own keys (no default);
- ``principal``: ``[principals.NAME]`` for the calling principal, else ``[principals."*"]``,
  counted per principal (``pool.call`` runs as the principal ``pool``).

A principal's quota (``quota_calls``, ``quota_wait_s`` per ``quota_period``) comes from the
same table. With ``[pool] redis``, ``redis_down`` says what a level does while Redis cannot be
reached: the level's own setting, else the pool's, else ``closed``; the quota follows its
principal level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from toolpool import errors
from toolpool.config import Config
from toolpool.runtime_policy import LimitFields, PrincipalPolicy

__all__ = [
    "REACHED_CODES",
    "Level",
    "Plan",
    "PlanBook",
    "Quota",
    "limits_anything",
    "period_bounds",
    "quota_policies",
]

Scope = Literal["alias", "tool", "principal"]
Period = Literal["hour", "day", "month"]

# The Envelope codes of calls that reached the upstream: only these count against a quota.
REACHED_CODES = frozenset(
    {
        errors.OK,
        errors.MCP_REMOTE_ERROR,
        errors.MCP_TIMEOUT,
        errors.MCP_CONNECTION_LOST,
        errors.RESULT_TOO_LARGE,
    }
)


@dataclass(frozen=True, slots=True)
class Level:
    """One level's limits for one call; ``key`` names its bucket and its count."""

    scope: Scope
    key: str
    refill_per_s: float | None
    size: int | None
    max_concurrent: int | None
    fails_open: bool


@dataclass(frozen=True, slots=True)
class Quota:
    """A principal's quota; ``key`` names its counters (the period is added when counting)."""

    key: str
    principal: str
    period: Period
    calls: int | None
    wait_s: float | None
    fails_open: bool


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one (alias, tool, principal) must pass; ``empty`` needs no bookkeeping."""

    alias: str
    levels: tuple[Level, ...]
    quota: Quota | None
    slot_ttl_s: float

    @property
    def empty(self) -> bool:
        return not self.levels and self.quota is None

    @property
    def fails_open(self) -> bool:
        """Whether every limit here lets calls through while Redis is down."""
        quota_open = self.quota is None or self.quota.fails_open
        return quota_open and all(level.fails_open for level in self.levels)


# A concurrency slot outlives its call's deadline by this much before it expires on its own:
# only a process that died holding it leaves it for so long (Redis).
_SLOT_GRACE_S = 30.0


class PlanBook:
    """Resolves and remembers the plan of each (alias, tool, principal)."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._plans: dict[tuple[str, str, str], Plan] = {}
        self.any_limits = limits_anything(config)

    def plan(self, alias: str, tool: str, principal: str) -> Plan:
        key = (alias, tool, principal)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._resolve(alias, tool, principal)
        return plan

    def policy_of(self, principal: str) -> PrincipalPolicy | None:
        principals = self._config.principals
        return principals.get(principal, principals.get("*"))

    def _resolve(self, alias: str, tool: str, principal: str) -> Plan:
        pool = self._config.pool
        spec = self._config.servers[alias]
        default_open = pool.redis_down == "open"
        levels: list[Level] = []
        rate_from = spec if spec.rate is not None else pool
        alias_level = Level(
            "alias",
            f"a:{alias}",
            rate_from.refill_per_s,
            rate_from.bucket_size,
            spec.max_concurrent_calls or pool.max_concurrent_calls,
            _opens(spec.redis_down, default_open),
        )
        levels.append(alias_level)
        policy = spec.tools.get(tool)
        if policy is not None:
            levels.append(_level("tool", f"t:{alias}/{tool}", policy, default_open))
        quota: Quota | None = None
        own = self.policy_of(principal)
        if own is not None:
            levels.append(_level("principal", f"p:{principal}", own, default_open))
            if own.has_quota:
                opens = _opens(own.redis_down, default_open)
                quota = Quota(
                    f"q:{principal}", principal, own.quota_period, own.quota_calls, own.quota_wait_s, opens
                )
        kept = tuple(
            level for level in levels if level.refill_per_s is not None or level.max_concurrent is not None
        )
        return Plan(alias, kept, quota, spec.call_timeout_s + _SLOT_GRACE_S)


def _level(scope: Scope, key: str, fields: LimitFields, default_open: bool) -> Level:
    return Level(
        scope,
        key,
        fields.refill_per_s,
        fields.bucket_size,
        fields.max_concurrent_calls,
        _opens(fields.redis_down, default_open),
    )


def _opens(own: str | None, default_open: bool) -> bool:
    return default_open if own is None else own == "open"


def limits_anything(config: Config) -> bool:
    """Whether ``config`` sets any limit or quota: without one, the limits gate never refuses."""
    levels: list[LimitFields] = [config.pool, *config.principals.values()]
    for spec in config.servers.values():
        levels += [spec, *spec.tools.values()]
    quotas = any(policy.has_quota for policy in config.principals.values())
    return quotas or any(level.limits_anything for level in levels)


def period_bounds(period: Period, now: datetime) -> tuple[datetime, datetime]:
    """The UTC period ``now`` falls in: its start and its end."""
    now = now.astimezone(UTC)
    if period == "hour":
        start = now.replace(minute=0, second=0, microsecond=0)
        return start, start + timedelta(hours=1)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return day, day + timedelta(days=1)
    start = day.replace(day=1)
    end = (
        start.replace(year=start.year + 1, month=1)
        if start.month == 12
        else start.replace(month=start.month + 1)
    )
    return start, end


def quota_policies(principals: Mapping[str, PrincipalPolicy]) -> dict[str, PrincipalPolicy]:
    """The principals (``"*"`` included) that have a quota."""
    return {name: policy for name, policy in principals.items() if policy.has_quota}
