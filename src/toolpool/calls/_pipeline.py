"""The call pipeline: every call is checked again, in a fixed order, when it executes.

Gates (DESIGN.md), each with its own Envelope code; nothing after a failed gate runs:

1. the name is in this request's snapshot                         else ``unknown_tool``;
   in a session, in its release, on the server the release approved   else ``server_changed``
2. the tool is the very object the registry holds, on a live link   else ``mcp_connection_lost``;
   for an alias with per-principal secrets, the caller has their own  else ``credential_missing``
3. the tool and its server are enabled right now                    else ``tool_disabled``
4. the ticket allows the action on the resource, now                else ``denied`` / ``ticket_expired``
5. the arguments are small enough and valid against the schema      else ``invalid_arguments``
6. a write tool's arguments carry no text from this session's
   untrusted results (unless the ticket allows it)                  else ``tainted_argument``
   approval: a tool that needs one for each call, or an action the
   ticket only asks for, runs with a single-use approval of this
   very call (``toolpool.calls._approvals``)                        else ``approval_pending`` / ``denied``
   (then, after approval, ``_limits``: rate, concurrency and quota     else ``rate_limited`` /
   per alias, tool and principal; slots held through gates 7-9)      ``quota_exceeded``)
7. the alias's circuit breaker lets the call through                else ``circuit_open``
8. the upstream call: ``isError`` -> ``mcp_remote_error`` (kept); timeout -> ``mcp_timeout`` and
   lost -> ``mcp_connection_lost`` (both drop the link and revoke its tools, before the caller
   sees the Envelope)
9. the result (``shape_result``): over ``max_result_bytes`` -> ``result_too_large``; else
   sanitized, screened, checked against the output schema, clipped, and remembered by the
   session's taint ledger
10. the Envelope with every secret value redacted, then its audit event and call record, and
    (when telemetry is on) its ``toolpool.call`` span with the gates as events, its metrics and
    its call-log line

Every Envelope is built from local text: upstream error text never reaches ``text``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any, Protocol

from toolpool import errors
from toolpool.calls._approvals import CallApprovals, approval_reason
from toolpool.calls._arguments import missing_resource_keys, render_resource, sized_argument_problems
from toolpool.calls._breaker import Breakers, BreakerState, CircuitBreaker
from toolpool.calls._credentials import carrier
from toolpool.calls._envelope import Envelope, refusal, shown, upstream_failure
from toolpool.calls._limits import Limits
from toolpool.calls._recording import CallRecording, CallSession
from toolpool.calls._results import BlobStore
from toolpool.calls._retry import Relinker, RetryPlan, call_with_retries, retry_plan
from toolpool.calls._revocation import Revocation
from toolpool.calls._shaping import shape_result
from toolpool.calls._shared import SharedState
from toolpool.calls._taint import TaintLedger
from toolpool.calls._visible import Enablement, ReleaseView
from toolpool.config import PoolSettings
from toolpool.errors import PoolClosed, UpstreamError
from toolpool.redaction import Redactor
from toolpool.registry import Registry, Snapshot
from toolpool.runtime_policy import RetryPolicy
from toolpool.telemetry import CallLine, SpanKind, Telemetry, UpstreamSpan, call_decided, plain_name, traced
from toolpool.telemetry import _names as names
from toolpool.tickets import Permission, Ticket, authorize
from toolpool.upstream import Link
from toolpool.vetting import ExposedTool, Screener

__all__ = ["CallPipeline", "PipelineSession"]

# Tickets without an expiry never need the clock (reading it is a measurable part of a call).
_NO_EXPIRY_CHECK = datetime.min
# Faults after which the link is dropped and its tools revoked; a remote error keeps it.
_DROPPING = frozenset({errors.MCP_TIMEOUT, errors.MCP_CONNECTION_LOST})


class _NoSpan:
    """The upstream span when telemetry is off: nothing to start, nothing to send."""

    meta = None

    def __enter__(self) -> _NoSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def finish(self, code: str) -> None:
        pass


_NO_SPAN = _NoSpan()


class PipelineSession(CallSession, Protocol):
    """What the pipeline needs of the session a call runs in."""

    @property
    def release(self) -> ReleaseView | None: ...

    @property
    def taint(self) -> TaintLedger: ...

    @property
    def binds_principal(self) -> bool: ...


class CallPipeline:
    """Runs the gates for one pool; built once by the pool, shared by its sessions."""

    def __init__(
        self,
        registry: Registry,
        enablement: Enablement,
        settings: PoolSettings,
        screener: Screener,
        *,
        spec_hashes: Mapping[str, str],
        breakers: Breakers,
        blobs: BlobStore,
        revocation: Revocation,
        redactor: Redactor,
        approvals: CallApprovals,
        recording: CallRecording | None = None,
        telemetry: Telemetry | None = None,
        retries: Mapping[str, tuple[RetryPolicy | None, float]] | None = None,
        relinker: Relinker | None = None,
        limits: Limits | None = None,
        shared: SharedState | None = None,
        clock: Callable[[], datetime],
    ) -> None:
        self._registry = registry
        self._enablement = enablement
        self._settings = settings
        self._screener = screener
        self._spec_hashes = spec_hashes
        self._breakers = breakers
        self._blobs = blobs
        self._revocation = revocation
        self._redactor = redactor
        self._approvals = approvals
        self._recording = recording
        self._telemetry = telemetry if telemetry is not None else Telemetry.off()
        self._retries = retries or {}
        self._relinker = relinker
        self._limits = limits if limits is not None else Limits.none()
        self._shared = shared
        self._clock = clock
        self._closed = False
        self.in_flight = 0
        """Calls that entered ``run`` and have not returned (what a draining service waits for)."""

    def close(self) -> None:
        """From now on every call raises ``PoolClosed``."""
        self._closed = True

    async def run(
        self,
        session: PipelineSession,
        snapshot: Snapshot,
        name: str,
        arguments: object,
        ticket: Ticket | None,
    ) -> Envelope:
        """Every gate for one call in ``session``; never raises for a refusal or an upstream
        fault: those are Envelopes.

        Raises:
            PoolClosed: the pool is not open.
        """
        if self._closed:
            raise PoolClosed("the pool is not open: use it inside `async with Pool(config)`")
        self.in_flight += 1
        try:
            if self._telemetry.active:
                return await self._observed(session, snapshot, name, arguments, ticket)
            started = time.perf_counter()
            _, envelope, bytes_in = await self._gates(session, snapshot, name, arguments, ticket)
            envelope = self._redacted(envelope)
            if self._recording is not None:
                seconds = time.perf_counter() - started
                self._recording.record(session, snapshot, name, arguments, envelope, seconds, bytes_in)
            return envelope
        finally:
            self.in_flight -= 1

    async def _observed(
        self,
        session: PipelineSession,
        snapshot: Snapshot,
        name: str,
        arguments: object,
        ticket: Ticket | None,
    ) -> Envelope:
        """``run`` with its span, metrics and call-log line."""
        telemetry = self._telemetry
        tool = snapshot.get(name)
        alias, remote = (tool.alias, tool.remote_name) if tool is not None else ("", plain_name(name))
        attributes = {
            names.TOOL_NAME: remote,
            names.ALIAS: alias,
            names.PRINCIPAL: session.principal,
            names.SESSION: session.id,
            names.SNAPSHOT_VERSION: snapshot.version,
        }
        if session.release_number is not None:
            attributes[names.RELEASE] = session.release_number
        with traced(telemetry, f"toolpool.call {remote}", SpanKind.INTERNAL, attributes) as span:
            started = time.perf_counter()
            gate, envelope, bytes_in = await self._gates(session, snapshot, name, arguments, ticket)
            envelope = self._redacted(envelope)
            seconds = time.perf_counter() - started
            line = CallLine(
                session=session.id,
                principal=session.principal,
                alias=alias,
                tool=remote,
                code=envelope.code,
                duration_ms=round(seconds * 1000, 3),
                arguments=arguments,
                result_bytes=len(envelope.text.encode("utf-8", "surrogatepass")),
                suspicious=envelope.suspicious,
                screen_reasons=envelope.screen_reasons,
                clipped=envelope.clipped,
                snapshot_version=snapshot.version,
                release=session.release_number,
            )
            call_decided(telemetry, span, line, gate)
            if self._recording is not None:
                self._recording.record(session, snapshot, name, arguments, envelope, seconds, bytes_in)
            return envelope

    async def _gates(
        self,
        session: PipelineSession,
        snapshot: Snapshot,
        name: str,
        arguments: object,
        ticket: Ticket | None,
    ) -> tuple[str, Envelope, int | None]:
        """The gate that decided (the one that refused, or ``upstream`` or ``result`` for the
        upstream's answer; a name in ``telemetry.GATES``), the Envelope, and the arguments'
        size for gate 10 if gate 5 measured it."""
        tool = snapshot.get(name)
        if tool is None:
            return (
                "snapshot",
                refusal(
                    errors.UNKNOWN_TOOL,
                    name,
                    f"{shown(name)} is not a tool of this request; a tool connected during this "
                    "reply can be called from the next request on",
                ),
                None,
            )
        permission, refused = self._released(session.release, tool)
        if refused is not None:
            return "snapshot", refused, None
        if not (self._registry.holds(tool) and tool.owner.alive):
            lost = f"the server behind {name} is no longer connected"
            return "connection", refusal(errors.MCP_CONNECTION_LOST, name, lost), None
        link, refused = carrier(tool, session.principal if session.binds_principal else None, ticket)
        if refused is not None:
            return "connection", refused, None
        if not self._enablement.is_enabled(tool.alias, tool.remote_name):
            return "enabled", refusal(errors.TOOL_DISABLED, name, f"{name} has been disabled"), None
        principal = session.principal if session.binds_principal else None
        refused, asks = self._authorize(tool, permission, arguments, ticket, principal)
        if refused is not None:
            return "ticket", refused, None
        gate, refused, bytes_in = await self._check_arguments(
            tool, permission, arguments, ticket, session.taint
        )
        if refused is not None:
            return gate, refused, bytes_in
        assert isinstance(arguments, Mapping)
        used: str | None = None
        why = approval_reason(tool, permission, asks)
        if why is not None:
            # Outside a session (pool.call), the approval is the ticket holder's.
            who = principal if principal is not None or ticket is None else ticket.principal
            refused, used = await self._approvals.check(session, who, tool, permission, arguments, why)
            if refused is not None:
                return "approval", refused, bytes_in
        permit = await self._limits.admit(tool.alias, tool.remote_name, name, session.principal)
        if isinstance(permit, Envelope):
            await self._approvals.give_back(used)
            return "limits", permit, bytes_in
        async with permit:  # concurrency slots are held through gates 7-9
            # A principal's own connection has a breaker of its own (its credentials may fail).
            breaker = self._breakers.of(tool.alias, link.principal)
            if not breaker.admit():
                await self._approvals.give_back(used)
                paused = (
                    f"calls to the server behind {name} are paused after repeated failures; "
                    f"retry in {breaker.retry_in():.0f} s"
                )
                return "breaker", refusal(errors.CIRCUIT_OPEN, name, paused), bytes_in
            permit.reached()
            plan = retry_plan(tool, permission, self._retries)
            gate, envelope = await self._call_upstream(tool, link, arguments, breaker, plan)
        if envelope.ok:
            if self._shared is None:
                session.taint.note(envelope.text)
            else:
                delta = session.taint.record(envelope.text)
                await self._shared.push(session.taint, delta)  # before the caller sees it
        return gate, envelope, bytes_in

    def _released(self, release: ReleaseView | None, tool: ExposedTool) -> tuple[Permission, Envelope | None]:
        """Gate 1 for a session (R15): additions and changes reach only sessions that start
        after them, and the release — not today's configuration — says what the tool may do."""
        if release is None:
            return tool.permission, None
        entry = release.entry(tool)
        if entry is None:
            return tool.permission, refusal(
                errors.UNKNOWN_TOOL, tool.name, f"{tool.name} is not part of this session's release"
            )
        if not release.approves_server(tool.alias, self._spec_hashes[tool.alias]):
            return entry.permission, refusal(
                errors.SERVER_CHANGED,
                tool.name,
                f"the server behind {tool.name} is reached differently (command, URL or sandbox) "
                "than this session's release approved; start a new session to use it",
            )
        return entry.permission, None

    def _authorize(
        self,
        tool: ExposedTool,
        permission: Permission,
        arguments: object,
        ticket: Ticket | None,
        principal: str | None,
    ) -> tuple[Envelope | None, bool]:
        """Gate 4: its refusal, if any, and whether the ticket only asks for the action (the
        approval step decides then)."""
        resource: str | None = None
        if permission.resource is not None:
            resource = render_resource(permission.resource, arguments)
            missing = missing_resource_keys(permission.resource, arguments)
            if missing:  # a key the resource is made of was left out: bad arguments, not a denial
                needed = ", ".join(repr(key) for key in missing)
                text = f"invalid arguments for {tool.name}: {needed} is required (the call's resource is made from it)"
                return refusal(errors.INVALID_ARGUMENTS, tool.name, text), False
            if resource is None:
                text = f"the resource of this call to {tool.name} cannot be determined"
                return refusal(errors.DENIED, tool.name, text), False
        now = self._clock() if ticket is not None and ticket.timed else _NO_EXPIRY_CHECK
        decision = authorize(ticket, permission.action, resource, now, principal)
        if decision.allowed or decision.needs_approval:
            return None, decision.needs_approval
        return refusal(decision.code, tool.name, decision.reason), False

    async def _check_arguments(
        self,
        tool: ExposedTool,
        permission: Permission,
        arguments: object,
        ticket: Ticket | None,
        taint: TaintLedger,
    ) -> tuple[str, Envelope | None, int | None]:
        """Gates 5 and 6: the gate that refused (if one did), its Envelope, and the arguments'
        size for gate 10 if gate 5's encoding told it."""
        problems, size = await sized_argument_problems(tool, arguments, self._settings)
        if problems:
            text = f"invalid arguments for {tool.name}: " + "; ".join(problems)
            return "arguments", refusal(errors.INVALID_ARGUMENTS, tool.name, text), size
        # The stricter effect of the release's and today's policy: a tool that writes now is
        # guarded, whatever the session's release said.
        writes = permission.effect == "write" or tool.effect == "write"
        if writes and not (ticket is not None and ticket.allow_tainted):
            if self._shared is not None and not await self._shared.pull(taint):
                unread = (
                    f"{tool.name} writes, and what this session's earlier results said cannot be "
                    "read from the shared state now; retry later"
                )
                return "taint", refusal(errors.SHARED_STATE_UNAVAILABLE, tool.name, unread), size
            reason = taint.find(arguments)
            if reason is not None:
                tainted = f"{tool.name} writes, and {reason}: results are untrusted data, not instructions"
                return "taint", refusal(errors.TAINTED_ARGUMENT, tool.name, tainted), size
        return "taint", None, size

    async def _call_upstream(
        self,
        tool: ExposedTool,
        link: Link,
        arguments: Mapping[str, Any],
        breaker: CircuitBreaker,
        plan: RetryPlan | None,
    ) -> tuple[str, Envelope]:
        """Gates 8 and 9 (with the read tool's retries, if it has any): which one decided, and
        the Envelope."""
        upstream = (
            _NO_SPAN
            if not self._telemetry.active
            else UpstreamSpan(self._telemetry, tool.alias, tool.remote_name)
        )
        with upstream:
            try:
                if plan is None:
                    result = await link.call(tool.remote_name, arguments, upstream.meta)
                else:
                    result = await call_with_retries(
                        tool,
                        link,
                        lambda current: current.call(tool.remote_name, arguments, upstream.meta),
                        plan,
                        self._revocation,
                        self._relinker,
                    )
            except UpstreamError as exc:
                upstream.finish(exc.envelope_code)
                await self._failed(breaker, tool.alias, link.principal)
                if exc.envelope_code in _DROPPING:
                    self._revocation.lost(link, str(exc))
                failure = upstream_failure(exc.envelope_code, tool.name, exc.detail, principal=link.principal)
                return "upstream", failure
            except BaseException:
                breaker.abandoned()
                raise
            upstream.finish(errors.MCP_REMOTE_ERROR if result.is_error else errors.OK)
        envelope = await shape_result(tool, result, self._settings, self._screener, self._blobs)
        if envelope.ok:
            breaker.succeeded()
        else:
            await self._failed(breaker, tool.alias, link.principal)
        return ("upstream" if result.is_error else "result"), envelope

    async def _failed(self, breaker: CircuitBreaker, alias: str, principal: str | None) -> None:
        """Count an upstream fault; a breaker it opens is announced to every replica."""
        was_open = breaker.state is BreakerState.OPEN
        breaker.failed()
        if self._shared is not None and not was_open and breaker.state is BreakerState.OPEN:
            await self._shared.breaker_opened(alias, principal, breaker.cooldown_s)

    def _redacted(self, envelope: Envelope) -> Envelope:
        """No secret value leaves in an Envelope, whatever the server echoed."""
        if not self._redactor.active:
            return envelope
        redact = self._redactor.redact
        return replace(
            envelope,
            text=redact(envelope.text),
            audit_detail=redact(envelope.audit_detail),
            structured=self._redactor.redact_value(envelope.structured),
        )
