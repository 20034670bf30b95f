"""The Pool: the composition root. It builds the parts once and hands out snapshots, sessions
and calls; the parts do the work (``toolpool.calls`` runs every call, ``Admitter`` admits).

Lifecycle::

    new --__aenter__--> open --aclose()/__aexit__--> closed   (no reopening)

Entering the pool opens its store (the config's ``pool.store``, by default ``toolpool.db``
beside the config file) and syncs the config's ``enabled`` flags into it; nothing is
connected until ``connect(alias)``. Every connection's owner task and watchdog live in the
pool's task group, so leaving the block closes every connection and reaps every child (R13).
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Self

import anyio
import anyio.abc

from toolpool._assembly import Parts, assemble, readings, utcnow
from toolpool._exit_stack import ExitStack
from toolpool.calls import BreakerState, Envelope, ResultBlob, Session
from toolpool.config import Config, ServerSpec
from toolpool.enablement import Enablement
from toolpool.errors import ConnectionRefused, PoolClosed, ToolpoolError, UnknownAlias, UsageError
from toolpool.events import EventSink
from toolpool.registry import Snapshot
from toolpool.store import CallRecord, SecretKey, Store
from toolpool.telemetry import Telemetry
from toolpool.tickets import Ticket
from toolpool.upstream import Era, Link, PersistentLink, PublishedTool, Resolver, UpstreamSession
from toolpool.vetting import Admission, ExposedTool, Pins, Screener

if TYPE_CHECKING:
    from toolpool.agent._messages import Model

__all__ = ["CONNECTS_AT_ONCE", "Pool"]

# Bound on closing all connections when the pool closes; each stdio stop is bounded too.
_CLOSE_ALL_S = 20.0
# Starting a server is CPU-bound (a process importing its SDK) and connect timeouts count wall
# time: more admissions at once than CPUs make every one slower and the slowest time out. So
# one pool admits at most this many aliases at once, whoever asks (the gateway's connector,
# an agent's connect_mcp, a retry); the others wait their turn before their admission (and its
# timeout) starts. DESIGN.md names no configuration key for it.
CONNECTS_AT_ONCE = max(2, os.cpu_count() or 2)


class _State(enum.Enum):
    NEW = "new"
    OPEN = "open"
    CLOSED = "closed"


class Pool:
    """A guarded, dynamic pool of MCP tools built from a trusted configuration.

    Args:
        config: the validated configuration (``load_config``).
        store: the management store; by default the pool opens the config's store and closes
            it on exit; pass an open ``Store`` to share one, or ``False`` for none (then the
            config alone answers gate 3, pins live in memory and nothing is audited).
        secret_key: decrypts the store's secrets (the CLI reads it from TOOLPOOL_SECRET_KEY
            or the key file ``toolpool init`` made).
        secrets: values for ``{ secret = "NAME" }`` entries, taken before the store's.
        enablement: answers gate 3 instead of the store or the config.
        screener: scores tool definitions and results (R5, gate 9); defaults to the offline
            ``RuleScreener`` at the config's ``screen_threshold``.
        pins: approved definitions (R7) instead of the store's.
        on_event: receives ``PoolEvent``s (connected, refused, lost, tool changed, ...).
        on_call: receives each call's ``CallRecord`` as it is queued for the store (with a
            store only); it runs on the caller's task and must not block or raise.
        resolver: resolves remote servers' host names once per connect, for the SSRF guard.
        telemetry: traces, metrics and the call log (``toolpool.telemetry``); off by default.
        clock: the wall-clock time tickets are checked against.
        monotonic: seconds for circuit-breaker cooldowns.
        replica: this process's name where several share one store: in its call records.
        judge_model: the model behind the screen judge (``toolpool.vetting.judge``) instead of
            the one ``[pool] screen_judge`` names; giving one turns the judge on. The caller
            keeps it (the pool does not close it).
    """

    def __init__(
        self,
        config: Config,
        *,
        store: Store | Literal[False] | None = None,
        secret_key: SecretKey | None = None,
        secrets: Mapping[str, str] | None = None,
        enablement: Enablement | None = None,
        screener: Screener | None = None,
        pins: Pins | None = None,
        on_event: EventSink | None = None,
        on_call: Callable[[CallRecord], None] | None = None,
        resolver: Resolver | None = None,
        telemetry: Telemetry | None = None,
        clock: Callable[[], datetime] = utcnow,
        monotonic: Callable[[], float] = time.monotonic,
        replica: str | None = None,
        judge_model: Model | None = None,
    ) -> None:
        self.config = config
        self.telemetry = telemetry or Telemetry.off()
        self._options: dict[str, Any] = {
            "store": store,
            "secret_key": secret_key,
            "secrets": dict(secrets or {}),
            "enablement": enablement,
            "screener": screener,
            "pins": pins,
            "on_event": on_event,
            "on_call": on_call,
            "resolver": resolver,
            "telemetry": self.telemetry,
            "clock": clock,
            "monotonic": monotonic,
            "replica": replica,
            "judge_model": judge_model,
        }
        self._parts: Parts | None = None
        self._links: dict[str, Link] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._admitting = anyio.CapacityLimiter(CONNECTS_AT_ONCE)
        self._state = _State.NEW
        self._stack = ExitStack()

    async def __aenter__(self) -> Self:
        if self._state is not _State.NEW:
            raise PoolClosed("a pool can be opened once")
        self._state = _State.CLOSED  # until everything below is built
        async with ExitStack() as stack:
            tasks = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(tasks.cancel_scope.cancel)  # runs before the group is left
            parts = self._parts = await assemble(
                self.config, tasks, stack, relinker=_Relinker(self), **self._options
            )
            stack.callback(self.telemetry.watch(lambda: readings(parts, self._links)))
            stack.push_async_callback(self._close_links)
            self._stack = stack.pop_all()
        self._state = _State.OPEN
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Revoke everything, close every connection, reap every child, flush the audit
        records and close the store it opened; idempotent."""
        was_open = self._state is _State.OPEN
        self._state = _State.CLOSED
        if was_open:
            await self._stack.aclose()

    @property
    def store(self) -> Store | None:
        """The management store this pool uses, if any."""
        return None if self._parts is None else self._parts.store

    @property
    def calls_in_flight(self) -> int:
        """Calls that started and have not returned yet, in every session of this pool."""
        return 0 if self._parts is None else self._parts.pipeline.in_flight

    async def shared_reachable(self) -> bool | None:
        """Whether the Redis of ``[pool] redis`` answers now; None without one (or closed)."""
        shared = None if self._parts is None else self._parts.shared
        return None if shared is None else await shared.ping()

    @property
    def connected(self) -> tuple[str, ...]:
        """The aliases connected now."""
        return tuple(sorted(alias for alias, link in self._links.items() if link.alive))

    def era(self, alias: str) -> Era | None:
        """The era a connect negotiated for ``alias`` (remembered across reconnects)."""
        return self._open().admitter.era(self._spec(alias))

    def session_of(self, alias: str) -> UpstreamSession | None:
        """The live upstream session of a persistent alias (for diagnostics), if any."""
        link = self._links.get(alias)
        if isinstance(link, PersistentLink) and link.connection.alive:
            return link.connection.session
        return None

    def circuit(self, alias: str) -> BreakerState:
        """The state of ``alias``'s circuit breaker (gate 7)."""
        return self._open().breakers.of(self._spec(alias).alias).state

    def quarantined(self) -> tuple[tuple[str, str], ...]:
        """(alias, tool) pairs whose changed definitions wait for approval (R7)."""
        return self._open().admitter.quarantined()

    def approve_change(self, alias: str, remote_name: str) -> None:
        """Approve a quarantined tool's new definition; it is exposed from the next connect.

        Raises:
            UsageError: that tool is not quarantined.
        """
        self._open().admitter.approve_change(alias, remote_name)

    def result_blob(self, blob_id: str) -> ResultBlob:
        """The whole sanitized result behind a clipped Envelope (``envelope.blob_id``).

        Raises:
            UsageError: no such blob (unknown, or evicted to bound memory).
        """
        blob = self._open().blobs.get(blob_id)
        if blob is None:
            raise UsageError(f"no result blob {blob_id!r} (unknown, or evicted)")
        return blob

    def session(self, principal: str, ticket: Ticket | None = None, *, resume: str | None = None) -> Session:
        """A session for one conversation (R15): bound to the store's current release (or,
        resumed by id, in any process, to its original one, with its taint); its snapshots
        follow ``ticket`` (R10) within its release, which says what each tool may do, and its
        untrusted results taint the arguments of write tools (gate 6). See ``Sessions``.

        Raises:
            UsageError: ``resume`` names no known session, or its taint cannot be restored.
        """
        return self._open().sessions.open(principal, ticket, resume)

    async def connect(self, alias: str) -> None:
        """Admit ``alias``: start it, read every page of its tools, vet them, expose them.

        Connecting an alias that is already connected changes nothing.

        Raises:
            UnknownAlias: the configuration does not name ``alias``; nothing was started.
            ConnectionRefused: an admission rule failed; the connection was closed.
            UpstreamError: the server could not be started, reached or listed.
            MissingSecret: a secret the server needs was not provided.
            AddressBlocked: the SSRF guard refused a remote server's address.
            SandboxUnavailable: the server wants a sandbox this machine cannot run.
        """
        spec = self._spec(alias)
        parts = self._open()
        async with self._locks.setdefault(alias, anyio.Lock()):
            current = self._links.get(alias)
            if current is not None and current.alive:
                return
            try:
                async with self._admitting:
                    link, admission = await parts.admitter.admit(spec, parts.tasks)
            except ConnectionRefused as refused:
                parts.events.emit("mcp.refused", alias, {"reasons": refused.reasons})
                raise
            parts.registry.admit(link, admission.exposed)
            self._links[alias] = link
        parts.admitter.settle(spec, admission)
        era = parts.admitter.era(spec)
        parts.events.admitted(alias, admission, "" if era is None else era.mode)

    async def inspect(self, alias: str) -> tuple[tuple[PublishedTool, ...], Admission]:
        """What ``alias`` publishes now, and what vetting, screening and the pins make of it,
        through a short session of its own; nothing is exposed (``toolpool import`` uses it).

        Raises:
            as ``connect``.
        """
        spec = self._spec(alias)
        published, admission = await self._open().admitter.inspect(spec)
        return tuple(published), admission

    async def disconnect(self, alias: str) -> None:
        """Revoke all of ``alias``'s tools in one step, then close its connection (R11).

        Raises:
            UnknownAlias: the configuration does not name ``alias``.
        """
        self._spec(alias)
        link = self._links.pop(alias, None)
        if link is None:
            return
        parts = self._open()
        parts.registry.revoke(link)
        await link.aclose()
        parts.events.emit("mcp.disconnected", alias)

    def snapshot(self, ticket: Ticket | None = None) -> Snapshot:
        """The tools one model request may use: enabled, and if ``ticket`` is given, only
        those whose action it allows (R10). O(1) unless something changed since last time."""
        return self._open().visibility.snapshot(ticket)

    async def call(
        self,
        snapshot: Snapshot,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ticket: Ticket | None = None,
    ) -> Envelope:
        """Run one call through every gate against ``snapshot``, in the pool's default
        session; never raises for a refusal or an upstream fault: those are Envelopes.

        Raises:
            PoolClosed: the pool is not open.
        """
        default = self._open().sessions.default
        return await default.run(snapshot, name, {} if arguments is None else arguments, ticket)

    async def _close_links(self) -> None:
        parts = self._parts
        assert parts is not None
        parts.pipeline.close()
        links = list(self._links.values())
        self._links.clear()
        for link in links:
            parts.registry.revoke(link)
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_ALL_S):
            async with anyio.create_task_group() as closing:
                for link in links:
                    closing.start_soon(link.aclose)

    def _spec(self, alias: str) -> ServerSpec:
        spec = self.config.servers.get(alias)
        if spec is None:
            raise UnknownAlias(alias)
        return spec

    def _open(self) -> Parts:
        if self._state is not _State.OPEN or self._parts is None:
            raise PoolClosed("the pool is not open: use it inside `async with Pool(config)`")
        return self._parts


class _Relinker:
    """Connects an alias again for a read call's retry (``calls._retry``): through admission,
    like any connect, and only to a tool with the definition the caller's snapshot held."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def relink(self, tool: ExposedTool) -> ExposedTool | None:
        try:
            await self._pool.connect(tool.alias)
        except ToolpoolError:
            return None
        for candidate in self._pool.snapshot().tools:
            if (
                candidate.alias == tool.alias
                and candidate.remote_name == tool.remote_name
                and candidate.definition_hash == tool.definition_hash
            ):
                return candidate
        return None
