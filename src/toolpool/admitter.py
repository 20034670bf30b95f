"""Admitting an alias: start it, read its tools, vet them, hand back a link and the verdict.

The ``Admitter`` knows how to reach each alias (targets with secrets resolved only now), which
era each alias speaks (remembered after an ``auto`` probe, so the next connect skips it), and
how to vet what the server published (screening, pins). It decides nothing about the registry:
the pool admits the link's tools, or closes the link if anything failed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.abc
import mcp_types

from toolpool._targets import Targets
from toolpool.calls import EventOutlet, Revocation
from toolpool.config import Config, ServerSpec
from toolpool.errors import (
    ConnectionRefused,
    UpstreamConnectionLost,
    UpstreamError,
    UsageError,
)
from toolpool.redaction import Redactor, marked_names
from toolpool.registry import Registry
from toolpool.telemetry import SpanKind, Telemetry, mark_outcome, traced
from toolpool.telemetry import _names as names
from toolpool.upstream import (
    Connection,
    Era,
    HttpTarget,
    Link,
    ListingTooLarge,
    PerCallLink,
    PersistentLink,
    PrincipalLinks,
    PublishedTool,
    Resolver,
    StdioLaunch,
    UpstreamSession,
    definitions_of,
    open_session,
    require_sandbox,
)
from toolpool.vetting import Admission, ExposedTool, Peer, PeerGroup, PeerSet, Pins, Screener, vet
from toolpool.vetting.growth import growth_of, listing_tokens, pinned_tokens

if TYPE_CHECKING:  # imported only where a judge is configured: it needs the agent runtime
    from toolpool.vetting.judge import ScreenJudge

__all__ = ["Admitter", "EraMemory"]


class _Inspected:
    """The owner of tools vetted only to be looked at (``Admitter.inspect``): never registered,
    never alive."""

    alive = False
    per_call = False
    principal = None

    def __init__(self, alias: str) -> None:
        self.alias = alias

    async def call(
        self, remote_name: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> mcp_types.CallToolResult:
        raise UpstreamConnectionLost(self.alias, "an inspected tool cannot be called")

    def for_principal(self, principal: str | None) -> Link:
        return self

    def drop(self, reason: str) -> None:
        pass

    async def aclose(self) -> None:
        pass


class EraMemory:
    """What each alias's ``auto`` probe found, in memory and, when given, in the store."""

    def __init__(
        self,
        load: Callable[[str], str | None] = lambda _: None,
        save: Callable[[str, str], None] = lambda *_: None,
    ) -> None:
        self._eras: dict[str, Era] = {}
        self._load = load
        self._save = save

    def get(self, alias: str) -> Era | None:
        era = self._eras.get(alias)
        if era is None and (mode := self._load(alias)) is not None:
            era = self._eras[alias] = Era(mode)
        return era

    def set(self, alias: str, era: Era) -> None:
        if self._eras.get(alias) != era:
            self._eras[alias] = era
            self._save(alias, era.mode)


