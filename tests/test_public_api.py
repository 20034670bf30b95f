"""The facade: exactly the names DESIGN.md promises, and nothing private by accident."""

from __future__ import annotations

import inspect

import toolpool
from toolpool import Pool


def test_the_facade_exports_exactly_its_public_names() -> None:
    assert sorted(toolpool.__all__) == sorted(
        [
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
    )
    assert all(hasattr(toolpool, name) for name in toolpool.__all__)


def test_r1_connect_accepts_an_alias_and_nothing_else() -> None:
    parameters = list(inspect.signature(Pool.connect).parameters)
    assert parameters == ["self", "alias"]


def test_exceptions_split_blame_three_ways() -> None:
    assert issubclass(toolpool.ConfigError, toolpool.UsageError)
    assert issubclass(toolpool.UnknownAlias, toolpool.UsageError)
    assert issubclass(toolpool.ConnectionRefused, toolpool.PolicyRefusal)
    assert issubclass(toolpool.UpstreamTimeout, toolpool.UpstreamError)
    assert not issubclass(toolpool.UpstreamError, toolpool.PolicyRefusal | toolpool.UsageError)
