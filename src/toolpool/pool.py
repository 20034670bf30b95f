"""The Pool: connect aliases, vet their tools, hand out snapshots, run gated calls.

Lifecycle::

    new --__aenter__--> open --aclose()/__aexit__--> closed   (no reopening)

Entering the pool opens its store (the config's ``pool.store``, by default ``toolpool.db``
beside the config file) and syncs the config's ``enabled`` flags into it; nothing is
connected until ``connect(alias)``. Every connection's owner task and watchdog live in the
pool's task group, so leaving the block closes every connection and reaps every child (R13).
"""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from types import MappingProxyType, TracebackType
from typing import Any, Literal, Self

import anyio
import anyio.abc

from toolpool.admitter import Admitter, EraMemory, Link
from toolpool.breaker import BreakerState, CircuitBreaker
from toolpool.calls import CallPipeline
from toolpool.config import Config, ServerSpec
from toolpool.enablement import ConfigEnablement, Enablement
from toolpool.envelope import Envelope, refusal
from toolpool.errors import (
    SERVER_CHANGED,
    UNKNOWN_TOOL,
    ConnectionRefused,
    PoolClosed,
    UnknownAlias,
    UpstreamError,
    UsageError,
)
from toolpool.events import EventSink, PoolEvent
from toolpool.links import PersistentLink
from toolpool.managed import Management
from toolpool.redaction import Redactor
from toolpool.registry import Registry, Snapshot
from toolpool.results import BlobStore, ResultBlob
from toolpool.sessions import Session
from toolpool.store import CallRecord, SecretKey, Store
from toolpool.tickets import Ticket
from toolpool.upstream import Connection, Era, Resolver, SystemResolver, UpstreamSession
from toolpool.vetting import Admission, MemoryPins, Pins, PublishedTool, Screener
from toolpool.vetting.screener import RuleScreener
from toolpool.views import Views

__all__ = ["Pool"]

