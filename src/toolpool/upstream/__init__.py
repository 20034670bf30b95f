"""Everything that talks to a real MCP server: transports, sessions, connections, faults."""

from toolpool.upstream.connection import Connection, ConnectionState
from toolpool.upstream.faults import upstream_fault
from toolpool.upstream.sandbox import Bwrap, Limits, bwrap_problem, require_sandbox
from toolpool.upstream.session import Era, HttpTarget, ListingTooLarge, UpstreamSession, open_session
from toolpool.upstream.ssrf import IPAddress, Resolver, SystemResolver
from toolpool.upstream.stdio import StdioLaunch, StdioTransport

__all__ = [
    "Bwrap",
    "Connection",
    "ConnectionState",
    "Era",
    "HttpTarget",
    "IPAddress",
    "Limits",
    "ListingTooLarge",
    "Resolver",
    "StdioLaunch",
    "StdioTransport",
    "SystemResolver",
    "UpstreamSession",
    "bwrap_problem",
    "open_session",
    "require_sandbox",
    "upstream_fault",
]
