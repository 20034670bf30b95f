"""Plain-text tables for bench output, and a description of the machine a run happened on."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

__all__ = ["Table", "machine", "render"]


@dataclass(slots=True)
class Table:
    title: str
    headers: Sequence[str]
    rows: list[Sequence[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def render(table: Table) -> str:
    widths = [
        max(len(str(row[i])) for row in (table.headers, *table.rows)) for i in range(len(table.headers))
    ]

    def line(cells: Sequence[str]) -> str:
        first, *rest = (str(cell) for cell in cells)
        return "  ".join(
            [first.ljust(widths[0]), *(c.rjust(w) for c, w in zip(rest, widths[1:], strict=True))]
        )

    out = [table.title, line(table.headers), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in table.rows]
    out += [f"  {note}" for note in table.notes]
    return "\n".join(out)


def machine() -> dict[str, Any]:
    return {
        "cpu": _cpu_model(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "cores_total": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "mcp": version("mcp"),
        "anyio": version("anyio"),
        "jsonschema": version("jsonschema"),
        "toolpool": version("toolpool"),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for entry in info:
                if entry.startswith("model name"):
                    return entry.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
