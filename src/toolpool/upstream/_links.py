"""Links: how an admitted alias is reached, one kind per lifecycle, behind one ``Link`` protocol.

A ``PersistentLink`` wraps one long-lived ``Connection``. A ``PerCallLink`` opens a fresh
session for every call, as some gateways do, under the same rules: the fresh session must
publish exactly the definitions that were admitted. A link reports what went wrong by raising
``UpstreamError``; deciding what a fault means for the tools (a timeout or a lost link revokes
them) belongs to whoever called it, the call pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import mcp_types

from toolpool.config import PoolSettings, ServerSpec
from toolpool.errors import UpstreamConnectionLost
from toolpool.upstream._published import PublishedTool
from toolpool.upstream.connection import Connection
from toolpool.upstream.session import Era, HttpTarget, ListingTooLarge, UpstreamSession, open_session
from toolpool.upstream.stdio import StdioLaunch

__all__ = ["Link", "PerCallLink", "PersistentLink", "definitions_of", "require_admitted"]


class Link(Protocol):
    """One admitted alias's way to its server; the owner of the tools admitted through it."""

    @property
    def alias(self) -> str: ...

    @property
    def alive(self) -> bool: ...

    @property
    def per_call(self) -> bool:
        """Whether each call opens a fresh session (so a failed call leaves the link usable)."""
        ...

    @property
    def principal(self) -> str | None:
        """The one principal whose connection this is, or None for a link everyone shares."""
        ...

    async def call(
        self, remote_name: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> mcp_types.CallToolResult:
        """Call one tool; ``meta`` goes as the request's ``params._meta`` (trace context).

        Raises UpstreamError (its ``envelope_code`` says which).
        """
        ...

    def for_principal(self, principal: str | None) -> Link:
        """The link that carries ``principal``'s calls (None: a call that names nobody): this
        one, except for an alias that keeps a connection per principal (``PrincipalLinks``).

        Raises:
            CredentialMissing: that principal has no value of a per-principal secret.
        """
        ...

    def drop(self, reason: str) -> None:
        """Stop using the link at once (its owner task, if any, then closes it)."""
        ...

    async def aclose(self) -> None: ...


def definitions_of(published: list[PublishedTool]) -> dict[str, str]:
    return {tool.name: tool.definition_hash() for tool in published}


async def require_admitted(
    session: UpstreamSession,
    spec: ServerSpec,
    settings: PoolSettings,
    definitions: Mapping[str, str],
    clean: Callable[[list[PublishedTool]], list[PublishedTool]],
) -> None:
    """A session opened after admission must publish exactly the admitted definitions (R2,
    R7), after ``clean`` (every secret value redacted, as the admitted ones were).

    Raises:
        UpstreamConnectionLost: it does not (its tool list changed, or went past the caps).
        UpstreamError: the listing failed.
    """
    try:
        published = await session.list_tools(
            spec.call_timeout_s, settings.max_list_pages, settings.max_tools_per_server
        )
    except ListingTooLarge as exc:
        raise UpstreamConnectionLost(spec.alias, "the server's tool list changed", detail=str(exc)) from exc
    if definitions_of(clean(published)) != definitions:
        raise UpstreamConnectionLost(spec.alias, "the server's tools changed since it was admitted")


class PersistentLink:
    """An alias reached through one long-lived connection."""

    def __init__(self, connection: Connection, spec: ServerSpec) -> None:
        self.alias = spec.alias
        self.connection = connection
        self._timeout = spec.call_timeout_s

    @property
    def alive(self) -> bool:
        return self.connection.alive

    @property
    def per_call(self) -> bool:
        return False

    @property
    def principal(self) -> str | None:
        return None

    async def call(
        self, remote_name: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> mcp_types.CallToolResult:
        if not self.connection.alive:
            raise UpstreamConnectionLost(self.alias, "the connection is gone")
        return await self.connection.session.call_tool(remote_name, arguments, self._timeout, meta)

    def for_principal(self, principal: str | None) -> Link:
        return self

    def drop(self, reason: str) -> None:
        self.connection.mark_lost(reason)

    async def aclose(self) -> None:
        await self.connection.aclose()


class PerCallLink:
    """An alias reached through a fresh session per call (``lifecycle = "per_call"``).

    ``clean`` is applied to each fresh listing before it is compared with what was admitted
    (the admitted definitions had every secret value redacted).
    """

    def __init__(
        self,
        spec: ServerSpec,
        target: StdioLaunch | HttpTarget,
        era: Era | None,
        definitions: Mapping[str, str],
        settings: PoolSettings,
        clean: Callable[[list[PublishedTool]], list[PublishedTool]] = list,
    ) -> None:
        self.alias = spec.alias
        self.era = era
        self._spec = spec
        self._target = target
        self._definitions = dict(definitions)
        self._settings = settings
        self._clean = clean
        self._dropped = False

    @property
    def alive(self) -> bool:
        return not self._dropped

    @property
    def per_call(self) -> bool:
        return True

    @property
    def principal(self) -> str | None:
        return None

    async def call(
        self, remote_name: str, arguments: Mapping[str, Any], meta: Mapping[str, Any] | None = None
    ) -> mcp_types.CallToolResult:
        spec = self._spec
        async with open_session(self.alias, self._target, self.era, spec.connect_timeout_s) as session:
            await require_admitted(session, spec, self._settings, self._definitions, self._clean)
            return await session.call_tool(remote_name, arguments, spec.call_timeout_s, meta)

    def for_principal(self, principal: str | None) -> Link:
        return self

    def drop(self, reason: str) -> None:
        self._dropped = True

    async def aclose(self) -> None:
        self._dropped = True
