"""``toolpool serve --http`` as a real process: bearer tokens from ``toolpool tokens add`` (401
without one), the DNS-rebinding guard, working sessions in both protocol eras, changes told
to each client, and a clean stop on SIGINT and SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import anyio
import anyio.abc
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec

from .gateway_helpers import (
    ERAS,
    INITIALIZE,
    MCP_HEADERS,
    START_S,
    STOP_S,
    TEST_S,
    WAIT_S,
    Changes,
    bearer,
    children_of,
    code_of,
    copy_config,
    environment,
    http_client,
    names,
    new_token,
    served,
    still_running,
    stop,
    text_of,
    toolpool_async,
)

pytestmark = pytest.mark.anyio


async def test_without_a_valid_token_every_request_gets_401_and_nothing_else(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    token = new_token(config, "ci", "--allow", "demo.*")
    revoked = new_token(config, "old", "--allow", "*")
    assert (await toolpool_async(config, "tokens", "revoke", "old")).returncode == 0
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running:
            refused = []
            for presented in (None, "nope", token[:-1], token + "x", revoked):
                async with bearer(presented) as http:
                    refused.append(await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS))
                    refused.append(await http.get(running.url.replace("/mcp", "/elsewhere")))
                    refused.append(await http.delete(running.url))
            for header in ("Bearer", f"Basic {token}", f"bearer{token}"):
                async with bearer(None, Authorization=header) as http:
                    refused.append(await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS))
            async with bearer(token) as http:
                allowed = await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
    assert {response.status_code for response in refused} == {401}
    assert {response.content for response in refused} == {b'{"error": "unauthorized"}'}
    assert not any("mcp-session-id" in response.headers for response in refused)
    assert allowed.status_code == 200 and "mcp-session-id" in allowed.headers


async def test_a_request_naming_another_host_or_origin_is_refused_even_with_a_token(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running:
            port = running.url.split(":")[2].split("/")[0]
            answers = {}
            for name, headers in {
                "evil host": {"Host": "evil.example"},
                "evil host, our port": {"Host": f"evil.example:{port}"},
                "evil origin": {"Origin": "http://evil.example"},
                "localhost": {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
            }.items():
                async with bearer(token, **headers) as http:
                    answers[name] = await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
    assert answers["evil host"].status_code == 421
    assert answers["evil host, our port"].status_code == 421
    assert answers["evil origin"].status_code == 403
    assert answers["localhost"].status_code == 200


@pytest.mark.parametrize("era", ERAS)
async def test_a_token_holder_gets_a_working_session_in_each_era(tmp_path: Path, era: str) -> None:
    config = copy_config(tmp_path, ["demo_alpha", "demo_beta"])
    token = new_token(config, "ci", "--allow", "demo.*", "--resource", "k1")
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, era) as client,
        ):
            listed = names(await client.list_tools())
            found = await client.call_tool("mcp__demo_alpha__lookup", {"key": "k1"})
            elsewhere = await client.call_tool("mcp__demo_alpha__lookup", {"key": "k2"})
            hidden = await client.call_tool("mcp__demo_beta__lookup", {"key": "k1"})
            bad = await client.call_tool("mcp__demo_alpha__echo", {"text": 5})
    assert listed == ["mcp__demo_alpha__echo", "mcp__demo_alpha__lookup"]
    assert code_of(found) == "ok" and "alpha:v1" in text_of(found)
    assert elsewhere.is_error and code_of(elsewhere) == "denied"
    assert hidden.is_error and code_of(hidden) == "unknown_tool"
    assert bad.is_error and code_of(bad) == "invalid_arguments"
    audit = await toolpool_async(config, "audit", "--json", "--limit", "200")
    assert '"actor": "token:ci"' in audit.stdout


async def test_a_legacy_http_session_is_told_on_its_stream_when_another_process_disables_a_tool(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    token = new_token(config, "ci", "--allow", "*")
    changes = Changes()
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, "legacy", changes) as client,
        ):
            assert "mcp__demo_alpha__echo" in names(await client.list_tools())
            assert (await toolpool_async(config, "disable", "demo_alpha", "echo")).returncode == 0
            await changes.wait()
            refused = await client.call_tool("mcp__demo_alpha__echo", {"text": "hi"})
            after = names(await client.list_tools())
    assert refused.is_error and code_of(refused) == "tool_disabled"
    assert "mcp__demo_alpha__echo" not in after


async def test_a_2026_http_client_is_told_on_its_listen_stream_when_another_process_disables_a_tool(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, "2026-07-28") as client,
        ):
            assert "mcp__demo_alpha__echo" in names(await client.list_tools())
            async with client.listen(tools_list_changed=True) as subscription:
                assert (await toolpool_async(config, "disable", "demo_alpha", "echo")).returncode == 0
                with anyio.fail_after(WAIT_S):
                    event = await subscription.__anext__()
            refused = await client.call_tool("mcp__demo_alpha__echo", {"text": "hi"})
            after = names(await client.list_tools())
    assert type(event).__name__ == "ToolsListChanged"
    assert refused.is_error and code_of(refused) == "tool_disabled"
    assert "mcp__demo_alpha__echo" not in after


async def test_a_server_whose_first_tool_another_process_enables_is_connected_and_its_tool_served(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha", "demo_beta"])
    text = config.read_text()
    start = text.index("[servers.demo_beta.tools.lookup]")  # beta's tools end the copy
    config.write_text(text[:start] + text[start:].replace("enabled = true\n", ""))
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, "2026-07-28") as client,
        ):
            before = names(await client.list_tools())
            async with client.listen(tools_list_changed=True) as subscription:
                assert (await toolpool_async(config, "enable", "demo_beta", "lookup")).returncode == 0
                # No request in between: the gateway notices the release and connects beta itself.
                with anyio.fail_after(WAIT_S):
                    event = await subscription.__anext__()
            after = names(await client.list_tools())
            found = await client.call_tool("mcp__demo_beta__lookup", {"key": "k1"})
    assert not any(name.startswith("mcp__demo_beta__") for name in before)
    assert type(event).__name__ == "ToolsListChanged"
    assert "mcp__demo_beta__lookup" in after and "mcp__demo_beta__write_note" not in after
    assert code_of(found) == "ok" and "beta:" in text_of(found)


async def test_only_the_clients_whose_view_changed_are_told(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha", "demo_beta"])
    alpha = new_token(config, "alpha", "--allow", "demo.*")
    beta = new_token(config, "beta", "--allow", "beta.*")
    alpha_changes, beta_changes = Changes(), Changes()
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, alpha, "legacy", alpha_changes) as alpha_client,
            http_client(running.url, beta, "legacy", beta_changes) as beta_client,
        ):
            assert names(await alpha_client.list_tools()) == [
                "mcp__demo_alpha__echo",
                "mcp__demo_alpha__lookup",
            ]
            assert names(await beta_client.list_tools()) == [
                "mcp__demo_beta__lookup",
                "mcp__demo_beta__write_note",
            ]
            assert (await toolpool_async(config, "disable", "demo_alpha", "echo")).returncode == 0
            await alpha_changes.wait()
            assert (await toolpool_async(config, "disable", "demo_beta", "lookup")).returncode == 0
            await beta_changes.wait()
            after = names(await beta_client.list_tools())
    assert (alpha_changes.seen, beta_changes.seen) == (1, 1)
    assert after == ["mcp__demo_beta__write_note"]


async def test_a_revoked_token_is_refused_at_its_next_request(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running, bearer(token) as http:
            before = await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
            assert (await toolpool_async(config, "tokens", "revoke", "ci")).returncode == 0
            after = await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
    assert (before.status_code, after.status_code) == (200, 401)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_stops_the_http_gateway_cleanly_and_reaps_every_upstream_child(
    tmp_path: Path, signum: int
) -> None:
    config = copy_config(tmp_path)
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running:
            children = running.children
            assert len(children) >= 5, running.stderr
            async with http_client(running.url, token, "legacy") as client:
                await client.list_tools()
                code = await stop(running.process, signum)
    assert code == 0, running.stderr
    assert still_running(children) == set()
    assert not any("Traceback" in line for line in running.stderr), running.stderr


async def test_a_signal_while_upstreams_connect_stops_the_service_and_closes_its_store(
    tmp_path: Path,
) -> None:
    # The attack: a service told to stop while it starts. Its exit stacks unwind under a cancelled
    # scope, a task group re-raises the cancellation it is given, and contextlib's AsyncExitStack
    # then chains that exception to itself and loops forever (CPython gh-102201's class): the
    # process spun at full CPU and never exited. The store must be closed, too, not abandoned.
    log = tmp_path / "requests.jsonl"
    spec = write_spec(tmp_path, pages=[[tool_def("get")]], log=str(log), initialize_delay_s=WAIT_S)
    write_config(tmp_path, scripted_server("slow", spec, {"get": {"action": "slow.get", **READ}}))
    command = [
        sys.executable,
        "-m",
        "toolpool",
        "serve",
        "--http",
        "127.0.0.1:0",
        "--config",
        "toolpool.toml",
    ]
    process = await anyio.open_process(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=environment(),
        cwd=tmp_path,
    )
    try:
        with anyio.fail_after(START_S):
            while not log.exists() or "initialize" not in log.read_text(encoding="utf-8"):  # noqa: ASYNC110
                await anyio.sleep(0.05)  # the upstream is in its handshake: the gateway is starting
        children = children_of(process.pid)
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(STOP_S):
            code = await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            await stop(process, signal.SIGKILL)
    assert code == 0, await _said(process)
    assert still_running(children) == set()
    assert not (tmp_path / "toolpool.db-wal").exists()  # the store was closed, its log checkpointed


async def _said(process: anyio.abc.Process) -> str:
    """What an exited process wrote on stderr."""
    assert process.stderr is not None
    chunks = []
    with anyio.move_on_after(WAIT_S):
        chunks = [chunk async for chunk in process.stderr]
    return b"".join(chunks).decode(errors="replace")
