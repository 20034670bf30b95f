"""The Pool: connect aliases, vet their tools, hand out snapshots, run gated calls.

Lifecycle::

    new --__aenter__--> open --aclose()/__aexit__--> closed   (no reopening)

Inside ``async with Pool(config)`` nothing is connected until ``connect(alias)``. Every
connection's owner task and watchdog live in the pool's task group, so leaving the block
closes every connection and reaps every child process (R13).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from types import MappingProxyType, TracebackType
from typing import Any, Self

import anyio
import anyio.abc

from toolpool.calls import CallPipeline, Envelope
from toolpool.config import Config, SecretRef, ServerSpec
from toolpool.enablement import ConfigEnablement, Enablement
from toolpool.errors import (
    ConnectionRefused,
    MissingSecret,
    PoolClosed,
    UnknownAlias,
    UpstreamConnectionLost,
    UpstreamError,
)
from toolpool.events import EventSink, PoolEvent
from toolpool.links import PerCallLink, PersistentLink, definitions_of
from toolpool.registry import Registry, Snapshot
from toolpool.tickets import Ticket
from toolpool.upstream import (
    Connection,
    Era,
    HttpTarget,
    ListingTooLarge,
    StdioLaunch,
    UpstreamSession,
    open_session,
)
from toolpool.vetting import Admission, PassingScreener, PublishedTool, Screener, vet

__all__ = ["Pool"]

_MAX_CACHED_VIEWS = 256
# Bound on closing all connections when the pool closes; each stdio stop is bounded too.
_CLOSE_ALL_S = 20.0

Link = PersistentLink | PerCallLink


class _State(enum.Enum):
    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Pool:
    """A guarded, dynamic pool of MCP tools built from a trusted configuration.

    Args:
        config: the validated configuration (``load_config``).
        secrets: values for ``{ secret = "NAME" }`` entries, resolved only when connecting.
        enablement: answers gate 3; defaults to the configuration's ``enabled`` flags.
        screener: scores tool definitions (R5); defaults to passing everything.
        on_event: receives ``PoolEvent``s (connected, refused, lost, ...).
        clock: the time tickets are checked against.
    """

    def __init__(
        self,
        config: Config,
        *,
        secrets: Mapping[str, str] | None = None,
        enablement: Enablement | None = None,
        screener: Screener | None = None,
        on_event: EventSink | None = None,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self.config = config
        self._secrets = dict(secrets or {})
        self._enablement = enablement if enablement is not None else ConfigEnablement(config)
        self._screener = screener if screener is not None else PassingScreener()
        self._on_event = on_event
        self._registry = Registry()
        self._pipeline = CallPipeline(self._registry, self._enablement, config.pool, clock)
        self._links: dict[str, Link] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._eras: dict[str, Era] = {}
        self._views: dict[Ticket | None, Snapshot] = {}
        self._views_key = (-1, -1)
        self._views_version = 0
        self._state = _State.NEW
        self._tasks: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> Self:
        if self._state is not _State.NEW:
            raise PoolClosed("a pool can be opened once")
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        self._state = _State.OPEN
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Revoke everything, close every connection, reap every child; idempotent."""
        if self._state is not _State.OPEN:
            self._state = _State.CLOSED
            return
        self._state = _State.CLOSED
        links = list(self._links.values())
        self._links.clear()
        for link in links:
            self._registry.revoke(link)
        assert self._tasks is not None
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_ALL_S):
            async with anyio.create_task_group() as closing:
                for link in links:
                    closing.start_soon(link.aclose)
        self._tasks.cancel_scope.cancel()
        await self._tasks.__aexit__(None, None, None)

    @property
    def connected(self) -> tuple[str, ...]:
        """The aliases connected now."""
        return tuple(sorted(alias for alias, link in self._links.items() if link.alive))

    def era(self, alias: str) -> Era | None:
        """The era a connect negotiated for ``alias`` (remembered across reconnects)."""
        return self._eras.get(alias)

    def session_of(self, alias: str) -> UpstreamSession | None:
        """The live upstream session of a persistent alias (for diagnostics), if any."""
        link = self._links.get(alias)
        if isinstance(link, PersistentLink) and link.connection.alive:
            return link.connection.session
        return None

    async def connect(self, alias: str) -> None:
        """Admit ``alias``: start it, read every page of its tools, vet them, expose them.

        Connecting an alias that is already connected changes nothing.

        Raises:
            UnknownAlias: the configuration does not name ``alias``; nothing was started.
            ConnectionRefused: an admission rule failed; the connection was closed.
            UpstreamError: the server could not be started, reached or listed.
            MissingSecret: a secret the server needs was not provided.
        """
        spec = self._spec(alias)
        self._require_open()
        async with self._locks.setdefault(alias, anyio.Lock()):
            current = self._links.get(alias)
            if current is not None and current.alive:
                return
            target = self._target(spec)
            try:
                if spec.lifecycle == "per_call":
                    link, admission = await self._admit_per_call(spec, target)
                else:
                    link, admission = await self._admit_persistent(spec, target)
            except ConnectionRefused as refused:
                self._emit(PoolEvent("mcp.refused", alias, MappingProxyType({"reasons": refused.reasons})))
                raise
            self._registry.admit(link, admission.exposed)
            self._links[alias] = link
        self._emit_admitted(spec, admission)

    async def disconnect(self, alias: str) -> None:
        """Revoke all of ``alias``'s tools in one step, then close its connection (R11).

        Raises:
            UnknownAlias: the configuration does not name ``alias``.
        """
        self._spec(alias)
        link = self._links.pop(alias, None)
        if link is None:
            return
        self._registry.revoke(link)
        await link.aclose()
        self._emit(PoolEvent("mcp.disconnected", alias))

    def snapshot(self, ticket: Ticket | None = None) -> Snapshot:
        """The tools one model request may use: enabled, and if ``ticket`` is given, only
        those whose action it allows (R10). O(1) unless something changed since last time."""
        base = self._registry.snapshot()
        key = (base.version, self._enablement.version)
        if key != self._views_key:
            self._views.clear()
            self._views_key = key
            self._views_version += 1
        view = self._views.get(ticket)
        if view is None:
            view = Snapshot.of(self._views_version, self._visible(base, ticket))
            if len(self._views) >= _MAX_CACHED_VIEWS:
                self._views.clear()
            self._views[ticket] = view
        return view

    async def call(
        self,
        snapshot: Snapshot,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ticket: Ticket | None = None,
    ) -> Envelope:
        """Run one call through every gate against ``snapshot``; never raises for a refusal
        or an upstream fault: those are Envelopes with their codes.

        Raises:
            PoolClosed: the pool is not open.
        """
        self._require_open()
        return await self._pipeline.run(snapshot, name, {} if arguments is None else arguments, ticket)

    def _visible(self, base: Snapshot, ticket: Ticket | None) -> list[Any]:
        enabled = self._enablement.is_enabled
        return [
            tool
            for tool in base.tools
            if enabled(tool.alias, tool.remote_name) and (ticket is None or ticket.allows_action(tool.action))
        ]

    async def _admit_persistent(
        self, spec: ServerSpec, target: StdioLaunch | HttpTarget
    ) -> tuple[Link, Admission]:
        assert self._tasks is not None
        connection = await Connection.open(
            self._tasks,
            spec.alias,
            target,
            self._era_for(spec),
            connect_timeout=spec.connect_timeout_s,
            health_interval=spec.health_interval_s,
            on_lost=self._connection_lost,
        )
        link = PersistentLink(connection, spec, self._fault)
        try:
            self._eras[spec.alias] = connection.session.era
            published = await self._list(spec, connection.session)
            admission = vet(spec, published, self.config.pool, self._screener, owner=link)
            if not connection.alive:
                raise UpstreamConnectionLost(spec.alias, "the server went away during admission")
        except BaseException:
            await connection.aclose()
            raise
        return link, admission

    async def _admit_per_call(
        self, spec: ServerSpec, target: StdioLaunch | HttpTarget
    ) -> tuple[Link, Admission]:
        async with open_session(spec.alias, target, self._era_for(spec), spec.connect_timeout_s) as session:
            self._eras[spec.alias] = session.era
            published = await self._list(spec, session)
        link = PerCallLink(
            spec, target, self._eras[spec.alias], definitions_of(published), self.config.pool, self._fault
        )
        return link, vet(spec, published, self.config.pool, self._screener, owner=link)

    async def _list(self, spec: ServerSpec, session: UpstreamSession) -> list[PublishedTool]:
        settings = self.config.pool
        try:
            return await session.list_tools(
                spec.call_timeout_s, settings.max_list_pages, settings.max_tools_per_server
            )
        except ListingTooLarge as exc:
            raise ConnectionRefused(spec.alias, (f"R2: {exc}",)) from None

    def _fault(self, link: Link, error: UpstreamError) -> None:
        """A call timed out or lost its link: drop it and revoke its tools before answering."""
        link.drop(str(error))
        self._forget(link, str(error))

    def _connection_lost(self, connection: Connection, reason: str) -> None:
        """The watchdog's report (R12): a connection's process exited or transport closed."""
        link = self._links.get(connection.alias)
        if isinstance(link, PersistentLink) and link.connection is connection:
            self._forget(link, reason)

    def _forget(self, link: Link, reason: str) -> None:
        revoked = self._registry.revoke(link)
        if self._links.get(link.alias) is link:
            del self._links[link.alias]
        if revoked:
            detail = MappingProxyType({"reason": reason, "revoked": tuple(t.name for t in revoked)})
            self._emit(PoolEvent("mcp.connection_lost", link.alias, detail))

    def _emit_admitted(self, spec: ServerSpec, admission: Admission) -> None:
        for name, verdict in admission.dropped:
            detail = {"tool": name, "score": verdict.score, "reasons": verdict.reasons}
            self._emit(PoolEvent("mcp.desc_rejected", spec.alias, MappingProxyType(detail)))
        era = self._era_for(spec)
        self._emit(
            PoolEvent(
                "mcp.connected",
                spec.alias,
                MappingProxyType(
                    {
                        "tools": tuple(tool.name for tool in admission.exposed),
                        "dropped": tuple(name for name, _ in admission.dropped),
                        "forbidden": admission.forbidden,
                        "era": era.mode if era is not None else "",
                    }
                ),
            )
        )

    def _emit(self, event: PoolEvent) -> None:
        if self._on_event is not None:
            self._on_event(event)

    def _era_for(self, spec: ServerSpec) -> Era | None:
        """The configured era, or for ``auto`` the one found last time (None: probe)."""
        if spec.era != "auto":
            return Era(spec.era)
        return self._eras.get(spec.alias)

    def _spec(self, alias: str) -> ServerSpec:
        spec = self.config.servers.get(alias)
        if spec is None:
            raise UnknownAlias(alias)
        return spec

    def _require_open(self) -> None:
        if self._state is not _State.OPEN:
            raise PoolClosed("the pool is not open: use it inside `async with Pool(config)`")

    def _target(self, spec: ServerSpec) -> StdioLaunch | HttpTarget:
        if spec.transport == "stdio":
            assert spec.command is not None
            env = {key: self._resolve(spec.alias, value) for key, value in spec.env.items()}
            return StdioLaunch(command=spec.command, args=spec.args, env=env, cwd=spec.cwd)
        assert spec.url is not None
        headers = {key: self._resolve(spec.alias, value) for key, value in spec.headers.items()}
        return HttpTarget(kind=spec.transport, url=spec.url, headers=headers)

    def _resolve(self, alias: str, value: str | SecretRef) -> str:
        if isinstance(value, str):
            return value
        if value.secret not in self._secrets:
            raise MissingSecret(alias, value.secret)
        return self._secrets[value.secret]
