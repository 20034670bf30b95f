"""The Gateway in process, over real demo server processes: what it connects at start, how it
reports an alias that cannot connect, and that closing it is idempotent and reaps everything."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from tests.helpers import (
    ALPHA_TOOLS,
    BETA_TOOLS,
    READ,
    demo_server,
    scripted_server,
    server_table,
    tool_def,
    write_config,
    write_spec,
)
from toolpool.errors import UsageError
from toolpool.serve import Gateway

from .gateway_helpers import START_S, children_of, still_running

pytestmark = pytest.mark.anyio


async def test_an_alias_that_cannot_connect_is_one_reported_line_and_the_others_are_served(
    tmp_path: Path,
) -> None:
    broken = server_table(
        "broken", {"x": {"action": "broken.x", **READ}}, transport="stdio", command=str(tmp_path / "missing")
    )
    idle = demo_server("idle", "beta", {name: {**p, "enabled": False} for name, p in BETA_TOOLS.items()})
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS), broken, idle)
    reports: list[str] = []
    with anyio.fail_after(START_S):
        async with Gateway(config, on_report=reports.append) as gateway:
            connected = gateway.pool.connected
            listed = gateway.pool.snapshot().names
    assert connected == ("demo_alpha",)  # `idle` has no enabled tool: not started at all
    assert len(reports) == 1 and reports[0].startswith("broken: could not connect")
    assert "\n" not in reports[0]
    assert "mcp__demo_alpha__lookup" in listed


async def test_closing_a_gateway_twice_is_harmless_and_every_upstream_child_is_reaped(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", BETA_TOOLS),
    )
    before = children_of(os.getpid())
    with anyio.fail_after(START_S):
        gateway = Gateway(config)
        async with gateway:
            children = children_of(os.getpid()) - before
            assert gateway.pool.connected == ("demo_alpha", "demo_beta")
            await gateway.aclose()
            await gateway.aclose()
        await gateway.aclose()
    assert still_running(children) == set()
    assert gateway.pool.connected == ()


async def test_a_gateway_cancelled_while_it_connects_closes_its_store_and_reaps_its_children(
    tmp_path: Path,
) -> None:
    # Cancelled mid-start, the pool's exits run under a cancelled scope: the store's close must not
    # be skipped, and the unwinding must end (contextlib's exit stack looped forever here).
    log = tmp_path / "requests.jsonl"
    spec = write_spec(tmp_path, pages=[[tool_def("get")]], log=str(log), initialize_delay_s=START_S)
    config = write_config(tmp_path, scripted_server("slow", spec, {"get": {"action": "slow.get", **READ}}))
    gateway = Gateway(config)
    before = children_of(os.getpid())
    started: list[bool] = []

    async def start() -> None:
        async with gateway:
            started.append(True)

    with anyio.fail_after(START_S):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(start)
            while not log.exists() or "initialize" not in log.read_text(encoding="utf-8"):  # noqa: ASYNC110
                await anyio.sleep(0.05)  # the upstream is in its handshake: the gateway is starting
            children = children_of(os.getpid()) - before
            tasks.cancel_scope.cancel()
    assert started == []
    assert children and still_running(children) == set()
    with pytest.raises(UsageError, match="closed"):
        list(gateway.store.calls.call_records())
