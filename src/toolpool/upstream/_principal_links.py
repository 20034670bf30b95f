"""An alias whose credentials belong to each principal: one upstream connection per principal.

A server whose env, headers or client certificate use a ``per_principal`` secret is admitted
once, by ``connect`` (with the admission credentials, see ``Admitter``), and its tools are
exposed to whoever the policy and tickets allow. ``PrincipalLinks`` owns those tools. Each
principal who calls one gets a connection of their own, with their own secrets and their own
process or HTTP session:

- opened on that principal's first call, and then it must publish exactly the admitted
  definitions (R2, R7) or it is closed and the call fails (event ``mcp.principal_refused``);
- closed after ``idle_close_s`` without a call (``mcp.principal_closed``, reason ``idle``);
- forgotten when its server goes away (``mcp.principal_closed``, reason ``lost``): the next
  call opens a new one; a principal whose secrets changed also gets a new one;
- closed with the link: ``disconnect`` and pool close (R11, R13).

A call gets there through ``for_principal``, which looks the principal's secrets up (gate 2:
``CredentialMissing`` when there are none) and returns a view bound to that one principal, so
no principal's call can ever ride on another's connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import mcp_types

from toolpool.config import PoolSettings, SecretRef, ServerSpec
from toolpool.errors import (
    MCP_CONNECTION_LOST,
    MCP_TIMEOUT,
    AddressBlocked,
    CredentialMissing,
    UpstreamConnectionLost,
    UpstreamError,
    UpstreamUnavailable,
    UsageError,
)
from toolpool.upstream._links import Link, PerCallLink, PersistentLink, require_admitted
from toolpool.upstream._published import PublishedTool
from toolpool.upstream.connection import Connection
from toolpool.upstream.session import Era, HttpTarget
from toolpool.upstream.stdio import StdioLaunch

__all__ = ["PrincipalLinks", "Report", "Targets"]

Target = StdioLaunch | HttpTarget
# A principal's target, with that principal's secrets resolved; raises CredentialMissing.
Targets = Callable[[str], Target]
# (event kind, alias, detail): how the links tell the pool's event outlet what happened.
Report = Callable[[str, str, Mapping[str, object]], None]
_DROPPING = frozenset({MCP_TIMEOUT, MCP_CONNECTION_LOST})


def _ignore(kind: str, alias: str, detail: Mapping[str, object]) -> None:
    pass


@dataclass(eq=False)
class _Entry:
    """One principal's open connection, what it was opened with, and how it is being used."""

    link: Link
    target: Target
    last_used: float
    busy: int = 0


