"""Shared test helpers: TOML configs for demo and scripted servers, process inspection, and the
usage ledger summed from call records."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC
from pathlib import Path
from typing import Any

from toolpool import Config, load_config
from toolpool.store import CallRecord, UsageTotal

SCRIPTED = Path(__file__).parent / "servers" / "scripted.py"

READ = {"effect": "read", "enabled": True}

ALPHA_TOOLS = {
    "lookup": {"action": "demo.lookup", "resource": "{key}", **READ},
    "echo": {"action": "demo.echo", **READ},
    "process_info": {"action": "demo.process_info", **READ},
}
BETA_TOOLS = {
    "lookup": {"action": "beta.lookup", **READ},
    "write_note": {
        "action": "beta.write_note",
        "effect": "write",
        "enabled": True,
        "write_approval": {"by": "tests", "reason": "demo notes are harmless"},
    },
}
FAULTY_TOOLS = {name: {"action": f"faulty.{name}", **READ} for name in ("ok", "fail", "hang", "crash")}
STUBBORN_TOOLS = {name: {"action": f"stubborn.{name}", **READ} for name in ("ping", "pids")}
# Python coerces a C locale by setting LC_CTYPE in its own environment; turning that off keeps
# the child's environment exactly the configured one.
EXACT_ENV = {"PYTHONCOERCECLOCALE": "0"}


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def server_table(alias: str, tools: Mapping[str, Mapping[str, Any]], **fields: Any) -> str:
    lines = [f"[servers.{alias}]"]
    lines += [f"{key} = {toml_value(value)}" for key, value in fields.items()]
    for name, policy in tools.items():
        lines.append(f'\n[servers.{alias}.tools."{name}"]')
        lines += [f"{key} = {toml_value(value)}" for key, value in policy.items() if value is not None]
    return "\n".join(lines) + "\n"


def demo_server(
    alias: str, kind: str, tools: Mapping[str, Mapping[str, Any]], *extra: str, **fields: Any
) -> str:
    fields.setdefault("transport", "stdio")
    fields.setdefault("command", "python")
    fields.setdefault("args", ["-m", "toolpool.demo", kind, *extra])
    fields.setdefault("env", EXACT_ENV)
    return server_table(alias, tools, **fields)


def scripted_server(alias: str, spec: Path, tools: Mapping[str, Mapping[str, Any]], **fields: Any) -> str:
    fields.setdefault("era", "legacy")
    return server_table(
        alias,
        tools,
        transport="stdio",
        command="python",
        args=[str(SCRIPTED), str(spec)],
        env=EXACT_ENV,
        **fields,
    )


def write_config(folder: Path, *servers: str, pool: Mapping[str, Any] | None = None) -> Config:
    head = ["[pool]"] + [f"{key} = {toml_value(value)}" for key, value in (pool or {}).items()]
    path = folder / "toolpool.toml"
    path.write_text("\n".join(head) + "\n\n" + "\n".join(servers), encoding="utf-8")
    return load_config(path)


def write_spec(folder: Path, name: str = "spec.json", **spec: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def tool_def(name: str, schema: Mapping[str, Any] | None = None, description: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "description": description or f"tool {name}",
        "inputSchema": dict(schema) if schema is not None else {"type": "object", "properties": {}},
    }


def process_state(pid: int) -> str | None:
    """The kernel's state letter for ``pid`` (``Z`` for a zombie), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


def is_running(pid: int) -> bool:
    return process_state(pid) not in (None, "Z", "X")


def children_of_this_process() -> set[int]:
    """Child processes of the test runner that still exist (running or zombie)."""
    me = os.getpid()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me:
                found.add(int(entry))
    return found


PYTHON = sys.executable


def usage_of_records(records: Sequence[CallRecord], columns: Sequence[str]) -> dict[tuple[str, ...], Any]:
    """What the usage ledger must say of ``records`` per key ``columns`` (as
    ``store.usage.totals`` names them), summed here from the call records themselves:
    key -> (calls, errors, codes, wait_ms rounded to 3 places, bytes_in, bytes_out)."""
    sums: dict[tuple[str, ...], list[Any]] = {}
    for record in records:
        values = {
            "principal": record.principal or "",
            "session_id": record.session_id or "",
            "alias": record.alias,
            "tool": record.tool,
            "day": record.at.astimezone(UTC).date().isoformat(),
        }
        found = sums.setdefault(tuple(values[c] for c in columns), [0, 0, Counter(), 0.0, 0, 0])
        found[0] += 1
        found[1] += record.code != "ok"
        found[2][record.code] += 1
        found[3] += record.duration_ms
        found[4] += record.bytes_in
        found[5] += record.bytes_out
    return {key: (c, e, dict(codes), round(w, 3), i, o) for key, (c, e, codes, w, i, o) in sums.items()}


def usage_of_totals(totals: Sequence[UsageTotal], columns: Sequence[str]) -> dict[tuple[str, ...], Any]:
    """``store.usage.totals`` in the form of ``usage_of_records``, rows without calls left out."""
    return {
        tuple(total.key[c] for c in columns): (
            total.calls,
            total.errors,
            dict(total.codes),
            round(total.wait_ms, 3),
            total.bytes_in,
            total.bytes_out,
        )
        for total in totals
        if total.calls
    }
