"""``toolpool serve --stdio`` as a real process, spoken to by the official MCP client in both
protocol eras: ticket-filtered listings, gated calls, refusals with their codes, and
``tools/list_changed`` when another process disables a tool or a server goes away."""

from __future__ import annotations

import signal
from pathlib import Path

import anyio
import pytest

from toolpool.demo._faulty import HOSTILE_ERROR_TEXT

from .gateway_helpers import (
    ALPHA_AND_BETA,
    ERAS,
    TEST_S,
    WAIT_S,
    Changes,
    code_of,
    copy_config,
    names,
    served,
    stdio_client,
    still_running,
    stop,
    text_of,
    toolpool_async,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("era", ERAS)
async def test_tools_list_shows_exactly_what_the_allow_globs_grant_in_name_order(
    tmp_path: Path, era: str
) -> None:
    config = copy_config(tmp_path)
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, era, "demo.*", "beta.*") as client:
            first = names(await client.list_tools())
            second = names(await client.list_tools())
            hidden = await client.call_tool("mcp__demo_faulty__ok", {})
    assert first == second == ALPHA_AND_BETA
    assert hidden.is_error and code_of(hidden) == "unknown_tool"


async def test_without_allow_globs_every_enabled_tool_is_listed_and_forbidden_ones_never(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path)
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, "legacy") as client:
            listed = await client.list_tools()
    shown = names(listed)
    assert shown == sorted(shown)
    assert set(ALPHA_AND_BETA) <= set(shown)
    assert "mcp__demo_alpha__process_info" not in shown  # action = false (R6)
    assert not any(name.startswith("mcp__demo_mismatch__") for name in shown)  # nothing enabled there
    lookup = next(tool for tool in listed.tools if tool.name == "mcp__demo_alpha__lookup")
    assert lookup.input_schema["required"] == ["key"] and lookup.annotations is None


@pytest.mark.parametrize("era", ERAS)
async def test_a_call_passes_every_gate_and_a_refusal_carries_its_code(tmp_path: Path, era: str) -> None:
    config = copy_config(tmp_path, ["demo_alpha", "demo_faulty"])
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, era) as client:
            await client.list_tools()
            found = await client.call_tool("mcp__demo_alpha__lookup", {"key": "k1"})
            bad = await client.call_tool("mcp__demo_alpha__echo", {"text": 5})
            failed = await client.call_tool("mcp__demo_faulty__fail", {})
            unknown = await client.call_tool("mcp__nobody__nothing", {})
    assert not found.is_error and code_of(found) == "ok" and "alpha:v1" in text_of(found)
    assert bad.is_error and code_of(bad) == "invalid_arguments"
    assert text_of(bad).startswith("invalid_arguments: ")
    assert failed.is_error and code_of(failed) == "mcp_remote_error"
    assert HOSTILE_ERROR_TEXT not in text_of(failed) and "IGNORE PREVIOUS" not in text_of(failed)
    assert unknown.is_error and code_of(unknown) == "unknown_tool"


async def test_a_tool_disabled_by_another_process_is_refused_and_the_legacy_client_is_told(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    changes = Changes()
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, "legacy", changes=changes) as client:
            assert "mcp__demo_alpha__echo" in names(await client.list_tools())
            disabled = await toolpool_async(config, "disable", "demo_alpha", "echo")
            assert disabled.returncode == 0, disabled.stderr
            await changes.wait()
            refused = await client.call_tool("mcp__demo_alpha__echo", {"text": "hi"})
            after = names(await client.list_tools())
            still = await client.call_tool("mcp__demo_alpha__lookup", {"key": "k2"})
    assert refused.is_error and code_of(refused) == "tool_disabled"
    assert "mcp__demo_alpha__echo" not in after and "mcp__demo_alpha__lookup" in after
    assert code_of(still) == "ok"


async def test_a_tool_disabled_by_another_process_reaches_a_2026_client_on_its_listen_stream(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, "2026-07-28") as client:
            assert "mcp__demo_alpha__echo" in names(await client.list_tools())
            async with client.listen(tools_list_changed=True) as subscription:
                disabled = await toolpool_async(config, "disable", "demo_alpha", "echo")
                assert disabled.returncode == 0, disabled.stderr
                with anyio.fail_after(WAIT_S):
                    event = await subscription.__anext__()
            refused = await client.call_tool("mcp__demo_alpha__echo", {"text": "hi"})
            after = names(await client.list_tools())
    assert type(event).__name__ == "ToolsListChanged"
    assert refused.is_error and code_of(refused) == "tool_disabled"
    assert "mcp__demo_alpha__echo" not in after


async def test_a_crashed_server_is_revoked_and_comes_back_after_its_backoff(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha", "demo_faulty"])
    changes = Changes()
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, "legacy", changes=changes) as client:
            assert "mcp__demo_faulty__ok" in names(await client.list_tools())
            crashed = await client.call_tool("mcp__demo_faulty__crash", {})
            await changes.wait()
            gone = names(await client.list_tools())
            while "mcp__demo_faulty__ok" not in (back := names(await client.list_tools())):
                # Each listing asks for a reconnect once the backoff has passed; the gateway
                # says when the tools are back.
                with anyio.move_on_after(1):
                    await changes.event.wait()
                changes.event = anyio.Event()
            recovered = await client.call_tool("mcp__demo_faulty__ok", {})
    assert crashed.is_error and code_of(crashed) == "mcp_connection_lost"
    assert not any(name.startswith("mcp__demo_faulty__") for name in gone)
    assert "mcp__demo_alpha__lookup" in gone  # only the crashed server's tools went (R11)
    assert "mcp__demo_faulty__crash" in back and code_of(recovered) == "ok"


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM", "SIGINT"])
async def test_the_stdio_gateway_stops_cleanly_and_reaps_every_upstream_child(
    tmp_path: Path, how: str
) -> None:
    config = copy_config(tmp_path)
    with anyio.fail_after(TEST_S):
        async with served(config, "--stdio") as running:
            children = running.children
            assert len(children) >= 5, running.stderr  # alpha, beta, faulty, paged, poisoned
            if how == "stdin closed":
                assert running.process.stdin is not None
                await running.process.stdin.aclose()
                code = await running.process.wait()
            else:
                code = await stop(running.process, signal.SIGTERM if how == "SIGTERM" else signal.SIGINT)
    assert code == 0, running.stderr
    assert still_running(children) == set()
    assert not any("Traceback" in line for line in running.stderr), running.stderr
    verified = await toolpool_async(config, "audit", "--verify")
    assert verified.returncode == 0, verified.stderr
