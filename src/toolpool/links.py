"""Links: how the pipeline reaches an admitted alias, one per lifecycle.

A ``PersistentLink`` wraps one long-lived ``Connection``. A ``PerCallLink`` opens a fresh
session for every call, as some gateways do, under the same rules: the fresh session must
publish exactly the definitions that were admitted, and a timeout or a lost session revokes
the alias. Either link reports a dropping fault through ``on_fault`` before raising it, so
the tools are revoked before the caller sees the Envelope.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mcp_types

from toolpool.config import PoolSettings, ServerSpec
from toolpool.errors import MCP_REMOTE_ERROR, UpstreamConnectionLost, UpstreamError
from toolpool.upstream import Connection, Era, HttpTarget, ListingTooLarge, StdioLaunch, open_session
from toolpool.vetting import ExposedTool, PublishedTool

__all__ = ["FaultHandler", "PerCallLink", "PersistentLink", "definitions_of"]

FaultHandler = Callable[[Any, UpstreamError], None]


def definitions_of(published: list[PublishedTool]) -> dict[str, str]:
    return {tool.name: tool.definition_hash() for tool in published}


class PersistentLink:
    """An alias reached through one long-lived connection."""

    def __init__(self, connection: Connection, spec: ServerSpec, on_fault: FaultHandler) -> None:
        self.alias = spec.alias
        self.connection = connection
        self._timeout = spec.call_timeout_s
        self._on_fault = on_fault

    @property
    def alive(self) -> bool:
        return self.connection.alive

    async def call(self, tool: ExposedTool, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
        try:
            if not self.connection.alive:
                raise UpstreamConnectionLost(self.alias, "the connection is gone")
            return await self.connection.session.call_tool(tool.remote_name, arguments, self._timeout)
        except UpstreamError as exc:
            if exc.envelope_code != MCP_REMOTE_ERROR:  # timeouts and lost links drop it
                self._on_fault(self, exc)
            raise

    def drop(self, reason: str) -> None:
        """Stop using the connection at once; its owner task then closes it."""
        self.connection.mark_lost(reason)

    async def aclose(self) -> None:
        await self.connection.aclose()


class PerCallLink:
    """An alias reached through a fresh session per call (``lifecycle = "per_call"``)."""

    def __init__(
        self,
        spec: ServerSpec,
        target: StdioLaunch | HttpTarget,
        era: Era | None,
        definitions: Mapping[str, str],
        settings: PoolSettings,
        on_fault: FaultHandler,
        clean: Callable[[list[PublishedTool]], list[PublishedTool]] = list,
    ) -> None:
        self.alias = spec.alias
        self._clean = clean
        self.era = era
        self._spec = spec
        self._target = target
        self._definitions = dict(definitions)
        self._settings = settings
        self._on_fault = on_fault
        self._revoked = False

    @property
    def alive(self) -> bool:
        return not self._revoked

    async def call(self, tool: ExposedTool, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
        try:
            return await self._call_fresh(tool, arguments)
        except UpstreamError as exc:
            if exc.envelope_code != MCP_REMOTE_ERROR:  # timeouts and lost links drop it
                self._on_fault(self, exc)
            raise

    async def _call_fresh(self, tool: ExposedTool, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
        spec = self._spec
        async with open_session(self.alias, self._target, self.era, spec.connect_timeout_s) as session:
            try:
                published = await session.list_tools(
                    spec.call_timeout_s, self._settings.max_list_pages, self._settings.max_tools_per_server
                )
            except ListingTooLarge as exc:
                raise UpstreamConnectionLost(
                    self.alias, "the server's tool list changed", detail=str(exc)
                ) from exc
            # Compared as admitted: with every secret value already redacted.
            if definitions_of(self._clean(published)) != self._definitions:
                raise UpstreamConnectionLost(self.alias, "the server's tools changed since it was admitted")
            return await session.call_tool(tool.remote_name, arguments, spec.call_timeout_s)

    def drop(self, reason: str) -> None:
        self._revoked = True

    async def aclose(self) -> None:
        self._revoked = True
