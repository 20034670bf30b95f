"""The Gateway: one Pool served to MCP clients for the life of a service.

Lifecycle::

    new --__aenter__--> open --aclose()/__aexit__--> closed   (no reopening)

Entering opens the pool (and so its store) and connects every wanted alias (see
``_connecting``); serving starts after that. A watcher task then wakes on every pool event
and at least once a second reads the store's release number: whenever what clients may see
could have changed, each client view compares the names it would show with those it showed,
and only the views that differ are sent ``notifications/tools/list_changed``. Closing ends the
listen streams, stops the watcher and any connect in progress, then closes the pool, which
reaps every upstream child and closes the store.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

import anyio
import anyio.abc
import anyio.to_thread

from toolpool._exit_stack import ExitStack
from toolpool.config import Config
from toolpool.errors import PoolClosed, UsageError
from toolpool.events import PoolEvent
from toolpool.pool import Pool
from toolpool.serve.gateway._clients import ClientBook, ClientView
from toolpool.serve.gateway._connecting import Connector
from toolpool.store import CallRecord, SecretKey, Store
from toolpool.telemetry import Telemetry
from toolpool.tickets import Ticket

__all__ = ["Gateway", "Readiness"]

# How often the watcher reads the store's release number at the latest: another process's
# `toolpool disable` reaches clients' tool lists within about this long.
POLL_S = 1.0
# An HTTP client view with nothing in flight for this long is forgotten; the SDK closes such
# a session after the same time (`session_idle_timeout`).
IDLE_S = 30 * 60.0
_LOST = frozenset({"mcp.connection_lost", "mcp.disconnected"})
# Each readiness check (the store, Redis) answers within this long or counts as down.
_READY_S = 2.0


@dataclass(frozen=True, slots=True)
class Readiness:
    """What ``/readyz`` reports; ``ready`` is the load balancer's answer."""

    draining: bool
    store: bool
    redis: bool | None  # None: no Redis configured
    upstreams_wanted: int
    upstreams_connected: int

    @property
    def ready(self) -> bool:
        upstreams = self.upstreams_wanted == 0 or self.upstreams_connected > 0
        return not self.draining and self.store and self.redis is not False and upstreams


class _State(enum.Enum):
    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"


