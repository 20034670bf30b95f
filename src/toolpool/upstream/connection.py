"""A persistent connection: one upstream session kept open by an owner task.

anyio requires a context to be left in the task that entered it, while calls, disconnects
and the watchdog come from anywhere. So each persistent connection gets an owner task (in
the pool's task group) that opens the session, publishes it, and then waits for one of two
things: a close request, or the peer going away (process exit, transport closed, or a failed
liveness probe for remote servers). Going away is reported once through ``on_lost``.

States (a transition table in prose; nothing else moves them)::

    opening --handshake ok--> ready --close()--> closing --session left--> closed
    opening --failure-------> closed (the error is raised from ``Connection.open``)
    ready   --peer gone-----> lost   --session left--> lost (``on_lost`` called once)
"""

from __future__ import annotations

import enum
import itertools
import logging
from collections.abc import Callable

import anyio
import anyio.abc

from toolpool.errors import UpstreamError
from toolpool.upstream.session import Era, HttpTarget, UpstreamSession, open_session
from toolpool.upstream.stdio import StdioLaunch

__all__ = ["Connection", "ConnectionState"]

logger = logging.getLogger(__name__)

# Bound on waiting for an owner task to leave its session (the stdio stop sequence itself
# is bounded at about eight seconds: stdin grace, the reaper's sweep, the pidfd fallback).
_CLOSE_WAIT_S = 15.0
_PROBE_TIMEOUT_CAP_S = 10.0


class ConnectionState(enum.Enum):
    OPENING = "opening"
    READY = "ready"
    CLOSING = "closing"
    CLOSED = "closed"
    LOST = "lost"


class Connection:
    """A live, initialized session with one alias; compared by identity."""

    _ids = itertools.count(1)

    def __init__(
        self,
        alias: str,
        target: StdioLaunch | HttpTarget,
        era: Era | None,
        connect_timeout: float,
        health_interval: float,
        on_lost: Callable[[Connection, str], None],
    ) -> None:
        self.id = next(self._ids)
        self.alias = alias
        self.state = ConnectionState.OPENING
        self.lost_reason = ""
        self._target = target
        self._era = era
        self._connect_timeout = connect_timeout
        self._health_interval = health_interval
        self._on_lost = on_lost
        self._session: UpstreamSession | None = None
        self._close_requested = anyio.Event()
        self._finished = anyio.Event()

    def __repr__(self) -> str:
        return f"<Connection #{self.id} {self.alias} {self.state.value}>"

    @classmethod
    async def open(
        cls,
        task_group: anyio.abc.TaskGroup,
        alias: str,
        target: StdioLaunch | HttpTarget,
        era: Era | None,
        *,
        connect_timeout: float,
        health_interval: float,
        on_lost: Callable[[Connection, str], None],
    ) -> Connection:
        """Start the owner task and return once the session is ready.

        Raises:
            UpstreamUnavailable: the server could not be started or initialized.
        """
        connection = cls(alias, target, era, connect_timeout, health_interval, on_lost)
        await task_group.start(connection._run)
        return connection

    @property
    def alive(self) -> bool:
        return (
            self.state is ConnectionState.READY
            and self._session is not None
            and not self._session.lost.is_set()
        )

    @property
    def session(self) -> UpstreamSession:
        if self._session is None:
            raise RuntimeError(f"{self!r} has no session")
        return self._session

    async def aclose(self) -> None:
        """Ask the owner task to leave the session and wait for it (bounded); idempotent."""
        if self.state is ConnectionState.READY:
            self.state = ConnectionState.CLOSING
        self._close_requested.set()
        with anyio.move_on_after(_CLOSE_WAIT_S, shield=True):
            await self._finished.wait()

    def mark_lost(self, reason: str) -> None:
        """Declare the peer gone (a call timed out or broke); the owner task then closes."""
        if self.state is ConnectionState.READY:
            self.state = ConnectionState.LOST
            self.lost_reason = self.lost_reason or reason
        self._close_requested.set()

    async def _run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        started = False
        try:
            async with open_session(self.alias, self._target, self._era, self._connect_timeout) as session:
                self._session = session
                self.state = ConnectionState.READY
                task_status.started()
                started = True
                await self._until_closed_or_lost(session)
        except Exception:
            if not started:
                raise
            # The session broke while being left; the peer is gone either way.
            logger.debug("upstream %s: error while closing the session", self.alias, exc_info=True)
        finally:
            self._finish(started)

    async def _until_closed_or_lost(self, session: UpstreamSession) -> None:
        async with anyio.create_task_group() as watch:

            async def close_requested() -> None:
                await self._close_requested.wait()
                watch.cancel_scope.cancel()

            async def peer_gone() -> None:
                await session.lost.wait()
                self.mark_lost("the server process exited or its transport closed")
                watch.cancel_scope.cancel()

            watch.start_soon(close_requested)
            watch.start_soon(peer_gone)
            if isinstance(self._target, HttpTarget):
                watch.start_soon(self._probe_periodically, session)

    async def _probe_periodically(self, session: UpstreamSession) -> None:
        timeout = min(self._health_interval, _PROBE_TIMEOUT_CAP_S)
        while True:
            await anyio.sleep(self._health_interval)
            try:
                await session.probe(timeout)
            except UpstreamError as exc:
                session.lost.set()
                self.lost_reason = str(exc)
                return

    def _finish(self, started: bool) -> None:
        self._session = None
        was_lost = self.state is ConnectionState.LOST
        if self.state is ConnectionState.READY and not self._close_requested.is_set():
            was_lost = True
            self.lost_reason = self.lost_reason or "the session ended"
        self.state = ConnectionState.LOST if was_lost else ConnectionState.CLOSED
        self._finished.set()
        if started and was_lost:
            self._on_lost(self, self.lost_reason)