# Bound on closing all connections when the pool closes; each stdio stop is bounded too.
_CLOSE_ALL_S = 20.0


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
        clock: the wall-clock time tickets are checked against.
        monotonic: seconds for circuit-breaker cooldowns.
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
        clock: Callable[[], datetime] = _utcnow,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._store_option = store
        self._secret_key = secret_key
        self._secrets = dict(secrets or {})
        self._given = (enablement, pins)
        self._screener = screener if screener is not None else RuleScreener(config.pool.screen_threshold)
        self._pins: Pins = pins if pins is not None else MemoryPins(_configured_pins(config))
        self._on_event = on_event
        self._on_call = on_call
        self._resolver = resolver if resolver is not None else SystemResolver()
        self._clock = clock
        self._monotonic = monotonic
        self._registry = Registry()
        self._spec_hashes = {alias: spec.spec_hash for alias, spec in config.servers.items()}
        self._views = Views(
            self._registry,
            enablement if enablement is not None else ConfigEnablement(config),
            self._spec_hashes,
        )
        self._redactor = Redactor()
        self._blobs = BlobStore()
        self._breakers: dict[str, CircuitBreaker] = {}
        self._management: Management | None = None
        self._eras = EraMemory()
        self._assemble()
        self._default_session = Session("pool", "pool", None, None, self._views.snapshot, self._run_call)
        self._links: dict[str, Link] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._quarantined: dict[tuple[str, str], PublishedTool] = {}
        self._state = _State.NEW
        self._tasks: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> Self:
        if self._state is not _State.NEW:
            raise PoolClosed("a pool can be opened once")
        tasks = anyio.create_task_group()
        await tasks.__aenter__()
        try:
            if self._store_option is not False:
                await self._open_management(tasks)
        except BaseException:
            tasks.cancel_scope.cancel()
            await tasks.__aexit__(None, None, None)
            raise
        self._tasks = tasks
        self._state = _State.OPEN
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Revoke everything, close every connection, reap every child, flush the audit
        records and close the store it opened; idempotent."""
        if self._state is not _State.OPEN:
            self._state = _State.CLOSED
            return
        self._state = _State.CLOSED
        links = list(self._links.values())
        self._links.clear()
        for link in links:
            self._registry.revoke(link)
        assert self._tasks is not None
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(_CLOSE_ALL_S):
                async with anyio.create_task_group() as closing:
                    for link in links:
                        closing.start_soon(link.aclose)
            if self._management is not None:
                await self._management.aclose()
        self._tasks.cancel_scope.cancel()
        await self._tasks.__aexit__(None, None, None)

    @property
    def store(self) -> Store | None:
        """The management store this pool uses, if any."""
        return None if self._management is None else self._management.store

    @property
    def connected(self) -> tuple[str, ...]:
        """The aliases connected now."""
        return tuple(sorted(alias for alias, link in self._links.items() if link.alive))

    def era(self, alias: str) -> Era | None:
        """The era a connect negotiated for ``alias`` (remembered across reconnects)."""
        return self._admitter.era(self._spec(alias))

    def session_of(self, alias: str) -> UpstreamSession | None:
        """The live upstream session of a persistent alias (for diagnostics), if any."""
        link = self._links.get(alias)
        if isinstance(link, PersistentLink) and link.connection.alive:
            return link.connection.session
        return None

    def circuit(self, alias: str) -> BreakerState:
        """The state of ``alias``'s circuit breaker (gate 7)."""
        return self._breaker(self._spec(alias).alias).state

    def quarantined(self) -> tuple[tuple[str, str], ...]:
        """(alias, tool) pairs whose changed definitions wait for approval (R7)."""
        return tuple(sorted(self._quarantined))

    def approve_change(self, alias: str, remote_name: str) -> None:
        """Approve a quarantined tool's new definition; it is exposed from the next connect.

        Raises:
            UsageError: that tool is not quarantined.
        """
        published = self._quarantined.pop((alias, remote_name), None)
        if published is None:
            raise UsageError(f"{alias}/{remote_name} is not quarantined")
        self._pins.approve(alias, remote_name, published)

    def result_blob(self, blob_id: str) -> ResultBlob:
        """The whole sanitized result behind a clipped Envelope (``envelope.blob_id``).

        Raises:
            UsageError: no such blob (unknown, or evicted to bound memory).
        """
        blob = self._blobs.get(blob_id)
        if blob is None:
            raise UsageError(f"no result blob {blob_id!r} (unknown, or evicted)")
        return blob

    def session(self, principal: str, ticket: Ticket | None = None, *, resume: str | None = None) -> Session:
        """A session for one conversation (R15): bound to the store's current release (or,
        resumed by id, to its original one); its snapshots follow ``ticket`` (R10) and its
        untrusted results taint the arguments of write tools (gate 6).

        With a store, the session's release decides each tool's action, effect and resource
        (not today's configuration), a tool whose server's spec hash differs from the one
        the release approved is refused (``server_changed``), and the session's taint is
        kept in the store: a session resumed in any process gets all three back.

        Raises:
            UsageError: ``resume`` names no known session, or its taint cannot be restored.
        """
        if self._management is None:
            if resume is not None:
                raise UsageError("sessions can be resumed only with a store")
            return Session(_next_session_id(), principal, ticket, None, self._views.snapshot, self._run_call)
        session_id, release, taint = self._management.open_session(principal, resume)
        return Session(session_id, principal, ticket, release, self._views.snapshot, self._run_call, taint)

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
        self._require_open()
        assert self._tasks is not None
        async with self._locks.setdefault(alias, anyio.Lock()):
            current = self._links.get(alias)
            if current is not None and current.alive:
                return
            failure: UpstreamError | None = None
            try:
                link, admission = await self._admitter.admit(spec, self._tasks, self._peers(alias))
            except ConnectionRefused as refused:
                self._emit(PoolEvent("mcp.refused", alias, MappingProxyType({"reasons": refused.reasons})))
                raise
            except UpstreamError as error:
                failure = self._redacted_error(error)
            if failure is not None:
                raise failure  # outside the handler: the unredacted original is not even its context
            self._registry.admit(link, admission.exposed)
            self._links[alias] = link
        self._settle_pins(spec, admission)
        self._emit_admitted(spec, admission)

    async def inspect(self, alias: str) -> tuple[tuple[PublishedTool, ...], Admission]:
        """What ``alias`` publishes now, and what vetting, screening and the pins make of it,
        through a short session of its own; nothing is exposed (``toolpool import`` uses it).

        Raises:
            as ``connect``.
        """
        spec = self._spec(alias)
        self._require_open()
        failure: UpstreamError | None = None
        try:
            published, admission = await self._admitter.inspect(spec, self._peers(alias))
        except UpstreamError as error:
            failure = self._redacted_error(error)
        if failure is not None:
            raise failure
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
        self._registry.revoke(link)
        await link.aclose()
        self._emit(PoolEvent("mcp.disconnected", alias))

    def snapshot(self, ticket: Ticket | None = None) -> Snapshot:
        """The tools one model request may use: enabled, and if ``ticket`` is given, only
        those whose action it allows (R10). O(1) unless something changed since last time."""
        return self._views.snapshot(ticket)

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
        return await self._run_call(
            self._default_session, snapshot, name, {} if arguments is None else arguments, ticket
        )

    async def _run_call(
        self, session: Session, snapshot: Snapshot, name: str, arguments: object, ticket: Ticket | None
    ) -> Envelope:
        self._require_open()
        started = time.perf_counter()
        tool = snapshot.get(name)
        permission = None
        envelope = None
        if tool is not None and session.release is not None:
            # Additions and changes reach only sessions that start after them (R15); the
            # release, not today's configuration, says what the tool may do.
            entry = session.release.entry(tool)
            if entry is None:
                envelope = refusal(UNKNOWN_TOOL, name, f"{name} is not part of this session's release")
            elif not session.release.approves_server(tool.alias, self._spec_hashes[tool.alias]):
                envelope = refusal(
                    SERVER_CHANGED,
                    name,
                    f"the server behind {name} is reached differently (command, URL or sandbox) "
                    "than this session's release approved; start a new session to use it",
                )
            else:
                permission = entry.permission
        if envelope is None:
            envelope = await self._pipeline.run(snapshot, name, arguments, ticket, session.taint, permission)
        envelope = self._redacted(envelope)
        if self._management is not None:
            self._record_call(session, snapshot, name, arguments, envelope, time.perf_counter() - started)
        return envelope

    def _record_call(
        self,
        session: Session,
        snapshot: Snapshot,
        name: str,
        arguments: object,
        envelope: Envelope,
        seconds: float,
    ) -> None:
        """Gate 10: an audit event and a call record for every call decision."""
        assert self._management is not None
        tool = snapshot.get(name)
        alias, remote = (tool.alias, tool.remote_name) if tool is not None else ("", name[:128])
        release = None if session.release is None else session.release.number
        record = CallRecord(
            session_id=session.id,
            principal=session.principal,
            alias=alias,
            tool=remote,
            code=envelope.code,
            duration_ms=round(seconds * 1000, 3),
            bytes_in=_size(arguments),
            bytes_out=len(envelope.text.encode("utf-8", "surrogatepass")),
            snapshot_version=snapshot.version,
            release=release,
            at=self._clock(),
        )
        recorder = self._management.recorder
        recorder.call(record)
        if self._on_call is not None:
            self._on_call(record)
        detail = {
            "code": envelope.code,
            "session": session.id,
            "snapshot": snapshot.version,
            "release": release,
        }
        if envelope.audit_detail:
            detail["upstream"] = envelope.audit_detail
        recorder.audit(session.principal, "call", f"{alias}/{remote}" if alias else remote, detail)

    async def _open_management(self, tasks: anyio.abc.TaskGroup) -> None:
        store = self._store_option if isinstance(self._store_option, Store) else None
        management = await Management.open(
            self.config, store, self._secret_key, _configured_pins(self.config)
        )
        enablement, pins = self._given
        if enablement is None:
            self._views.enablement = management.enablement
        if pins is None:
            self._pins = management.pins
        self._eras = management.eras
        self._management = management
        await tasks.start(management.recorder.run)
        self._assemble()

    def _assemble(self) -> None:
        """Build the admitter and the call pipeline from the current gate-3, pin and era sources."""
        self._admitter = Admitter(
            self.config,
            self._secret,
            self._screener,
            self._pins,
            self._fault,
            self._connection_lost,
            self._resolver,
            self._redactor,
            self._eras,
        )
        self._pipeline = CallPipeline(
            self._registry,
            self._views.enablement,
            self.config.pool,
            self._clock,
            self._screener,
            self._blobs,
            self._breaker,
        )

    def _secret(self, name: str) -> str | None:
        if name in self._secrets:
            return self._secrets[name]
        return None if self._management is None else self._management.secret(name)

    def _redacted_error(self, error: UpstreamError) -> UpstreamError:
        message = self._redactor.redact(str(error).partition(": ")[2])
        return type(error)(error.alias, message, detail=self._redactor.redact(error.detail))

    def _redacted(self, envelope: Envelope) -> Envelope:
        """No secret value leaves in an Envelope, whatever the server echoed."""
        redact = self._redactor.redact
        return replace(
            envelope,
            text=redact(envelope.text),
            audit_detail=redact(envelope.audit_detail),
            structured=self._redactor.redact_value(envelope.structured),
        )

    def _peers(self, alias: str) -> frozenset[str]:
        """What the screener should know besides ``alias``'s own tools (shadowing checks)."""
        names = {other for other in self.config.servers if other != alias}
        for tool in self._registry.snapshot().tools:
            if tool.alias != alias:
                names.update((tool.remote_name, tool.name))
        return frozenset(names)

    def _breaker(self, alias: str) -> CircuitBreaker:
        breaker = self._breakers.get(alias)
        if breaker is None:
            spec = self.config.servers[alias]
            breaker = CircuitBreaker(spec.breaker_failures, spec.breaker_cooldown_s, self._monotonic)
            self._breakers[alias] = breaker
        return breaker

    def _settle_pins(self, spec: ServerSpec, admission: Admission) -> None:
        """Trust on first use for unpinned exposed tools; remember quarantined definitions."""
        for tool in admission.exposed:
            if self._pins.pin_of(spec.alias, tool.remote_name) is None:
                self._pins.approve(spec.alias, tool.remote_name, admission.published[tool.remote_name])
        for name, _ in admission.quarantined:
            self._quarantined[(spec.alias, name)] = admission.published[name]

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
            rejected = {"tool": name, "score": verdict.score, "reasons": verdict.reasons}
            self._emit(PoolEvent("mcp.desc_rejected", spec.alias, MappingProxyType(rejected)))
        for name, secret_names in admission.redacted.items():
            redacted = {"tool": name, "secrets": secret_names}
            self._emit(PoolEvent("mcp.secret_redacted", spec.alias, MappingProxyType(redacted)))
        for name, kinds in admission.quarantined:
            self._emit(
                PoolEvent("mcp.tool_changed", spec.alias, MappingProxyType({"tool": name, "changes": kinds}))
            )
        era = self._admitter.era(spec)
        detail: dict[str, object] = {
            "tools": tuple(tool.name for tool in admission.exposed),
            "dropped": tuple(name for name, _ in admission.dropped),
            "quarantined": tuple(name for name, _ in admission.quarantined),
            "forbidden": admission.forbidden,
            "era": era.mode if era is not None else "",
        }
        self._emit(PoolEvent("mcp.connected", spec.alias, MappingProxyType(detail)))

    def _emit(self, event: PoolEvent) -> None:
        if self._on_event is not None:
            self._on_event(event)
        if self._management is not None:
            detail = self._redactor.redact_value(dict(event.detail))
            self._management.recorder.audit("pool", event.kind, event.alias, detail)

    def _spec(self, alias: str) -> ServerSpec:
        spec = self.config.servers.get(alias)
        if spec is None:
            raise UnknownAlias(alias)
        return spec

    def _require_open(self) -> None:
        if self._state is not _State.OPEN:
            raise PoolClosed("the pool is not open: use it inside `async with Pool(config)`")


_session_numbers = iter(range(1, 1 << 62))


def _next_session_id() -> str:
    return f"local-{next(_session_numbers)}"


def _size(arguments: object) -> int:
    """The arguments' size in bytes for the call record; 0 for what has no JSON form (too
    deep, say: gate 5 refused it), since recording must never raise."""
    try:
        return len(json.dumps(arguments, separators=(",", ":"), default=str).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        return 0


def _configured_pins(config: Config) -> dict[tuple[str, str], str]:
    return {
        (alias, name): policy.pin
        for alias, spec in config.servers.items()
        for name, policy in spec.tools.items()
        if policy.pin is not None
    }
