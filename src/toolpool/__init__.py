"""toolpool: a guarded, dynamic pool of MCP tools for AI agents.

from toolpool import Pool, load_config, Ticket

config = load_config("toolpool.toml")
async with Pool(config) as pool:
    await pool.connect("demo_alpha")
    snap = pool.snapshot()
    env = await pool.call(snap, "mcp__demo_alpha__lookup", {"key": "k1"},
                          ticket=Ticket.allow("demo.*"))

Importing the package is cheap: each public name is imported from its module when first used
(PEP 562), so ``toolpool tools`` and the other commands that never start a pool do not pay for
the MCP SDK, the pool and the service (seconds on a busy machine).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolpool._lazy import lazy_names
from toolpool._version import __version__ as __version__

if TYPE_CHECKING:
    from toolpool.calls import BreakerState, Envelope, ResultBlob, Session
    from toolpool.config import (
        Config,
        PoolSettings,
        SecretRef,
        ServerSpec,
        ToolPolicy,
        WriteApproval,
        load_config,
    )
    from toolpool.enablement import Enablement
    from toolpool.errors import (
        AddressBlocked,
        ConfigError,
        ConnectionRefused,
        MissingSecret,
        PolicyRefusal,
        PoolClosed,
        SandboxUnavailable,
        ToolpoolError,
        UnknownAlias,
        UpstreamConnectionLost,
        UpstreamError,
        UpstreamProtocolError,
        UpstreamRemoteError,
        UpstreamTimeout,
        UpstreamUnavailable,
        UsageError,
    )
    from toolpool.events import PoolEvent
    from toolpool.pool import Pool
    from toolpool.registry import Snapshot
    from toolpool.store import ConfigEnablement
    from toolpool.tickets import Decision, Ticket, authorize
    from toolpool.upstream import PublishedTool
    from toolpool.vetting import ExposedTool, Screener, Verdict

# Where each public name lives: the module imported the first time the name is asked for.
_HOMES: dict[str, tuple[str, ...]] = {
    "toolpool.calls": ("BreakerState", "Envelope", "ResultBlob", "Session"),
    "toolpool.config": (
        "Config",
        "PoolSettings",
        "SecretRef",
        "ServerSpec",
        "ToolPolicy",
        "WriteApproval",
        "load_config",
    ),
    "toolpool.enablement": ("Enablement",),
    "toolpool.errors": (
        "AddressBlocked",
        "ConfigError",
        "ConnectionRefused",
        "MissingSecret",
        "PolicyRefusal",
        "PoolClosed",
        "SandboxUnavailable",
        "ToolpoolError",
        "UnknownAlias",
        "UpstreamConnectionLost",
        "UpstreamError",
        "UpstreamProtocolError",
        "UpstreamRemoteError",
        "UpstreamTimeout",
        "UpstreamUnavailable",
        "UsageError",
    ),
    "toolpool.events": ("PoolEvent",),
    "toolpool.pool": ("Pool",),
    "toolpool.registry": ("Snapshot",),
    "toolpool.store": ("ConfigEnablement",),
    "toolpool.tickets": ("Decision", "Ticket", "authorize"),
    "toolpool.upstream": ("PublishedTool",),
    "toolpool.vetting": ("ExposedTool", "Screener", "Verdict"),
}

__all__ = [
    "AddressBlocked",
    "BreakerState",
    "Config",
    "ConfigEnablement",
    "ConfigError",
    "ConnectionRefused",
    "Decision",
    "Enablement",
    "Envelope",
    "ExposedTool",
    "MissingSecret",
    "PolicyRefusal",
    "Pool",
    "PoolClosed",
    "PoolEvent",
    "PoolSettings",
    "PublishedTool",
    "ResultBlob",
    "SandboxUnavailable",
    "Screener",
    "SecretRef",
    "ServerSpec",
    "Session",
    "Snapshot",
    "Ticket",
    "ToolPolicy",
    "ToolpoolError",
    "UnknownAlias",
    "UpstreamConnectionLost",
    "UpstreamError",
    "UpstreamProtocolError",
    "UpstreamRemoteError",
    "UpstreamTimeout",
    "UpstreamUnavailable",
    "UsageError",
    "Verdict",
    "WriteApproval",
    "authorize",
    "load_config",
]


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
