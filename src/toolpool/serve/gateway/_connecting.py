"""Which aliases a gateway keeps connected, and connecting them: at start, and again later.

An alias is wanted while the store has at least one callable tool of it (enabled, on an
enabled server) and the configuration enables the server. At start every wanted alias is
connected at once, concurrently (``CONNECTS_AT_ONCE`` at a time, as the pool admits them), each bounded by its
own connect timeout. One that fails, or
that is lost later (timeout, crash, transport closed), is tried again when a client next
lists or calls tools, after a backoff: 1 s, doubling with each failure, at most 5 s. An
alias that becomes wanted later (a tool enabled by another process) is connected when the
gateway's watcher sees the new release, within a second. A failure is one line for the
operator (``report``), never fatal.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import anyio.abc

from toolpool.config import Config
from toolpool.errors import ConnectionRefused, ToolpoolError
from toolpool.pool import CONNECTS_AT_ONCE, Pool

__all__ = ["Connector"]

# Wait after a loss or a failed attempt before the next try, doubling up to the cap: a
# crashing server is not restarted in a tight loop, and a healthy one comes back soon.
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 5.0
# The pool admits CONNECTS_AT_ONCE aliases at a time (measured: 5 demo servers on 2 CPUs all
# at once, one timed out; 2 or 3 at a time, none did, in the same total time). The connector
# waits for a turn of its own, of the same size, before an attempt's timeout starts, so an
# alias never times out while it only waits behind others.
# Beyond an alias's own connect timeout (which the pool applies), for the process to start
# and be closed again; the whole attempt is bounded by both together.
_CONNECT_SLACK_S = 10.0


class Connector:
    """Keeps a pool's wanted aliases connected, lazily and with backoff."""

    def __init__(
        self,
        pool: Pool,
        config: Config,
        report: Callable[[str], None],
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pool = pool
        self._config = config
        self._report = report
        self._monotonic = monotonic
        self._pending: set[str] = set()
        self._not_before: dict[str, float] = {}
        self._backoff: dict[str, float] = {}
        self._wanted: tuple[int, frozenset[str]] | None = None
        self._limiter = anyio.CapacityLimiter(CONNECTS_AT_ONCE)

    def wanted(self, *, fresh: bool = True) -> frozenset[str]:
        """The aliases with a callable tool now; read again only when the release changed.
        Not ``fresh``: as of the last read, with no store read at all once there was one."""
        store = self._pool.store
        if store is None:  # the pool is not open
            return frozenset()
        if not fresh and self._wanted is not None:
            return self._wanted[1]
        version = store.cached.release
        if self._wanted is None or self._wanted[0] != version:
            callable_now = {state.alias for state in store.tools.tool_states() if state.callable}
            enabled = {alias for alias, spec in self._config.servers.items() if spec.enabled}
            self._wanted = (version, frozenset(callable_now & enabled))
        return self._wanted[1]

    async def connect_all(self) -> None:
        """Connect every wanted alias concurrently; returns when each succeeded or failed."""
        async with anyio.create_task_group() as tasks:
            for alias in sorted(self.wanted()):
                self._pending.add(alias)
                tasks.start_soon(self._connect, alias)

    def revive(self, tasks: anyio.abc.TaskGroup, *, fresh: bool = True) -> None:
        """Start connecting (in ``tasks``) each wanted alias that is down and past its backoff;
        not ``fresh``: wanted as of the last read of the store (see ``wanted``)."""
        now = self._monotonic()
        connected = set(self._pool.connected)
        for alias in sorted(self.wanted(fresh=fresh) - connected - self._pending):
            if now >= self._not_before.get(alias, 0.0):
                self._pending.add(alias)
                tasks.start_soon(self._connect, alias)

    def lost(self, alias: str) -> None:
        """``alias`` went away: wait a while before trying it again."""
        self._hold_off(alias)

    async def _connect(self, alias: str) -> None:
        spec = self._config.servers[alias]
        problem: str | None = None
        try:
            async with self._limiter:
                with anyio.fail_after(spec.connect_timeout_s + _CONNECT_SLACK_S):
                    await self._pool.connect(alias)
        except TimeoutError:
            problem = f"did not connect within {spec.connect_timeout_s + _CONNECT_SLACK_S:g} s"
        except ConnectionRefused as refused:
            problem = "refused: " + "; ".join(refused.reasons)
        except ToolpoolError as error:
            problem = str(error)
        finally:
            self._pending.discard(alias)
        if problem is None:
            self._backoff.pop(alias, None)
            self._not_before.pop(alias, None)
            return
        self._hold_off(alias)
        self._report(f"{alias}: could not connect ({problem}); its tools are not served")

    def _hold_off(self, alias: str) -> None:
        delay = self._backoff.get(alias, FIRST_BACKOFF_S / 2) * 2
        self._backoff[alias] = min(delay, MAX_BACKOFF_S)
        self._not_before[alias] = self._monotonic() + self._backoff[alias]
