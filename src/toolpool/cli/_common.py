"""What every command shares: the app, its options, output and one-line errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import typer
from rich.console import Console

from toolpool.config import Config, load_config
from toolpool.tickets import Ticket

__all__ = [
    "DEFAULT_CONFIG",
    "OPERATOR",
    "AsJson",
    "ConfigPath",
    "app",
    "clip",
    "err",
    "fail",
    "load",
    "out",
    "print_json",
    "run",
]

app = typer.Typer(
    name="toolpool",
    help="toolpool: a guarded, dynamic pool of MCP tools. Only servers named in a trusted local "
    "config connect, only tools its policy names are exposed, and every call is checked again.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)
_T = TypeVar("_T")

ConfigPath = Annotated[Path, typer.Option("--config", "-c", help="The toolpool TOML file.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
DEFAULT_CONFIG = Path("toolpool.toml")
# The operator at the command line may use every action of the config they point at.
OPERATOR = Ticket.allow("*", principal="cli")


def load(path: Path) -> Config:
    if not path.exists():
        fail(f"{path}: no such config file (pass --config PATH)")
    return load_config(path)


def run(function: Callable[[], Awaitable[_T]]) -> _T:
    return anyio.run(function)


def print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, indent=2, default=str) + "\n")


def clip(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def fail(message: str, code: int = 1) -> Any:
    sys.stderr.write(f"toolpool: error: {message}\n")  # one line, never wrapped
    raise SystemExit(code)
