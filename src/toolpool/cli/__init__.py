"""The ``toolpool`` command line (typer + rich).

Every command takes ``--config PATH`` (default ``./toolpool.toml``) and ``--json``. Bad input
ends with one clear line on stderr and a non-zero exit, never a traceback. The CLI is the
one place (with the service) that may read the host environment.
"""

from __future__ import annotations

from toolpool.cli import (
    _agent,
    _approvals,
    _clients,
    _keeping,
    _manage,
    _run,
    _screen,
    _serve,
    _tokens,
    _usage,
)
from toolpool.cli._common import app, fail
from toolpool.cli._front import run_app
from toolpool.errors import ToolpoolError

__all__ = ["app", "main"]

# Importing them registers their commands on `app`.
_COMMANDS = (_agent, _approvals, _clients, _keeping, _manage, _run, _screen, _serve, _tokens, _usage)


def main() -> None:
    """Entry point of the ``toolpool`` script."""
    try:
        run_app()
    except ToolpoolError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted", code=130)