class Admitter:
    """Connects and vets aliases for one pool."""

    def __init__(
        self,
        config: Config,
        secret: Callable[[str, str], str | None],
        screener: Screener,
        pins: Pins,
        registry: Registry,
        revocation: Revocation,
        resolver: Resolver,
        redactor: Redactor,
        eras: EraMemory,
        events: EventOutlet | None = None,
        telemetry: Telemetry | None = None,
        judge: ScreenJudge | None = None,
    ) -> None:
        self._config = config
        self._judge = judge
        self._redactor = redactor
        self._targets = Targets(config, secret, resolver, redactor)
        self._screener = screener
        self._pins = pins
        self._registry = registry
        self._revocation = revocation
        self._eras = eras
        self._events = events
        self._telemetry = telemetry if telemetry is not None else Telemetry.off()
        # alias -> estimated tokens of its last admitted listing (the tool-table alarm's baseline)
        self._listed_tokens: dict[str, int] = {}
        # id(a connection's tools tuple) -> (that tuple, its peer group): see ``_peers``
        self._peer_groups: dict[int, tuple[tuple[ExposedTool, ...], PeerGroup]] = {}
        self._quarantined: dict[tuple[str, str], PublishedTool] = {}

    def settle(self, spec: ServerSpec, admission: Admission) -> None:
        """After an admission: trust on first use for unpinned exposed tools (R7), and keep
        each quarantined tool's new definition until someone approves it."""
        # All at once: one release for a server's new tools, not one per tool (R7 unchanged).
        self._pins.trust_first(
            spec.alias, [admission.published[tool.remote_name] for tool in admission.exposed]
        )
        for name, _ in admission.quarantined:
            self._quarantined[(spec.alias, name)] = admission.published[name]
        self._listed_tokens[spec.alias] = listing_tokens(list(admission.published.values()))

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

    def era(self, spec: ServerSpec) -> Era | None:
        """The configured era, or for ``auto`` the one found last time (None: probe)."""
        if spec.era != "auto":
            return Era(spec.era)
        return self._eras.get(spec.alias)

    def learned(self, spec: ServerSpec, era: Era) -> None:
        if spec.era == "auto":
            self._eras.set(spec.alias, era)

    async def admit(self, spec: ServerSpec, tasks: anyio.abc.TaskGroup) -> tuple[Link, Admission]:
        """Connect ``spec``'s alias and vet its tools; the link is closed if this raises.

        Raises:
            ConnectionRefused: an admission rule failed.
            SandboxUnavailable: the server wants bwrap, which cannot run here.
            UpstreamError: the server could not be started, reached or listed (every secret
                value redacted from it).
            MissingSecret: a secret the server needs was not provided.
        """
        with traced(
            self._telemetry, f"connect {spec.alias}", SpanKind.INTERNAL, {names.ALIAS: spec.alias}
        ) as span:
            try:
                link, admission = await self._admit(spec, tasks)
            except BaseException as exc:
                mark_outcome(span, _failure_kind(exc))
                raise
            if span.is_recording():
                span.set_attributes(
                    {
                        "toolpool.tools.exposed": len(admission.exposed),
                        "toolpool.tools.dropped": len(admission.dropped),
                        "toolpool.tools.quarantined": len(admission.quarantined),
                    }
                )
            return link, admission

    async def _admit(self, spec: ServerSpec, tasks: anyio.abc.TaskGroup) -> tuple[Link, Admission]:
        failure: UpstreamError | None = None
        try:
            target = self._targets.of(spec)
            if isinstance(target, StdioLaunch):
                await require_sandbox(spec.alias, target.sandbox)
            peers = self._peers(spec.alias)
            if spec.per_principal or spec.lifecycle == "per_call":
                return await self._admit_by_listing(spec, target, tasks, peers)
            return await self._admit_persistent(spec, target, tasks, peers)
        except UpstreamError as error:
            failure = self._redacted_error(error)
        raise failure  # outside the handler: the unredacted original is not even its context

    def _redacted_error(self, error: UpstreamError) -> UpstreamError:
        message = self._redactor.redact(str(error).partition(": ")[2])
        return type(error)(error.alias, message, detail=self._redactor.redact(error.detail))

    async def _admit_persistent(
        self,
        spec: ServerSpec,
        target: StdioLaunch | HttpTarget,
        tasks: anyio.abc.TaskGroup,
        peers: Collection[str | Peer],
    ) -> tuple[Link, Admission]:
        admitted: list[Link] = []

        def lost(_: Connection, reason: str) -> None:  # the watchdog's report (R12)
            if admitted:
                self._revocation.lost(admitted[0], reason)

        connection = await Connection.open(
            tasks,
            spec.alias,
            target,
            self.era(spec),
            connect_timeout=spec.connect_timeout_s,
            health_interval=spec.health_interval_s,
            on_lost=lost,
        )
        link = PersistentLink(connection, spec)
        admitted.append(link)
        try:
            self.learned(spec, connection.session.era)
            published = await self._list(spec, connection.session)
            admission = await self._vet(spec, published, link, peers)
            if not connection.alive:
                raise UpstreamConnectionLost(spec.alias, "the server went away during admission")
        except BaseException:
            await connection.aclose()
            raise
        return link, admission

    async def _admit_by_listing(
        self,
        spec: ServerSpec,
        target: StdioLaunch | HttpTarget,
        tasks: anyio.abc.TaskGroup,
        peers: Collection[str | Peer],
    ) -> tuple[Link, Admission]:
        """Admit through a short session of its own: for ``per_call`` aliases, and for those with
        ``per_principal`` secrets, whose calls each go through their principal's connection
        (the admission credentials are ``admit_as``'s, else the pool-wide values)."""
        async with open_session(spec.alias, target, self.era(spec), spec.connect_timeout_s) as session:
            era = session.era
            self.learned(spec, era)
            published = await self._list(spec, session)
        definitions = definitions_of(published)
        link: Link
        if spec.per_principal:
            link = PrincipalLinks(
                spec,
                partial(self._targets.of, spec),
                era,
                definitions,
                self._config.pool,
                tasks,
                clean=self.clean,
                report=self._events.emit if self._events is not None else _ignore,
            )
        else:
            link = PerCallLink(spec, target, era, definitions, self._config.pool, self.clean)
        return link, await self._vet(spec, published, link, peers)

    async def inspect(self, spec: ServerSpec) -> tuple[list[PublishedTool], Admission]:
        """What ``spec``'s server publishes now and what vetting makes of it, through a session
        of its own that is closed before this returns; nothing is registered.

        Raises:
            ConnectionRefused, UpstreamError, MissingSecret, AddressBlocked, SandboxUnavailable:
                as for ``admit``.
        """
        failure: UpstreamError | None = None
        try:
            target = self._targets.of(spec)
            if isinstance(target, StdioLaunch):
                await require_sandbox(spec.alias, target.sandbox)
            async with open_session(spec.alias, target, self.era(spec), spec.connect_timeout_s) as session:
                self.learned(spec, session.era)
                published = await self._list(spec, session)
        except UpstreamError as error:
            failure = self._redacted_error(error)
        if failure is not None:
            raise failure  # outside the handler: the unredacted original is not even its context
        return published, await self._vet(spec, published, _Inspected(spec.alias), self._peers(spec.alias))

    def _peers(self, alias: str) -> PeerSet:
        """What the screener should know besides ``alias``'s own tools (shadowing checks): the
        other servers' aliases and tool names, and their tools' definitions as exposed.

        One group per admitted connection, kept while it stays admitted (its tools tuple is the
        same object), so a connect puts groups together instead of reading the whole pool."""
        aliases = PeerGroup(other for other in self._config.servers if other != alias)
        kept: dict[int, tuple[tuple[ExposedTool, ...], PeerGroup]] = {}
        groups = [aliases]
        for tools in self._registry.owned():
            cached = self._peer_groups.get(id(tools))
            if cached is None or cached[0] is not tools:
                cached = (tools, _group_of(tools))
            kept[id(tools)] = cached
            if tools and tools[0].alias != alias:
                groups.append(cached[1])
        self._peer_groups = kept
        return PeerSet(groups)

    async def _vet(
        self, spec: ServerSpec, published: list[PublishedTool], owner: Link, peers: Collection[str | Peer]
    ) -> Admission:
        admission = vet(
            spec, published, self._config.pool, self._screener, owner, pins=self._pins, peers=peers
        )
        if self._judge is not None and admission.exposed:
            admission = await self._judged(spec.alias, admission, peers)
        return self._redacted(admission, published) if self._redactor.active else admission

    async def _judged(self, alias: str, admission: Admission, peers: Collection[str | Peer]) -> Admission:
        """The screen judge's second opinion on the tools the rules passed: it may add drops;
        where it gave none, the rules' verdict stands and ``mcp.screen_judge_failed`` says why."""
        assert self._judge is not None
        own = set(admission.published)
        others = [peer for peer in peers if (peer.name if isinstance(peer, Peer) else peer) not in own]
        judged = await self._judge.second_opinion(admission, others)
        if self._events is not None:
            for tool, failure in judged.failures:
                detail = {"tool": tool, "judge": self._judge.name, "reason": failure}
                self._events.emit("mcp.screen_judge_failed", alias, detail)
        return judged.admission

    async def _list(self, spec: ServerSpec, session: UpstreamSession) -> list[PublishedTool]:
        # The listing is part of connecting: a server whose calls must be quick (a short
        # call_timeout_s) may still take its connect time to list, on a busy machine say.
        settings = self._config.pool
        attributes = {names.MCP_METHOD: "tools/list", names.ALIAS: spec.alias}
        started = time.perf_counter()
        with traced(self._telemetry, "tools/list", SpanKind.CLIENT, attributes) as span:
            try:
                listed = await session.list_tools(
                    spec.connect_timeout_s, settings.max_list_pages, settings.max_tools_per_server
                )
            except ListingTooLarge as exc:
                mark_outcome(span, "listing_too_large")
                self._listed_in(started, attributes, "listing_too_large")
                raise ConnectionRefused(spec.alias, (f"R2: {exc}",)) from None
            except UpstreamError as exc:
                mark_outcome(span, exc.envelope_code)
                self._listed_in(started, attributes, exc.envelope_code)
                raise
            self._listed_in(started, attributes, "ok")
            cleaned = self.clean(listed)
            tokens = listing_tokens(cleaned)
            if span.is_recording():
                span.set_attributes(
                    {"toolpool.tools.published": len(cleaned), "toolpool.tool_list.tokens": tokens}
                )
        self._alarm(spec, cleaned, tokens)
        return cleaned

    def _listed_in(self, started: float, attributes: Mapping[str, str], code: str) -> None:
        if self._telemetry.metering:
            measured = dict(attributes) if code == "ok" else {**attributes, names.ERROR_TYPE: code}
            self._telemetry.client_duration.record(time.perf_counter() - started, measured)

    def _alarm(self, spec: ServerSpec, published: list[PublishedTool], tokens: int) -> None:
        """``mcp.tools_grew`` when the listing grew past what was approved (see ``growth``)."""
        baseline = self._listed_tokens.get(spec.alias) or pinned_tokens(spec, self._pins)
        factor = self._config.telemetry.tools_grew_factor
        grown = growth_of(spec, published, self._pins, baseline, factor, tokens)
        if grown is None:
            return
        if self._events is not None:
            self._events.emit("mcp.tools_grew", spec.alias, grown.detail())
        if self._telemetry.metering:
            self._telemetry.tools_grew.add(1, {names.ALIAS: spec.alias})

    def clean(self, listed: list[PublishedTool]) -> list[PublishedTool]:
        """The listing with every secret value redacted from every definition: nothing after
        this point (vetting, pins, the store, snapshots, clients) ever sees one."""
        if not self._redactor.active:
            return listed
        return [tool.redacted(self._redactor.redact_value) for tool in listed]

    def _redacted(self, admission: Admission, published: list[PublishedTool]) -> Admission:
        """``admission`` noting which tools' definitions held a secret (found as ``clean``
        replaced it: every secret spelling becomes ``[secret:NAME]``)."""
        found = {}
        for tool in published:
            names = marked_names(json.dumps(tool.definition(), ensure_ascii=False, default=str))
            if names:
                found[tool.name] = names
        return replace(admission, redacted=found) if found else admission


def _ignore(kind: str, alias: str, detail: Mapping[str, object]) -> None:
    pass


def _group_of(tools: tuple[ExposedTool, ...]) -> PeerGroup:
    """A connection's share of the peers: remote and local names, and definitions by remote name."""
    return PeerGroup(
        peer
        for tool in tools
        for peer in (tool.remote_name, tool.name, Peer(tool.remote_name, tool.description))
    )


def _failure_kind(exc: BaseException) -> str:
    """``error.type`` for a failed connect: the Envelope code of an upstream fault, else the
    kind of refusal (never its text, which may quote the server)."""
    if isinstance(exc, UpstreamError):
        return exc.envelope_code
    if isinstance(exc, ConnectionRefused):
        return "connection_refused"
    return type(exc).__name__
