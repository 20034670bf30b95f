"""How the command line runs: ``--version``, plain flags in ``--help``, one-line usage errors.

Click's own standalone mode draws a usage error as a multi-line box; here it is one line on
stderr (``toolpool: error: ...``), like every other error, naming the command's ``--help``.
A flag takes no value, so ``--help`` shows none for it (typer would write ``<bool>``).
"""

from __future__ import annotations

from typing import Annotated

import typer
import typer.main
from typer import _click as click  # typer >= 0.29 carries its own copy of click

from toolpool.cli._common import app, fail

__all__ = ["PROG", "run_app"]

PROG = "toolpool"
# `--help` lists the everyday path first; `run` needs a model's API key, so it comes late.
_EVERYDAY = (
    "init",
    "import",
    "tools",
    "enable",
    "disable",
    "approve-write",
    "call",
    "demo",
    "audit",
    "serve",
)


def _show_version(value: bool) -> None:
    if value:
        from toolpool import __version__

        typer.echo(f"{PROG} {__version__}")
        raise typer.Exit


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_show_version, help="Print the version and exit."),
    ] = False,
) -> None:
    """toolpool: a guarded, dynamic pool of MCP tools. Only servers named in a trusted local
    config connect, only tools its policy names are exposed, and every call is checked again."""


def run_app(args: list[str] | None = None) -> None:
    """Run the ``toolpool`` command (on ``args``, else the process's arguments); every way it
    ends is ``SystemExit`` with a code, never a traceback."""
    command = typer.main.get_command(app)
    _plain_flags(command)
    _everyday_first(command)
    try:
        code = command.main(args, prog_name=PROG, standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError:
        raise SystemExit(2) from None  # typer's rich help has been printed already
    except click.exceptions.UsageError as usage:
        fail(_usage_line(usage), code=usage.exit_code)
    except click.exceptions.ClickException as other:
        fail(other.format_message(), code=other.exit_code)
    except typer.Abort:
        fail("aborted", code=1)
    raise SystemExit(code if isinstance(code, int) else 0)


def _usage_line(usage: click.exceptions.UsageError) -> str:
    message = " ".join(usage.format_message().split())
    if usage.ctx is None:
        return message
    return f"{message} (see `{usage.ctx.command_path} --help`)"


def _plain_flags(command: click.Command) -> None:
    """Give every flag (and each command's ``--help``) an empty metavar: a flag takes no value."""
    context = click.Context(command, info_name=command.name)
    help_option = command.get_help_option(context)
    for param in [*command.params, *([help_option] if help_option else [])]:
        if isinstance(param, click.core.Parameter) and getattr(param, "is_flag", False):
            param.metavar = ""
    if isinstance(command, typer.core.TyperGroup):
        for child in command.commands.values():
            _plain_flags(child)


def _everyday_first(command: click.Command) -> None:
    if isinstance(command, typer.core.TyperGroup):
        rank = {name: place for place, name in enumerate(_EVERYDAY)}
        ordered = sorted(command.commands.items(), key=lambda item: rank.get(item[0], len(rank)))
        command.commands = dict(ordered)
