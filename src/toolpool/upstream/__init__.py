"""Everything that talks to a real MCP server: transports, sessions, connections, faults."""

from toolpool.upstream.connection import Connection, ConnectionState
from toolpool.upstream.faults import upstream_fault
from toolpool.upstream.session import Era, HttpTarget, ListingTooLarge, UpstreamSession, open_session
from toolpool.upstream.stdio import StdioLaunch, StdioTransport

__all__ = [
    "Connection",
    "ConnectionState",
    "Era",
    "HttpTarget",
    "ListingTooLarge",
    "StdioLaunch",
    "StdioTransport",
    "UpstreamSession",
    "open_session",
    "upstream_fault",
]