class Gateway:
    """A guarded pool of MCP tools, served to MCP clients.

    Args:
        config: the validated configuration.
        store: an open store to use; by default the pool opens the config's store and closes
            it on exit.
        secret_key: decrypts the store's secrets (the CLI reads it; the library never does).
        on_report: receives one line per thing an operator should know (an alias that could
            not connect, a store that stopped answering); never an exception.
        on_call: receives each call's record as it is made (the service's live events).
        telemetry: spans, metrics and the call log (``toolpool.telemetry``); off by default.
        replica: this process's name where several serve one store (``--replica-id``): in
            every call record it makes, and in the ids of the legacy sessions it opens.
    """

    def __init__(
        self,
        config: Config,
        *,
        store: Store | None = None,
        secret_key: SecretKey | None = None,
        on_report: Callable[[str], None] | None = None,
        on_call: Callable[[CallRecord], None] | None = None,
        telemetry: Telemetry | None = None,
        replica: str | None = None,
    ) -> None:
        self.config = config
        self.replica = replica
        self.pool = Pool(
            config,
            store=store,
            secret_key=secret_key,
            on_event=self._on_event,
            on_call=on_call,
            telemetry=telemetry,
            replica=replica,
        )
        self._report = on_report if on_report is not None else (lambda _line: None)
        self._connector = Connector(self.pool, config, self._report)
        self._views = ClientBook()
        self._wake = anyio.Event()
        self._marker: tuple[int, int] | None = None
        self._store_failing = False
        self._state = _State.NEW
        self.draining = False
        """Set when the service stops taking requests (SIGTERM): ``/readyz`` says so."""
        self._tasks: anyio.abc.TaskGroup | None = None
        self._stack = ExitStack()

    async def __aenter__(self) -> Self:
        if self._state is not _State.NEW:
            raise PoolClosed("a gateway can be opened once")
        self._state = _State.CLOSED  # until everything below has started
        async with ExitStack() as stack:
            await stack.enter_async_context(self.pool)
            tasks = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tasks.cancel_scope.cancel)  # runs before the group is left
            stack.callback(self._views.close)
            self._tasks = tasks
            self._state = _State.OPEN
            try:
                await self._connector.connect_all()
                tasks.start_soon(self._watch)
            except BaseException:
                self._state = _State.CLOSED
                raise
            self._stack = stack.pop_all()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """End every listen stream, stop the watcher, close the pool (every child reaped, the
        store closed); idempotent."""
        was_open = self._state is _State.OPEN
        self._state = _State.CLOSED
        if was_open:  # listen streams end, the watcher stops, then the pool closes (shielded, bounded)
            await self._stack.aclose()

    @property
    def store(self) -> Store:
        """The pool's store.

        Raises:
            UsageError: the gateway is not open.
        """
        store = self.pool.store
        if store is None:
            raise UsageError("the gateway is not open")
        return store

    async def readiness(self) -> Readiness:
        """Whether this gateway should get requests now (``/readyz``): the store answers,
        Redis answers (with ``[pool] redis``), it is not draining, and, where aliases are
        wanted, at least one of them is connected. Every check is bounded."""
        store_ok = False
        if self._state is _State.OPEN:
            try:
                with anyio.fail_after(_READY_S):
                    await anyio.to_thread.run_sync(lambda: self.store.cached.release, abandon_on_cancel=True)
                store_ok = True
            except (UsageError, TimeoutError):
                store_ok = False
        with anyio.move_on_after(_READY_S):
            redis_ok: bool | None = False
            redis_ok = await self.pool.shared_reachable()
        wanted = self._connector.wanted(fresh=False) if self._state is _State.OPEN else frozenset()
        connected = len(wanted & set(self.pool.connected))
        return Readiness(
            draining=self.draining,
            store=store_ok,
            redis=redis_ok,
            upstreams_wanted=len(wanted),
            upstreams_connected=connected,
        )

    @property
    def views(self) -> ClientBook:
        """The client views of this gateway (transports add theirs; the watcher reads them)."""
        return self._views

    def view(
        self,
        key: Hashable | None,
        principal: str,
        ticket: Ticket,
        *,
        follow_release: bool = False,
        prunable: bool = True,
        taint_scope: str | None = None,
    ) -> ClientView:
        """The view of the client ``key``; a new one opens a session for ``principal`` bound to
        the store's current release (R15) or, with ``follow_release``, to each new one.
        A ``prunable`` view is forgotten after ``IDLE_S`` with nothing in flight;
        ``taint_scope`` names where replicas share its taint (see ``ClientView``)."""

        def make() -> ClientView:
            return ClientView(
                lambda: self.pool.session(principal, ticket),
                release=(lambda: self.store.cached.release) if follow_release else None,
                prunable=prunable,
                taint_scope=taint_scope,
            )

        return self._views.get(key, make)

    def revive(self) -> None:
        """Reconnect, in the background, wanted aliases that are down (after their backoff).

        It runs before every request, so it reads no store: which aliases are wanted is read
        by the watcher (at least every ``POLL_S``), which also starts connecting aliases that
        became wanted meanwhile.
        """
        self._revive(fresh=False)

    def _revive(self, *, fresh: bool) -> None:
        if self._state is _State.OPEN and self._tasks is not None:
            try:
                self._connector.revive(self._tasks, fresh=fresh)
            except UsageError as error:
                self._store_trouble(error)

    def _on_event(self, event: PoolEvent) -> None:
        if event.kind in _LOST:
            self._connector.lost(event.alias)
        self._wake.set()

    async def _watch(self) -> None:
        while True:
            with anyio.move_on_after(POLL_S):
                await self._wake.wait()
            self._wake = anyio.Event()
            await self._refresh()
            self._views.prune(IDLE_S)

    async def _refresh(self) -> None:
        """Tell the clients whose view changed, if anything that views depend on changed."""
        try:
            marker = (self.pool.snapshot().version, self.store.cached.release)
        except UsageError as error:
            self._store_trouble(error)
            return
        if self._store_failing:
            self._store_failing = False
            self._report("the store answers again")
        if marker == self._marker:
            return
        self._marker = marker
        self._revive(fresh=True)
        for view in self._views:
            try:
                await view.tell_if_changed()
            except UsageError as error:
                self._store_trouble(error)
                return

    def _store_trouble(self, error: UsageError) -> None:
        if not self._store_failing:
            self._store_failing = True
            self._report(f"the store cannot be read ({error}); retrying every {POLL_S:g} s")
