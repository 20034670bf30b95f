"""Everything that talks to a real MCP server: the wire model of a published tool, transports,
sessions, connections, links, faults.

Names are imported from their modules when first used (``toolpool._lazy``).
"""

from typing import TYPE_CHECKING

from toolpool._lazy import lazy_names

if TYPE_CHECKING:
    from toolpool.upstream._links import Link, PerCallLink, PersistentLink, definitions_of, require_admitted
    from toolpool.upstream._principal_links import PrincipalLinks, Report, Targets
    from toolpool.upstream._published import PublishedTool
    from toolpool.upstream.connection import Connection, ConnectionState
    from toolpool.upstream.faults import upstream_fault
    from toolpool.upstream.sandbox import Bwrap, Limits, bwrap_problem, require_sandbox
    from toolpool.upstream.session import Era, HttpTarget, ListingTooLarge, UpstreamSession, open_session
    from toolpool.upstream.ssrf import IPAddress, Resolver, SystemResolver
    from toolpool.upstream.stdio import StdioLaunch, StdioTransport
    from toolpool.upstream.tls import ClientTls

_HOMES: dict[str, tuple[str, ...]] = {
    "toolpool.upstream._links": (
        "Link",
        "PerCallLink",
        "PersistentLink",
        "definitions_of",
        "require_admitted",
    ),
    "toolpool.upstream._principal_links": ("PrincipalLinks", "Report", "Targets"),
    "toolpool.upstream._published": ("PublishedTool",),
    "toolpool.upstream.connection": ("Connection", "ConnectionState"),
    "toolpool.upstream.faults": ("upstream_fault",),
    "toolpool.upstream.sandbox": ("Bwrap", "Limits", "bwrap_problem", "require_sandbox"),
    "toolpool.upstream.session": ("Era", "HttpTarget", "ListingTooLarge", "UpstreamSession", "open_session"),
    "toolpool.upstream.ssrf": ("IPAddress", "Resolver", "SystemResolver"),
    "toolpool.upstream.stdio": ("StdioLaunch", "StdioTransport"),
    "toolpool.upstream.tls": ("ClientTls",),
}

__all__ = [
    "Bwrap",
    "ClientTls",
    "Connection",
    "ConnectionState",
    "Era",
    "HttpTarget",
    "IPAddress",
    "Limits",
    "Link",
    "ListingTooLarge",
    "PerCallLink",
    "PersistentLink",
    "PrincipalLinks",
    "PublishedTool",
    "Report",
    "Resolver",
    "StdioLaunch",
    "StdioTransport",
    "SystemResolver",
    "Targets",
    "UpstreamSession",
    "bwrap_problem",
    "definitions_of",
    "open_session",
    "require_admitted",
    "require_sandbox",
    "upstream_fault",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
