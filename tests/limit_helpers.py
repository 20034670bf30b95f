"""Helpers for the limits tests: configs with ``[principals.*]``, virtual clocks, and calls
that report their codes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.helpers import EXACT_ENV, READ, demo_server, toml_value, write_config
from toolpool import Config, Envelope, Pool, Ticket, load_config
from toolpool.demo import demo_environment

ANY = Ticket.allow("*")
SLEEP = "mcp__slow__sleep"
SLOW_TOOLS = {"sleep": {"action": "slow.sleep", **READ}}


def slow_server(**fields: Any) -> str:
    """The slow demo server, importing toolpool from where these tests import it."""
    fields.setdefault("env", {**EXACT_ENV, **demo_environment()})
    return demo_server("slow", "slow", SLOW_TOOLS, **fields)


def limits_config(
    folder: Path,
    *servers: str,
    pool: Mapping[str, Any] | None = None,
    principals: Mapping[str, Mapping[str, Any]] | None = None,
) -> Config:
    """``write_config`` with ``[principals.NAME]`` tables appended."""
    config = write_config(folder, *servers, pool=pool)
    if not principals:
        return config
    tables = []
    for name, fields in principals.items():
        tables.append(f"[principals.{json.dumps(name)}]")
        tables += [f"{key} = {toml_value(value)}" for key, value in fields.items()]
    path = config.source
    path.write_text(path.read_text(encoding="utf-8") + "\n" + "\n".join(tables) + "\n", encoding="utf-8")
    return load_config(path)


class Monotonic:
    """A virtual monotonic clock: buckets refill only when a test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class WallClock:
    """A virtual UTC clock for quota periods."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 12, 3, 10, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


async def codes(pool: Pool, name: str, arguments: Mapping[str, Any], times: int) -> list[str]:
    snapshot = pool.snapshot()
    return [(await pool.call(snapshot, name, arguments, ticket=ANY)).code for _ in range(times)]


def wait_of(envelope: Envelope) -> float:
    assert envelope.meta is not None
    wait = envelope.meta["retry_after_s"]
    assert isinstance(wait, float) and wait > 0
    return wait
