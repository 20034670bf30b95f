"""``toolpool serve`` clients and calls that wait for a person's approval, with the official
MCP client in both eras, over stdio and HTTP: the call comes back ``approval_pending`` with the
request's id in ``_meta``; an operator approves it (``toolpool approvals approve`` in another
process); the same call retried by the same client runs once. A legacy HTTP client's approval
is its MCP session's: another session making the same call asks anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client

from tests.helpers import BETA_TOOLS, demo_server, write_config

from .gateway_helpers import (
    ERAS,
    TEST_S,
    http_client,
    new_token,
    served,
    stdio_client,
    text_of,
    toolpool_async,
)

pytestmark = pytest.mark.anyio

WRITE = "mcp__demo_beta__write_note"


def _config(folder: Path) -> Path:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": "each_call"}}
    write_config(folder, demo_server("demo_beta", "beta", beta))
    return folder / "toolpool.toml"


def _meta(result: mcp_types.CallToolResult) -> dict[str, Any]:
    return dict(result.meta or {})


async def _pending(client: Client, text: str) -> str:
    result = await client.call_tool(WRITE, {"text": text})
    meta = _meta(result)
    assert result.is_error and meta["toolpool/code"] == "approval_pending", text_of(result)
    assert meta["toolpool/expires_at"] and meta["toolpool/approval_id"] in text_of(result)
    return str(meta["toolpool/approval_id"])


async def _approve(config: Path, approval_id: str) -> None:
    done = await toolpool_async(config, "approvals", "approve", approval_id, "--by", "olga", "--reason", "ok")
    assert done.returncode == 0, done.stderr


async def _runs_once(config: Path, client: Client) -> None:
    approval_id = await _pending(client, "from a client")
    assert await _pending(client, "from a client") == approval_id  # a retry before the decision
    await _approve(config, approval_id)
    ran = await client.call_tool(WRITE, {"text": "from a client"})
    assert not ran.is_error and _meta(ran)["toolpool/code"] == "ok" and "note-1" in text_of(ran)
    assert await _pending(client, "from a client") != approval_id  # used: the next call asks anew


@pytest.mark.parametrize("era", ERAS)
async def test_a_stdio_client_retries_an_approved_call_and_it_runs_once(tmp_path: Path, era: str) -> None:
    config = _config(tmp_path)
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, era, "beta.*") as client:
            await _runs_once(config, client)


@pytest.mark.parametrize("era", ERAS)
async def test_an_http_client_retries_an_approved_call_and_it_runs_once(tmp_path: Path, era: str) -> None:
    config = _config(tmp_path)
    token = new_token(config, "agent", "--allow", "beta.*")
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, era) as client,
        ):
            await _runs_once(config, client)


async def test_an_approval_belongs_to_the_legacy_http_session_that_asked(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = new_token(config, "agent", "--allow", "beta.*")
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            http_client(running.url, token, "legacy") as first,
        ):
            approval_id = await _pending(first, "mine")
            await _approve(config, approval_id)
            async with http_client(running.url, token, "legacy") as second:
                assert await _pending(second, "mine") != approval_id
            ran = await first.call_tool(WRITE, {"text": "mine"})
            assert not ran.is_error and "note-1" in text_of(ran)
