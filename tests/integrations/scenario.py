"""What every framework adapter is tested on: the demo servers, a ticket for everything, and
the three things a framework must not change about toolpool's rules."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import ALPHA_TOOLS, demo_server, write_config
from toolpool import Pool, Ticket
from toolpool.config import Config
from toolpool.store import Store

TIMEOUT = 60
ANY = Ticket.allow("*")
LOOKUP = "mcp__demo_alpha__lookup"
ECHO = "mcp__demo_alpha__echo"


def alpha_config(tmp_path: Path) -> Config:
    return write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        pool={"store": f"sqlite:///{tmp_path / 'toolpool.db'}"},
    )


def recorded_codes(tmp_path: Path) -> list[tuple[str, str]]:
    """(tool, code) of every call the pool recorded, once it is closed (closing flushes)."""
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}") as store:
        return [(record.tool, record.code) for _, record in store.calls.call_records()]


def disable_lookup(pool: Pool) -> None:
    """What an operator does while the agent runs: the store says no at once (gate 3)."""
    assert pool.store is not None
    pool.store.tools.disable("demo_alpha", "lookup", "tests")
