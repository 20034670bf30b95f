"""Circuit breakers (gate 7): one per alias, so a failing server fails fast and alone.

States (the only transitions there are)::

    closed    --failures reach the threshold--> open
    open      --cooldown passed, a call arrives--> half_open (that call is the one probe)
    half_open --the probe succeeds--> closed
    half_open --the probe fails, or is abandoned--> open (a new cooldown)

Only upstream faults count as failures (remote errors, timeouts, lost connections);
refusals at earlier gates are not the server's doing and never touch its breaker.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

from toolpool.config import ServerSpec

__all__ = ["BreakerState", "Breakers", "CircuitBreaker"]


class BreakerState(enum.Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """One alias's breaker; ``clock`` is monotonic seconds (injectable for tests)."""

    def __init__(self, threshold: int, cooldown_s: float, clock: Callable[[], float]) -> None:
        self.state = BreakerState.CLOSED
        self._threshold = threshold
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._failures = 0
        self._opened_at = 0.0

    def admit(self) -> bool:
        """Whether a call may go upstream now; in half_open, True for exactly one probe."""
        if self.state is BreakerState.CLOSED:
            return True
        if self.state is BreakerState.OPEN and self._clock() >= self._opened_at + self._cooldown_s:
            self.state = BreakerState.HALF_OPEN
            return True
        return False

    def retry_in(self) -> float:
        """Seconds until a probe will be let through (0 when closed)."""
        if self.state is BreakerState.CLOSED:
            return 0.0
        return max(0.0, self._opened_at + self._cooldown_s - self._clock())

    def succeeded(self) -> None:
        self.state = BreakerState.CLOSED
        self._failures = 0

    def failed(self) -> None:
        self._failures += 1
        if self.state is BreakerState.HALF_OPEN or self._failures >= self._threshold:
            self._open()

    @property
    def cooldown_s(self) -> float:
        return self._cooldown_s

    def open_for(self, seconds: float) -> None:
        """Another replica opened this breaker: open here too, for what is left of its
        cooldown (a probe already let through still closes it by succeeding)."""
        left = min(max(seconds, 0.0), self._cooldown_s)
        opened_at = self._clock() - self._cooldown_s + left
        if self.state is BreakerState.OPEN:
            opened_at = max(opened_at, self._opened_at)  # never shortened by an older opening
        self.state = BreakerState.OPEN
        self._opened_at = opened_at

    def abandoned(self) -> None:
        """The admitted call never finished (cancelled): a probe slot must not leak."""
        if self.state is BreakerState.HALF_OPEN:
            self._open()

    def _open(self) -> None:
        self.state = BreakerState.OPEN
        self._opened_at = self._clock()


class Breakers:
    """One breaker per alias, made on first use with the alias's configured threshold and
    cooldown; for an alias with per-principal connections, one per (alias, principal), so
    that one principal's failing credentials never pause anyone else's calls."""

    def __init__(self, servers: Mapping[str, ServerSpec], clock: Callable[[], float]) -> None:
        self._servers = servers
        self._clock = clock
        self._breakers: dict[str, CircuitBreaker] = {}
        self._by_principal: dict[tuple[str, str], CircuitBreaker] = {}

    def of(self, alias: str, principal: str | None = None) -> CircuitBreaker:
        """``alias``'s breaker, or with ``principal`` that principal's own for the alias."""
        if principal is not None:
            return self._principals_own(alias, principal)
        breaker = self._breakers.get(alias)
        if breaker is None:
            breaker = self._breakers[alias] = self._made(alias)
        return breaker

    def _principals_own(self, alias: str, principal: str) -> CircuitBreaker:
        breaker = self._by_principal.get((alias, principal))
        if breaker is None:
            breaker = self._by_principal[alias, principal] = self._made(alias)
        return breaker

    def _made(self, alias: str) -> CircuitBreaker:
        spec = self._servers[alias]
        return CircuitBreaker(spec.breaker_failures, spec.breaker_cooldown_s, self._clock)

    def opened_elsewhere(self, alias: str, principal: str | None, seconds: float) -> None:
        """Another replica's breaker for ``alias`` (``principal``'s own) opened with
        ``seconds`` of cooldown left; an alias this configuration lacks is ignored."""
        if alias in self._servers:
            self.of(alias, principal).open_for(seconds)

    def state_of(self, alias: str) -> str:
        """The state of ``alias``'s breaker, without making one (a scrape must not)."""
        breaker = self._breakers.get(alias)
        return BreakerState.CLOSED.value if breaker is None else breaker.state.value
