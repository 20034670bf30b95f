"""paged really paginates tools/list, and its second-page cursor is the empty string."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import anyio
import pytest
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS, TextContent, Tool

Connect = Callable[..., AbstractAsyncContextManager[Client]]

X_SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}

# Far more pages than any case here needs: a server that never ends its listing fails the test.
PAGE_CAP = 100


async def walk_pages(client: Client) -> tuple[list[Tool], list[str | None]]:
    """Every tool, page by page, and the next cursor each page returned."""
    tools: list[Tool] = []
    cursors: list[str | None] = []
    cursor: str | None = None
    for _ in range(PAGE_CAP):
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        tools.extend(page.tools)
        cursors.append(page.next_cursor)
        if page.next_cursor is None:
            return tools, cursors
        cursor = page.next_cursor
    raise AssertionError(f"tools/list did not end within {PAGE_CAP} pages")


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "era"), [("stdio", "legacy"), ("http", "2026-07-28")])
async def test_paged_lists_all_tools_across_pages_behind_one_empty_cursor(
    transport: str, era: str, demo: Connect
) -> None:
    with anyio.fail_after(30):
        async with demo("paged", transport=transport, era=era) as client:
            tools, cursors = await walk_pages(client)
            assert [tool.name for tool in tools] == [f"tool_{n:03d}" for n in range(300)]
            assert len(cursors) == 6
            assert cursors[0] == ""
            assert cursors[-1] is None
            assert all(cursor for cursor in cursors[1:-1])
            assert len(set(cursors)) == 6
            assert tools[7].description == "Demo tool 007"
            assert all(tool.input_schema == X_SCHEMA for tool in tools)
            result = await client.call_tool("tool_123", {"x": 5})
            [block] = result.content
            assert isinstance(block, TextContent)
            assert block.text == "tool_123:5"
            with pytest.raises(MCPError) as refused:
                await client.list_tools(cursor="not-a-cursor", cache_mode="bypass")
            assert refused.value.code == INVALID_PARAMS


@pytest.mark.anyio
async def test_paged_widens_names_past_a_thousand_tools_and_honours_page_size(demo: Connect) -> None:
    with anyio.fail_after(30):
        async with demo("paged", args=["--tools", "1001", "--page-size", "400"]) as client:
            tools, cursors = await walk_pages(client)
    assert [tool.name for tool in tools] == [f"tool_{n:04d}" for n in range(1001)]
    assert cursors[:1] == [""]
    assert len(cursors) == 3
