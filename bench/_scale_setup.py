"""The scale bench's world: a configuration of many servers, and a store holding their tools.

Every server is the paged demo (``python -m toolpool.demo paged --tools K``), named in the
configuration with one table per tool, as a user writes it. The offline parts never start
them: ``toolpool tools``, the store and the admin API only read the configuration and the
store. Their tools are not enabled (a gateway would connect every alias with an enabled
tool); the bench enables them all at once afterwards to time a release of the whole state.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from _configs import EXACT_ENV, demo_args, paged_tool_names
from toolpool.store import ImportedTool

__all__ = ["Timed", "alias_of", "cli", "config_text", "imported_tools"]

CLI_TIMEOUT_S = 900.0  # the slowest run before the fixes took minutes on a busy machine
_HASH = "sha256:" + "0" * 64


@dataclass(frozen=True, slots=True)
class Timed:
    """Wall time and CPU time (of this process, or of a child process) of one step, in s."""

    wall_s: float
    cpu_s: float
    note: str = ""


def alias_of(number: int) -> str:
    return f"s{number:05d}"


def config_text(servers: int, tools_per_server: int, *, enabled: bool = False) -> str:
    env = ", ".join(f"{json.dumps(key)} = {json.dumps(value)}" for key, value in EXACT_ENV.items())
    names = paged_tool_names(tools_per_server)
    lines = ["[pool]", f"max_tools_per_server = {max(tools_per_server, 1)}", ""]
    for number in range(servers):
        alias = alias_of(number)
        args = demo_args("paged", "--tools", str(tools_per_server), "--page-size", "500")
        lines += [
            f"[servers.{alias}]",
            'transport = "stdio"',
            'command = "python"',
            f"args = {json.dumps(args)}",
            f"env = {{ {env} }}",
            'era = "legacy"',
            "connect_timeout_s = 300",
        ]
        for name in names:
            lines += [
                f"[servers.{alias}.tools.{name}]",
                f'action = "scale.{name}"',
                'effect = "read"',
                f"enabled = {'true' if enabled else 'false'}",
            ]
    return "\n".join(lines) + "\n"


def imported_tools(servers: int, tools_per_server: int) -> dict[str, list[ImportedTool]]:
    """What importing every server would store: each tool's definition, as the paged demo
    publishes it (the store does not check definitions against the server)."""
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}
    found: dict[str, list[ImportedTool]] = {}
    for number in range(servers):
        found[alias_of(number)] = [
            ImportedTool(
                name,
                {"name": name, "description": f"Demo tool {name[5:]}", "inputSchema": schema},
                _HASH,
                "pass",
                0.0,
            )
            for name in paged_tool_names(tools_per_server)
        ]
    return found


def cli(config: Path, *args: str, env: Mapping[str, str]) -> tuple[Timed, str]:
    """``toolpool ARGS --config CONFIG`` as a subprocess: its wall and CPU time, and stdout."""
    before = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "toolpool", *args, "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        env=dict(env),
        cwd=config.parent,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"toolpool {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return Timed(wall, _children_cpu() - before), done.stdout


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def lines_of(text: str) -> Sequence[str]:
    return text.splitlines()
