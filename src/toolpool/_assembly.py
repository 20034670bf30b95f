"""The parts of one open pool, built once, in order, on the pool's exit stack.

``assemble`` opens the management plane (the store, with the configuration synced into it;
unless the pool has no store), then builds what runs calls (``toolpool.calls``) and what admits
servers (``Admitter``) on top of it. Every part that must be closed is pushed on the stack, so
closing runs in reverse: the audit writer flushes before the store it writes to is closed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

import anyio.abc
import anyio.to_thread

from toolpool._exit_stack import ExitStack
from toolpool.admitter import Admitter, EraMemory
from toolpool.calls import (
    BlobStore,
    Breakers,
    CallApprovals,
    CallPipeline,
    CallRecording,
    EventOutlet,
    Limits,
    Recorder,
    RedisState,
    Relinker,
    Revocation,
    Sessions,
    SharedState,
    Visibility,
)
from toolpool.config import Config
from toolpool.enablement import Enablement
from toolpool.errors import UsageError
from toolpool.events import EventSink
from toolpool.redaction import Redactor
from toolpool.registry import Registry
from toolpool.store import (
    CallRecord,
    ConfigEnablement,
    ConfigFirstPins,
    SecretKey,
    Store,
    StoreEnablement,
    open_synced,
)
from toolpool.telemetry import AliasReading, Telemetry
from toolpool.upstream import Link, Resolver, SystemResolver
from toolpool.vetting import MemoryPins, Pins, Screener
from toolpool.vetting.screener import RuleScreener

if TYPE_CHECKING:  # the judge and its models are imported only where a judge is configured
    from toolpool.agent._messages import Model
    from toolpool.vetting.judge import ScreenJudge

__all__ = ["Parts", "assemble", "readings", "utcnow"]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Parts:
    """What an open pool is made of."""

    tasks: anyio.abc.TaskGroup
    store: Store | None
    registry: Registry
    visibility: Visibility
    breakers: Breakers
    blobs: BlobStore
    events: EventOutlet
    pipeline: CallPipeline
    sessions: Sessions
    admitter: Admitter
    shared: SharedState | None = None


async def assemble(
    config: Config,
    tasks: anyio.abc.TaskGroup,
    stack: ExitStack,
    *,
    store: Store | Literal[False] | None,
    secret_key: SecretKey | None,
    secrets: Mapping[str, str],
    enablement: Enablement | None,
    screener: Screener | None,
    pins: Pins | None,
    on_event: EventSink | None,
    on_call: Callable[[CallRecord], None] | None,
    resolver: Resolver | None,
    telemetry: Telemetry,
    clock: Callable[[], datetime],
    monotonic: Callable[[], float],
    replica: str | None = None,
    relinker: Relinker | None = None,
    judge_model: Model | None = None,
) -> Parts:
    """Build an open pool's parts; whatever needs closing is closed by ``stack``.

    Raises:
        UsageError: the store cannot be opened.
    """
    opened: Store | None = None
    recorder = None
    spec_hashes = {alias: spec.spec_hash for alias, spec in config.servers.items()}
    if store is not False:
        opened, owned = await open_synced(
            config, store if isinstance(store, Store) else None, secret_key, spec_hashes
        )
        if owned:
            stack.push_async_callback(_close_store, opened)
        recorder = Recorder(opened, telemetry)
        await tasks.start(recorder.run)
        stack.push_async_callback(recorder.aclose)
    configured = config.pins
    gate3 = enablement or (StoreEnablement(opened) if opened else ConfigEnablement(config))
    approved = pins or (
        ConfigFirstPins(configured, opened.pins.as_pins(actor="pool")) if opened else MemoryPins(configured)
    )
    screening = (
        screener
        if screener is not None
        else RuleScreener(config.pool.screen_threshold, lexical=config.pool.screen_lexical)
    )
    registry = Registry()
    redactor = Redactor()
    visibility = Visibility(registry, gate3, spec_hashes)
    breakers = Breakers(config.servers, monotonic)
    blobs = BlobStore()
    events = EventOutlet(on_event, redactor, recorder)
    revocation = Revocation(registry, events)
    recording = None if recorder is None else CallRecording(recorder, clock, on_call, replica=replica)
    limits = await _limits(config, opened, events, stack, clock, monotonic)
    shared = None
    if config.pool.redis is not None:
        shared = SharedState(config.pool.redis, lambda kind, detail: events.emit(kind, "", detail), monotonic)
        stack.push_async_callback(shared.aclose)
        await tasks.start(shared.follow_breakers, breakers)
    pipeline = CallPipeline(
        registry,
        gate3,
        config.pool,
        screening,
        spec_hashes=spec_hashes,
        breakers=breakers,
        blobs=blobs,
        revocation=revocation,
        redactor=redactor,
        approvals=CallApprovals(opened, config.pool.approval_ttl_s, clock, redactor, events),
        recording=recording,
        telemetry=telemetry,
        retries={
            alias: (spec.retry, spec.call_timeout_s + spec.connect_timeout_s)
            for alias, spec in config.servers.items()
        },
        relinker=relinker,
        limits=limits,
        shared=shared,
        clock=clock,
    )
    sessions = Sessions(pipeline, visibility, opened, recorder, clock)
    secret = _secret_source(secrets, opened)
    eras = EraMemory(opened.tools.remembered_era, opened.tools.remember_era) if opened else EraMemory()
    admitter = Admitter(
        config,
        secret,
        screening,
        approved,
        registry,
        revocation,
        resolver or SystemResolver(),
        redactor,
        eras,
        events,
        telemetry,
        judge=_screen_judge(config, judge_model, opened, secret, stack, clock),
    )
    return Parts(
        tasks, opened, registry, visibility, breakers, blobs, events, pipeline, sessions, admitter, shared
    )


async def _close_store(store: Store) -> None:
    """Close the store even when the pool is left by a cancellation: a store left open keeps its
    connections, and SQLite its write-ahead log (shielded: closing releases connections, it
    waits on no answer)."""
    with anyio.CancelScope(shield=True):
        await anyio.to_thread.run_sync(store.close)


async def _limits(
    config: Config,
    store: Store | None,
    events: EventOutlet,
    stack: ExitStack,
    clock: Callable[[], datetime],
    monotonic: Callable[[], float],
) -> Limits:
    """The pool's limits: in Redis with ``[pool] redis``, else in this process; quotas start
    at what the store's usage ledger says was spent in the current period."""
    state = None
    if config.pool.redis is not None:
        state = RedisState(config.pool.redis, lambda kind, detail: events.emit(kind, "", detail), monotonic)
    limits = Limits(config, state, clock=clock, monotonic=monotonic)
    stack.push_async_callback(limits.aclose)
    if store is not None:
        await limits.seed(store)
    return limits


