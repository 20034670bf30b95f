"""Registry and Snapshot: immutable views, O(1) takes, whole-connection changes by identity (R11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import READ, server_table, tool_def, write_config
from toolpool import ExposedTool
from toolpool.registry import Registry
from toolpool.upstream import PublishedTool
from toolpool.vetting import PassingScreener, vet


def _tools(tmp_path: Path, owner: object, *names: str, alias: str = "s") -> tuple[ExposedTool, ...]:
    policy = {name: {"action": f"t.{name}", **READ} for name in names}
    config = write_config(tmp_path, server_table(alias, policy, transport="stdio", command="x"))
    published = [
        PublishedTool(name=n, description="", input_schema=tool_def(n)["inputSchema"]) for n in names
    ]
    return vet(config.servers[alias], published, config.pool, PassingScreener(), owner).exposed


def test_a_snapshot_is_immutable_and_survives_later_changes(tmp_path: Path) -> None:
    registry, alpha, beta = Registry(), object(), object()
    registry.admit(alpha, _tools(tmp_path, alpha, "lookup", "echo"))
    before = registry.snapshot()
    registry.admit(beta, _tools(tmp_path, beta, "lookup", alias="b"))
    assert before.names == ("mcp__s__echo", "mcp__s__lookup")
    assert registry.snapshot().names == ("mcp__b__lookup", "mcp__s__echo", "mcp__s__lookup")
    assert registry.snapshot().version > before.version
    with pytest.raises(AttributeError):
        before.version = 99  # type: ignore[misc]


def test_taking_a_snapshot_returns_the_same_object_until_something_changes(tmp_path: Path) -> None:
    registry, owner = Registry(), object()
    registry.admit(owner, _tools(tmp_path, owner, *(f"t{i}" for i in range(50))))
    assert registry.snapshot() is registry.snapshot()


def test_r11_revoking_a_connection_removes_all_its_tools_and_none_of_another(tmp_path: Path) -> None:
    registry, alpha, beta = Registry(), object(), object()
    registry.admit(alpha, _tools(tmp_path, alpha, "lookup", "echo", alias="alpha"))
    registry.admit(beta, _tools(tmp_path, beta, "lookup", alias="beta"))
    removed = registry.revoke(alpha)
    assert {tool.name for tool in removed} == {"mcp__alpha__lookup", "mcp__alpha__echo"}
    assert registry.snapshot().names == ("mcp__beta__lookup",)


def test_r11_a_stale_revocation_never_removes_a_tool_re_registered_by_a_new_connection(
    tmp_path: Path,
) -> None:
    registry, old, new = Registry(), object(), object()
    registry.admit(old, _tools(tmp_path, old, "lookup"))
    registry.revoke(old)
    replacement = _tools(tmp_path, new, "lookup")
    registry.admit(new, replacement)
    assert registry.revoke(old) == ()  # the old connection's watchdog reports late
    assert registry.snapshot().get("mcp__s__lookup") is replacement[0]
    assert registry.holds(replacement[0])


def test_holding_is_by_identity_not_by_name(tmp_path: Path) -> None:
    registry, old, new = Registry(), object(), object()
    stale = _tools(tmp_path, old, "lookup")
    registry.admit(old, stale)
    registry.revoke(old)
    registry.admit(new, _tools(tmp_path, new, "lookup"))
    assert not registry.holds(stale[0])


def test_admission_is_all_or_nothing(tmp_path: Path) -> None:
    registry, alpha, intruder = Registry(), object(), object()
    registry.admit(alpha, _tools(tmp_path, alpha, "lookup"))
    clash = _tools(tmp_path, intruder, "echo") + _tools(tmp_path, intruder, "lookup")
    with pytest.raises(ValueError, match="already registered"):
        registry.admit(intruder, clash)
    assert registry.snapshot().names == ("mcp__s__lookup",)
    with pytest.raises(ValueError, match="another connection"):
        registry.admit(object(), _tools(tmp_path, intruder, "other"))
