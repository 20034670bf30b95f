"""toolpool: a guarded, dynamic pool of MCP tools for AI agents.

from toolpool import Pool, load_config, Ticket

config = load_config("toolpool.toml")
async with Pool(config) as pool:
    await pool.connect("demo_alpha")
    snap = pool.snapshot()
    env = await pool.call(snap, "mcp__demo_alpha__lookup", {"key": "k1"},
                          ticket=Ticket.allow("demo.*"))
"""

from toolpool._version import __version__ as __version__
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