def _screen_judge(
    config: Config,
    model: Model | None,
    store: Store | None,
    secret: Callable[[str, str], str | None],
    stack: ExitStack,
    clock: Callable[[], datetime],
) -> ScreenJudge | None:
    """The screen judge, when ``[pool] screen_judge`` names a model or the pool was given one;
    its verdicts are kept in the store (in memory without one)."""
    settings = config.pool
    if model is None and settings.screen_judge is None:
        return None
    from toolpool.vetting.judge import MemoryJudgements, ScreenJudge, judge_model

    owned = model is None
    judge = ScreenJudge(
        judge_model(settings, lambda name: secret(name, "")) if model is None else model,
        store.judgements if store is not None else MemoryJudgements(),
        timeout_s=settings.screen_judge_timeout_s,
        max_calls=settings.screen_judge_max_calls,
        max_chars=settings.screen_judge_max_chars,
        owns_model=owned,
        clock=clock,
    )
    stack.push_async_callback(judge.aclose)
    return judge


def _secret_source(secrets: Mapping[str, str], store: Store | None) -> Callable[[str, str], str | None]:
    """Secrets given to the pool first (pool-wide values only), then the store's: the
    pool-wide value (principal ``""``) or one principal's own; None for one it cannot give.

    The store's answers are cached until its secrets change (``secrets.version``, one cheap
    read): a per-principal alias looks its caller's secrets up on every call, and a read with
    a decryption costs milliseconds, the version check microseconds."""
    cache: dict[tuple[str, str], str | None] = {}
    seen = [-1]

    def secret(name: str, principal: str) -> str | None:
        if not principal and name in secrets:
            return secrets[name]
        if store is None:
            return None
        version = store.secrets.version()
        if version != seen[0]:
            cache.clear()
            seen[0] = version
        if (name, principal) not in cache:
            try:
                cache[(name, principal)] = store.secrets.secret(name, principal=principal)
            except UsageError:
                cache[(name, principal)] = None
        return cache[(name, principal)]

    return secret


def readings(parts: Parts, links: Mapping[str, Link]) -> list[AliasReading]:
    """Each configured alias as the gauges report it (read on a scrape or an export)."""
    exposed: dict[str, list[int]] = {}
    for tool in parts.registry.snapshot().tools:
        exposed.setdefault(tool.alias, []).append(tool.list_tokens)
    found = []
    for alias in sorted({*links, *exposed}):
        link = links.get(alias)
        tokens = exposed.get(alias, [])
        breaker = parts.breakers.state_of(alias)
        found.append(AliasReading(alias, link is not None and link.alive, len(tokens), sum(tokens), breaker))
    return found
