"""What every command shares: the app, its options, output and one-line errors."""

from __future__ import annotations

import gc
import getpass
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
import typer
from rich.console import Console
from rich.text import Text

from toolpool.cli._beside import config_hash
from toolpool.cli._toml_kept import KEEP_FROM_BYTES, keep_toml, kept_toml
from toolpool.errors import UsageError
from toolpool.tickets import Ticket

# The configuration's models (pydantic) and the store (SQLAlchemy) are imported where a command
# uses them, not here: every command, `--help` and each shell-completion keystroke import this
# module, and those two were two thirds of a second of it (tests/test_cli_imports.py).
if TYPE_CHECKING:
    from toolpool.config import Config
    from toolpool.store import SecretKey, Store
    from toolpool.telemetry import TelemetryRuntime

__all__ = [
    "DEFAULT_CONFIG",
    "KEY_ENV",
    "AsJson",
    "ConfigPath",
    "actor",
    "app",
    "cell",
    "clip",
    "collector_paused",
    "err",
    "fail",
    "key_file",
    "load",
    "open_store",
    "operator_ticket",
    "out",
    "parse",
    "print_json",
    "printable",
    "read",
    "run",
    "secret_key",
    "secret_key_beside",
    "sole",
    "telemetry_for",
]

app = typer.Typer(
    name="toolpool",
    help="toolpool: a guarded, dynamic pool of MCP tools. Only servers named in a trusted local "
    "config connect, only tools its policy names are exposed, and every call is checked again.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)
_T = TypeVar("_T")

ConfigPath = Annotated[Path, typer.Option("--config", "-c", help="The toolpool TOML file.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
DEFAULT_CONFIG = Path("toolpool.toml")


# The operator at the command line may use every action of the config they point at.
def operator_ticket() -> Ticket:
    """What the person at the command line may call: everything enabled, as themselves."""
    return Ticket.allow("*", principal=actor())


KEY_ENV = "TOOLPOOL_SECRET_KEY"
_KEY_FILE = "toolpool.key"


def key_file(config: Config) -> Path:
    """Where ``toolpool init`` keeps the secret key: beside the config file."""
    return config.source.parent / _KEY_FILE


def secret_key(config: Config) -> SecretKey | None:
    """The key for stored secrets: $TOOLPOOL_SECRET_KEY, else the key file, else none."""
    return secret_key_beside(config.source)


def secret_key_beside(source: Path) -> SecretKey | None:
    """``secret_key`` of the config file at ``source``, before (or without) parsing it."""
    from toolpool.store import SecretKey

    text = os.environ.get(KEY_ENV)
    if text:
        return SecretKey.from_text(text)
    path = source.parent / _KEY_FILE
    return SecretKey.read_file(path) if path.exists() else None


def open_store(config: Config, text_hash: str | None = None) -> Store:
    """The config's store, with the config's ``enabled`` flags synced into it (actor ``config``).

    With ``text_hash`` (``config_hash`` of the text ``config`` was parsed from), nothing is
    written when the store holds this very text already, and otherwise only the aliases that
    differ (``sync_and_list``): at 20,000 servers a full sync is seconds."""
    from toolpool.store import Store

    store = Store.open(config.store_url, key=secret_key(config))
    try:
        policies = {alias: spec.tools for alias, spec in config.servers.items()}
        if text_hash is None:
            store.tools.sync_policies(policies)
        elif not store.tools.is_synced(text_hash):
            store.tools.sync_and_list(policies, config_hash=text_hash)
    except BaseException:
        store.close()
        raise
    return store


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: a command that builds a million small objects
    (``toolpool tools`` at 100,000 tools), which live until it ends and form no cycles, made
    the collector walk them again and again, for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def actor() -> str:
    """Who is at the command line, as the audit log names them."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def load(path: Path) -> Config:
    return parse(*read(path))


def parse(text: str, source: Path) -> Config:
    """``parse_config``; a large configuration's TOML values are read from the copy kept beside
    it when that holds this very text, and kept there after they validated (``_toml_kept``)."""
    from toolpool._toml_lines import read_toml
    from toolpool.config import parse_config

    if len(text) < KEEP_FROM_BYTES:
        return parse_config(text, source)
    text_hash = config_hash(text)
    with collector_paused():  # 20,000 servers: half the validation's time was the collector's
        kept = kept_toml(source, text_hash)
        values = read_toml(text, source) if kept is None else kept
        config = parse_config(text, source, toml=values)
        if kept is None:
            keep_toml(source, text_hash, values)
    return config


def read(path: Path) -> tuple[str, Path]:
    """The config file's text and resolved path (``toolpool.config.read_config``)."""
    from toolpool._config_text import read_config  # not toolpool.config: its models (see above)

    if not path.exists():
        fail(f"{path}: no such config file (pass --config PATH, or `toolpool init` writes one here)")
    return read_config(path)


def run(function: Callable[[], Awaitable[_T]]) -> _T:
    """``anyio.run``; an error that task groups wrapped alone is raised as itself (so that a
    ``ToolpoolError`` from inside a pool is still one line)."""
    try:
        return anyio.run(function)
    except BaseExceptionGroup as group:
        raise sole(group) from None


def sole(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside nested single-member groups (one clear line for the user)."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, indent=2, default=str) + "\n")


def clip(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as its escape."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def cell(text: str) -> Text:
    """Text from the database for the terminal: no markup, no escape sequences."""
    return Text(printable(text))


def fail(message: str, code: int = 1) -> Any:
    sys.stderr.write(f"toolpool: error: {message}\n")  # one line, never wrapped
    raise SystemExit(code)


def telemetry_for(config: Config, *, prometheus: bool = False) -> TelemetryRuntime:
    """``[telemetry]`` with the ``OTEL_*`` and ``TOOLPOOL_CALL_LOG*`` variables applied, started
    (close it after the pool: its last spans are sent then)."""
    from toolpool.telemetry import settings_from_environment, start_telemetry  # OpenTelemetry: slow

    try:
        return start_telemetry(settings_from_environment(config.telemetry, os.environ), prometheus=prometheus)
    except UsageError as exc:
        return fail(str(exc))  # type: ignore[no-any-return]
