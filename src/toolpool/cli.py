"""The ``toolpool`` command line (typer + rich).

Every command takes ``--config PATH`` (default ``./toolpool.toml``) and ``--json``. Bad input
ends with one clear line on stderr and a non-zero exit, never a traceback. The CLI is the
one place (with the service) that may read the host environment.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import typer
from rich.console import Console
from rich.table import Table

from toolpool.config import Config, load_config
from toolpool.errors import ConnectionRefused, ToolpoolError
from toolpool.pool import Pool
from toolpool.tickets import Ticket
from toolpool.vetting.model import PublishedTool

__all__ = ["app", "main"]

app = typer.Typer(
    name="toolpool",
    help="toolpool: a guarded, dynamic pool of MCP tools. Only servers named in a trusted local "
    "config connect, only tools its policy names are exposed, and every call is checked again.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_out = Console()
_err = Console(stderr=True)
_T = TypeVar("_T")

ConfigPath = Annotated[Path, typer.Option("--config", "-c", help="The toolpool TOML file.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
_DEFAULT_CONFIG = Path("toolpool.toml")
# The operator at the command line may use every action of the config they point at.
_OPERATOR = Ticket.allow("*", principal="cli")


def main() -> None:
    """Entry point of the ``toolpool`` script."""
    try:
        app()
    except ToolpoolError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _fail("interrupted", code=130)


@app.command()
def demo(as_json: AsJson = False) -> None:
    """Walk through the pool's rules on the demo servers (real subprocesses, nothing to set up)."""
    from toolpool.demo._walkthrough import walkthrough

    async def run() -> list[Any]:
        steps = []
        with _out.status("starting", spinner="dots") as status:
            async for step in walkthrough(on_progress=lambda text: status.update(text)):
                steps.append(step)
                if not as_json:
                    mark = "[green]✓[/]" if step.as_expected else "[red]✗[/]"
                    _out.print(
                        f"{mark} {step.title}: [bold]{step.code}[/]  {_clip(step.text)}", highlight=False
                    )
        return steps

    steps = _run(run)
    if as_json:
        _print_json(
            [{"step": s.title, "expected": s.expected, "code": s.code, "text": s.text} for s in steps]
        )
    failed = [step for step in steps if not step.as_expected]
    if failed:
        _fail(f"{len(failed)} demo step(s) did not behave as expected")
    if not as_json:
        _out.print(
            f"\n{len(steps)} steps, all as expected. Every demo server process has been stopped and reaped."
        )


@app.command()
def tools(config: ConfigPath = _DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """List every tool the config names, with its local name, action, effect and state."""
    loaded = _load(config)
    rows = [
        {
            "alias": alias,
            "tool": name,
            "local_name": f"mcp__{alias}__{name}",
            "action": policy.action if policy.action is not False else None,
            "effect": policy.effect,
            "state": "forbidden" if policy.forbidden else ("enabled" if policy.enabled else "disabled"),
        }
        for alias, spec in loaded.servers.items()
        for name, policy in spec.tools.items()
    ]
    if as_json:
        _print_json(rows)
        return
    table = Table("alias", "tool", "action", "effect", "state")
    for row in rows:
        table.add_row(row["alias"], row["tool"], row["action"] or "-", row["effect"], row["state"])
    _out.print(table)


@app.command()
def call(
    alias: Annotated[str, typer.Argument(help="The server's alias in the config.")],
    tool: Annotated[str, typer.Argument(help="The tool's name as the server publishes it.")],
    args: Annotated[str, typer.Option("--args", help="The arguments, as a JSON object.")] = "{}",
    config: ConfigPath = _DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Connect ALIAS, call TOOL through every gate, print the Envelope (exit 1 unless ok)."""
    loaded = _load(config)
    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        _fail(f"--args is not JSON: {exc.msg} at character {exc.pos}")
    if not isinstance(arguments, dict):
        _fail("--args must be a JSON object")

    async def run() -> Any:
        async with Pool(loaded) as pool:
            with _err.status(f"connecting {alias}", spinner="dots"):
                await pool.connect(alias)
            snapshot = pool.snapshot()
            name = next((t.name for t in snapshot if t.alias == alias and t.remote_name == tool), tool)
            return await pool.call(snapshot, name, arguments, ticket=_OPERATOR)

    try:
        envelope = _run(run)
    except ConnectionRefused as refused:
        _fail(f"connection to {alias!r} refused: " + "; ".join(refused.reasons))
    if as_json:
        _print_json(
            {
                "ok": envelope.ok,
                "code": envelope.code,
                "text": envelope.text,
                "structured": envelope.structured,
                "untrusted": envelope.untrusted,
            }
        )
    else:
        _out.print(
            envelope.text if envelope.ok else f"[red]{envelope.code}[/]: {envelope.text}", highlight=False
        )
    if not envelope.ok:
        raise typer.Exit(1)


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

    screener = RuleScreener(_load(config).pool.screen_threshold if config is not None else 1.0)
    if not file.is_file():
        _fail(f"{file}: no such file")
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
        _fail(f"{where}: not UTF-8")
    except json.JSONDecodeError as exc:
        _fail(f"{where}: not JSON ({exc.msg} at character {exc.pos})")
    except RecursionError:
        _fail(f"{where}: not JSON this tool can read (nested too deeply)")
    if not isinstance(row, dict):
        _fail(f"{where}: expected a JSON object with name, description and inputSchema")
    schemas = {key: row.get(key) for key in ("inputSchema", "outputSchema", "annotations")}
    for key, value in schemas.items():
        if value is not None and not isinstance(value, dict):
            _fail(f"{where}: {key} must be a JSON object or null")
    description, name = row.get("description"), row.get("name")
    tool = PublishedTool(
        name=name if isinstance(name, str) else "",
        description=description if isinstance(description, str) else "",
        input_schema=schemas["inputSchema"] or {},
        output_schema=schemas["outputSchema"],
        annotations=schemas["annotations"] or {},
    )
    return tool, row.get("id")


def _load(path: Path) -> Config:
    if not path.exists():
        _fail(f"{path}: no such config file (pass --config PATH)")
    return load_config(path)


def _run(function: Callable[[], Awaitable[_T]]) -> _T:
    return anyio.run(function)


def _print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, indent=2, default=str) + "\n")


def _clip(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _fail(message: str, code: int = 1) -> Any:
    sys.stderr.write(f"toolpool: error: {message}\n")  # one line, never wrapped
    raise SystemExit(code)
