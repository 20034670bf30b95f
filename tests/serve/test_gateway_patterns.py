"""``toolpool serve --http`` as a real process: one client's call with a hostile argument for a
hostile ``pattern`` cannot make another client wait (DESIGN.md: untrusted regular expressions
run only on a linear-time engine). Only one scripted upstream, so the gateway starts quickly."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.redos import ATTACK, LAG_LIMIT_S, hostile_schema

from .gateway_helpers import TEST_S, code_of, http_client, new_token, served

pytestmark = pytest.mark.anyio

ROUNDS = 3
# The old code held the gateway's loop for about a minute per hostile call.
ROUNDS_S = 20


async def test_a_hostile_call_from_one_client_leaves_another_clients_call_under_100_ms(
    tmp_path: Path,
) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("find", hostile_schema()), tool_def("ping")]])
    tools = {"find": {"action": "s.find", **READ}, "ping": {"action": "s.ping", **READ}}
    write_config(tmp_path, scripted_server("s", spec, tools))
    config = tmp_path / "toolpool.toml"
    token = new_token(config, "ci", "--allow", "*")
    codes: list[object] = []
    latencies: list[float] = []
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, "legacy") as attacker,
            http_client(running.url, token, "legacy") as bystander,
        ):
            assert code_of(await bystander.call_tool("mcp__s__ping", {})) == "ok"  # warm: connected

            async def attack() -> None:
                codes.append(code_of(await attacker.call_tool("mcp__s__find", {"q": ATTACK})))

            async def probe() -> None:
                started = time.perf_counter()
                codes.append(code_of(await bystander.call_tool("mcp__s__ping", {})))
                latencies.append(time.perf_counter() - started)

            with anyio.fail_after(ROUNDS_S):
                for _ in range(ROUNDS):
                    async with anyio.create_task_group() as tasks:
                        tasks.start_soon(attack)
                        tasks.start_soon(probe)
    assert sorted(map(str, codes)) == ["invalid_arguments"] * ROUNDS + ["ok"] * ROUNDS
    # The median of three rounds: one scheduling hiccup on a loaded machine is not the attack.
    assert statistics.median(latencies) < LAG_LIMIT_S, latencies
