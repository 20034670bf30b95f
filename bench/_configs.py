"""Configurations for the benches: demo servers pinned to one era, with exact-match policies.

The demo servers run with this interpreter (``command = "python"``) and the same exact
environment the tests give them, so a bench measures what a user's pool would run.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from toolpool import Config, load_config

__all__ = [
    "ALPHA_TOOLS",
    "CALL_TIMEOUT_S",
    "EXACT_ENV",
    "alpha_server",
    "demo_args",
    "local_name",
    "paged_server",
    "paged_tool_names",
    "sdk_command",
    "write_config",
]

ALPHA_TOOLS = ("lookup", "echo", "process_info")
# Python coerces a C locale by setting LC_CTYPE in its own environment; turning that off keeps
# the child's environment exactly the configured one (as in tests/helpers.py).
EXACT_ENV: Mapping[str, str] = {"PYTHONCOERCECLOCALE": "0"}
# Generous: a bench call that hits it is a failure, not a measurement.
CALL_TIMEOUT_S = 10.0
_CONNECT_TIMEOUT_S = 60.0


def paged_tool_names(count: int) -> tuple[str, ...]:
    """The paged demo's names: ``tool_000`` …, padded to three digits or as many as needed."""
    width = max(3, len(str(count - 1)))
    return tuple(f"tool_{number:0{width}d}" for number in range(count))


def local_name(alias: str, tool: str) -> str:
    return f"mcp__{alias}__{tool}"


def demo_args(kind: str, *extra: str) -> list[str]:
    return ["-m", "toolpool.demo", kind, *extra]


def sdk_command() -> str:
    """What the bare SDK client starts: the interpreter toolpool maps ``python`` to."""
    return sys.executable


def alpha_server(alias: str, era: str) -> str:
    policies = {name: {"action": f"bench.{name}", "effect": "read", "enabled": True} for name in ALPHA_TOOLS}
    return _server_table(alias, demo_args("alpha"), era, policies)


def paged_server(alias: str, tools: int, page_size: int, era: str) -> str:
    args = demo_args("paged", "--tools", str(tools), "--page-size", str(page_size))
    policies = {
        name: {"action": f"bench.{name}", "effect": "read", "enabled": True}
        for name in paged_tool_names(tools)
    }
    return _server_table(alias, args, era, policies)


def write_config(folder: Path, *servers: str, pool: Mapping[str, int] | None = None) -> Config:
    head = ["[pool]"] + [f"{key} = {value}" for key, value in (pool or {}).items()]
    path = folder / "toolpool.toml"
    path.write_text("\n".join(head) + "\n\n" + "\n".join(servers), encoding="utf-8")
    return load_config(path)


def _server_table(
    alias: str, args: Sequence[str], era: str, policies: Mapping[str, Mapping[str, object]]
) -> str:
    env = ", ".join(f"{json.dumps(key)} = {json.dumps(value)}" for key, value in EXACT_ENV.items())
    lines = [
        f"[servers.{alias}]",
        'transport = "stdio"',
        'command = "python"',
        f"args = {json.dumps(list(args))}",
        f"env = {{ {env} }}",
        f"era = {json.dumps(era)}",
        f"call_timeout_s = {CALL_TIMEOUT_S}",
        f"connect_timeout_s = {_CONNECT_TIMEOUT_S}",
    ]
    for name, policy in policies.items():
        lines.append(f'[servers.{alias}.tools."{name}"]')
        lines += [f"{key} = {_toml(value)}" for key, value in policy.items()]
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)