class PrincipalLinks:
    """The owner of a per-principal alias's tools; see the module docstring."""

    def __init__(
        self,
        spec: ServerSpec,
        targets: Targets,
        era: Era | None,
        definitions: Mapping[str, str],
        settings: PoolSettings,
        tasks: anyio.abc.TaskGroup,
        *,
        clean: Callable[[list[PublishedTool]], list[PublishedTool]] = list,
        report: Report = _ignore,
    ) -> None:
        self.alias = spec.alias
        self._spec = spec
        self._targets = targets
        self._era = era
        self._definitions = dict(definitions)
        self._settings = settings
        self._tasks = tasks
        self._clean = clean
        self._report = report
        self._entries: dict[str, _Entry] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._closed = False
        self._reaping = False
        self._wake = anyio.Event()

    @property
    def alive(self) -> bool:
        return not self._closed

    @property
    def per_call(self) -> bool:
        return False

    @property
    def principal(self) -> str | None:
        return None  # the alias as a whole; its views are each principal's

    @property
    def principals(self) -> tuple[str, ...]:
        """The principals with an open connection now (for diagnostics)."""
        return tuple(sorted(self._entries))

    def for_principal(self, principal: str | None) -> Link:
        if principal is None:
            raise CredentialMissing(self.alias, _first_per_principal(self._spec), None)
        return _PrincipalView(self, principal, self._targets(principal))

    async def call(
        self, remote_name: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> mcp_types.CallToolResult:
        raise UpstreamConnectionLost(self.alias, "this server is called through each principal's connection")

    def drop(self, reason: str) -> None:
        self._closed = True
        self._wake.set()
        for entry in self._entries.values():
            entry.link.drop(reason)
        self._entries.clear()

    async def aclose(self) -> None:
        """Close every principal's connection (concurrently, shielded); idempotent."""
        self._closed = True
        self._wake.set()
        entries = list(self._entries.values())
        self._entries.clear()
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as closing:
                for entry in entries:
                    closing.start_soon(entry.link.aclose)

    async def _acquire(self, principal: str, target: Target) -> _Entry:
        """``principal``'s open connection, opened now unless one with these very secrets is
        alive. Raises UpstreamError (opening failed, or the tools differ from the admitted)."""
        async with self._locks.setdefault(principal, anyio.Lock()):
            if self._closed:
                raise UpstreamConnectionLost(self.alias, "the server was disconnected")
            entry = self._entries.get(principal)
            if entry is not None and entry.link.alive and entry.target == target:
                return entry
            if entry is not None:  # dead, or opened with secrets since changed or deleted
                self._forget(principal, entry.link, "replaced")
            link = await self._open(principal, target)
            if self._closed:
                await link.aclose()
                raise UpstreamConnectionLost(self.alias, "the server was disconnected")
            entry = self._entries[principal] = _Entry(link, target, anyio.current_time())
            self._report("mcp.principal_connected", self.alias, {"principal": principal})
            if not self._reaping:
                self._reaping = True
                self._tasks.start_soon(self._reap_idle)
            self._wake.set()
            return entry

    async def _open(self, principal: str, target: Target) -> Link:
        spec = self._spec
        if spec.lifecycle == "per_call":
            return PerCallLink(spec, target, self._era, self._definitions, self._settings, self._clean)
        connection = await Connection.open(
            self._tasks,
            spec.alias,
            target,
            self._era,
            connect_timeout=spec.connect_timeout_s,
            health_interval=spec.health_interval_s,
            on_lost=lambda lost, reason: self._lost(principal, lost, reason),
        )
        try:
            await require_admitted(connection.session, spec, self._settings, self._definitions, self._clean)
        except UpstreamConnectionLost as exc:
            await connection.aclose()
            self._report("mcp.principal_refused", self.alias, {"principal": principal, "reason": str(exc)})
            raise
        except BaseException:
            await connection.aclose()
            raise
        return PersistentLink(connection, spec)

    def _lost(self, principal: str, connection: Connection, reason: str) -> None:
        """The watchdog's report (R12): forget the connection; the next call opens anew."""
        entry = self._entries.get(principal)
        if (
            entry is not None
            and isinstance(entry.link, PersistentLink)
            and entry.link.connection is connection
        ):
            self._forget(principal, entry.link, "lost")

    def _forget(self, principal: str, link: Link, reason: str) -> None:
        entry = self._entries.get(principal)
        if entry is None or entry.link is not link:
            return
        del self._entries[principal]
        link.drop(reason)
        self._report("mcp.principal_closed", self.alias, {"principal": principal, "reason": reason})

    async def _reap_idle(self) -> None:
        """Close each connection ``idle_close_s`` after its last call ended."""
        idle = self._spec.idle_close_s
        while not self._closed:
            now = anyio.current_time()
            for principal, entry in list(self._entries.items()):
                if (
                    self._entries.get(principal) is entry
                    and entry.busy == 0
                    and now - entry.last_used >= idle
                ):
                    del self._entries[principal]
                    await entry.link.aclose()
                    self._report(
                        "mcp.principal_closed", self.alias, {"principal": principal, "reason": "idle"}
                    )
            waits = [e.last_used + idle - now for e in self._entries.values() if e.busy == 0]
            self._wake = anyio.Event()
            with anyio.move_on_after(max(min(waits), 0.0) if waits else float("inf")):
                await self._wake.wait()


def _first_per_principal(spec: ServerSpec) -> str:
    for value in (*spec.env.values(), *spec.headers.values(), spec.tls_client_cert, spec.tls_client_key):
        if isinstance(value, SecretRef) and value.per_principal:
            return value.secret
    return "?"


class _PrincipalView:
    """``PrincipalLinks`` bound to one principal and the target made with their secrets."""

    def __init__(self, links: PrincipalLinks, principal: str, target: Target) -> None:
        self.alias = links.alias
        self.principal = principal
        self._links = links
        self._target = target
        self._used: Link | None = None

    @property
    def alive(self) -> bool:
        return self._links.alive

    @property
    def per_call(self) -> bool:
        """A failed call closes only this principal's connection and the next one opens
        another, so (for retries) the view stays usable, as a per-call link does."""
        return True

    async def call(
        self, remote_name: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> mcp_types.CallToolResult:
        """Raises UpstreamError (the SSRF guard's or ``require_tls``'s refusal, and a client
        certificate that cannot be loaded, as ``UpstreamUnavailable``: the call's fault)."""
        try:
            entry = await self._links._acquire(self.principal, self._target)
            self._used = entry.link
            entry.busy += 1
        except (AddressBlocked, UsageError) as exc:
            raise UpstreamUnavailable(self.alias, "could not connect", detail=str(exc)) from None
        try:
            return await entry.link.call(remote_name, arguments, meta)
        except (AddressBlocked, UsageError) as exc:  # a per-call session opens here
            raise UpstreamUnavailable(self.alias, "could not connect", detail=str(exc)) from None
        except UpstreamError as exc:
            if exc.envelope_code in _DROPPING:  # a stuck or broken connection is not reused
                self.drop(str(exc))
            raise
        finally:
            entry.busy -= 1
            entry.last_used = anyio.current_time()
            self._links._wake.set()

    def for_principal(self, principal: str | None) -> Link:
        return self if principal == self.principal else self._links.for_principal(principal)

    def drop(self, reason: str) -> None:
        """This principal's connection failed: close it; the next call opens a new one."""
        if self._used is not None:
            self._links._forget(self.principal, self._used, "lost")

    async def aclose(self) -> None:
        self.drop("closed")
