"""The gateway's part of the usage ledger: ``toolpool serve --stdio`` as a real process, spoken
to by the official MCP client. Every ``tools/list`` answer is counted per alias with the
estimated tokens of exactly the tools the client received, and every call with its record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest

from toolpool import load_config
from toolpool._list_tokens import definition_tokens
from toolpool.store import LISTING, Store

from .gateway_helpers import TEST_S, code_of, copy_config, stdio_client

pytestmark = pytest.mark.anyio


def _tokens_by_alias(listed: mcp_types.ListToolsResult) -> dict[str, int]:
    """The list tokens of the tools as the client received them, per alias (``mcp__ALIAS__tool``)."""
    tokens: dict[str, int] = {}
    for tool in listed.tools:
        shown: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.input_schema,
        }
        if tool.output_schema is not None:
            shown["outputSchema"] = tool.output_schema
        alias = tool.name.split("__")[1]
        tokens[alias] = tokens.get(alias, 0) + definition_tokens(shown)
    return tokens


async def test_every_tools_list_answer_is_counted_with_the_tokens_of_the_tools_the_client_received(
    tmp_path: Path,
) -> None:
    # faulty is served but none of its tools is granted: it must not be counted
    config = copy_config(tmp_path, ["demo_alpha", "demo_beta", "demo_faulty"])
    with anyio.fail_after(TEST_S):
        async with stdio_client(config, "legacy", "demo.*", "beta.*") as client:
            first = await client.list_tools()
            await client.list_tools()
            called = await client.call_tool("mcp__demo_alpha__lookup", {"key": "k1"})
    assert code_of(called) == "ok"
    expected = _tokens_by_alias(first)
    assert set(expected) == {"demo_alpha", "demo_beta"}
    with Store.open(load_config(config).store_url) as store:
        by_tool = {(t.key["alias"], t.key["tool"]): t for t in store.usage.totals("tool")}
        [principal] = store.usage.totals("principal")
    listed = {alias: (t.lists, t.list_tokens) for (alias, tool), t in by_tool.items() if tool == LISTING}
    assert listed == {alias: (2, 2 * tokens) for alias, tokens in expected.items()}
    lookup = by_tool["demo_alpha", "lookup"]
    assert (lookup.calls, lookup.codes, lookup.lists) == (1, {"ok": 1}, 0)
    assert principal.key["principal"].startswith("cli") and principal.lists == 4 and principal.calls == 1
