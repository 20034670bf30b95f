"""`toolpool screen`: screen tool definitions offline (R5)."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from toolpool.cli._common import AsJson, app, fail, load
from toolpool.upstream import PublishedTool
from toolpool.vetting.peer_set import PeerGroup, PeerSet
from toolpool.vetting.screening import Peer

__all__ = ["screen"]

_NO_PEERS = PeerSet(())

# Exit codes: 1 is bad input or usage (one clear line); this one says "something was dropped".
DROPPED_EXIT = 3


class FailOn(StrEnum):
    drop = "drop"


@app.command()
def screen(
    file: Annotated[
        Path, typer.Argument(help="JSONL: one tool per line (name, description, inputSchema, optional id).")
    ],
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Take screen_threshold from this config.")
    ] = None,
    as_json: AsJson = False,
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help=f"'drop': exit {DROPPED_EXIT} when any tool was dropped (a CI gate); verdicts are printed first.",
        ),
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help='Add "signals" to each line: every signal found, where, and its weight (before group caps).',
        ),
    ] = False,
) -> None:
    """Screen tool definitions offline (R5): one JSON verdict per line, a summary on stderr.

    The output is JSON lines with or without --json: {"id", "name", "verdict", "score", "reasons"}
    (and "signals" with --explain). Lines that name a "server" see the other servers' tools of the
    file as peers (names and descriptions), as the pool does.
    """
    from toolpool.vetting.screener import RuleScreener

    pool = load(config).pool if config is not None else None
    screener = RuleScreener(pool.screen_threshold, lexical=pool.screen_lexical) if pool else RuleScreener()
    if not file.is_file():
        fail(f"{file}: no such file")
    with file.open("rb") as lines:  # every line is checked before any verdict is printed
        tools = [_published_tool(file, number, raw) for number, raw in enumerate(lines, 1) if raw.strip()]
    dropped = 0
    peers_of = _peer_sets(tools)
    for tool, tool_id, server in tools:
        peers = peers_of.get(server, _NO_PEERS) if server is not None else _NO_PEERS
        verdict = screener.screen_tool(tool, peers)
        dropped += verdict.drop
        row: dict[str, Any] = {
            "id": tool_id,
            "name": tool.name,
            "verdict": "drop" if verdict.drop else "pass",
            "score": verdict.score,
            "reasons": list(verdict.reasons),
        }
        if explain:
            row["signals"] = [found._asdict() for found in screener.explain_tool(tool, peers)]
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    sys.stderr.write(f"toolpool: {len(tools)} screened, {dropped} dropped (threshold {screener.threshold})\n")
    if fail_on is FailOn.drop and dropped:
        raise typer.Exit(DROPPED_EXIT)


def _peer_sets(tools: list[tuple[PublishedTool, Any, str | None]]) -> dict[str, PeerSet]:
    """For each server of the file, the other servers and their tools, as the pool would pass
    them (lines without a server see none): one group per server, built once, so a file of
    thousands of tools is not read again for every line."""
    members: dict[str, list[str | Peer]] = {}
    for tool, _, server in tools:
        if server is not None:
            members.setdefault(server, [server]).append(Peer(tool.name, tool.description or ""))
    groups = {server: PeerGroup(found) for server, found in members.items()}
    return {server: PeerSet(group for other, group in groups.items() if other != server) for server in groups}


def _published_tool(file: Path, number: int, raw: bytes) -> tuple[PublishedTool, Any, str | None]:
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
    server = row.get("server")
    return tool, row.get("id"), server if isinstance(server, str) and server else None
