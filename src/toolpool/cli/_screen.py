"""`toolpool screen`: screen tool definitions offline (R5)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from toolpool.cli._common import AsJson, app, fail, load
from toolpool.upstream import PublishedTool

__all__ = ["screen"]


@app.command()
def screen(
    file: Annotated[
        Path, typer.Argument(help="JSONL: one tool per line (name, description, inputSchema, optional id).")
    ],
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Take screen_threshold from this config.")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Screen tool definitions offline (R5): one JSON verdict per line, a summary on stderr.

    The output is JSON lines with or without --json: {"id", "name", "verdict", "score", "reasons"}.
    """
    from toolpool.vetting.screener import RuleScreener

    screener = RuleScreener(load(config).pool.screen_threshold if config is not None else 1.0)
    if not file.is_file():
        fail(f"{file}: no such file")
    with file.open("rb") as lines:  # every line is checked before any verdict is printed
        tools = [_published_tool(file, number, raw) for number, raw in enumerate(lines, 1) if raw.strip()]
    dropped = 0
    for tool, tool_id in tools:
        verdict = screener.screen_tool(tool)
        dropped += verdict.drop
        row = {
            "id": tool_id,
            "name": tool.name,
            "verdict": "drop" if verdict.drop else "pass",
            "score": verdict.score,
            "reasons": list(verdict.reasons),
        }
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    sys.stderr.write(f"toolpool: {len(tools)} screened, {dropped} dropped (threshold {screener.threshold})\n")


def _published_tool(file: Path, number: int, raw: bytes) -> tuple[PublishedTool, Any]:
    """One line of a ``screen`` file as a PublishedTool (null description and schema allowed)."""
    where = f"{file}: line {number}"
    try:
        row = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        fail(f"{where}: not UTF-8")
    except json.JSONDecodeError as exc:
        fail(f"{where}: not JSON ({exc.msg} at character {exc.pos})")
    except RecursionError:
        fail(f"{where}: not JSON this tool can read (nested too deeply)")
    if not isinstance(row, dict):
        fail(f"{where}: expected a JSON object with name, description and inputSchema")
    schemas = {key: row.get(key) for key in ("inputSchema", "outputSchema", "annotations")}
    for key, value in schemas.items():
        if value is not None and not isinstance(value, dict):
            fail(f"{where}: {key} must be a JSON object or null")
    description, name = row.get("description"), row.get("name")
    tool = PublishedTool(
        name=name if isinstance(name, str) else "",
        description=description if isinstance(description, str) else "",
        input_schema=schemas["inputSchema"] or {},
        output_schema=schemas["outputSchema"],
        annotations=schemas["annotations"] or {},
    )
    return tool, row.get("id")
