"""paged: many tools behind a `tools/list` that really paginates, with a trap in its cursors.

Cursors are opaque random tokens, except the one returned after the first page: it is the
empty string. A client that reads `""` as "no more pages" stops after page one. An unknown
cursor is a JSON-RPC invalid-params error. `tool_NNN` called with `{"x": 5}` answers
`tool_NNN:5`; `x` is optional, and without it the text ends at the colon.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from toolpool.demo._toolbox import DemoTool, ListTools, build_server, text

__all__ = ["DEFAULT_PAGE_SIZE", "DEFAULT_TOOL_COUNT", "build_paged", "paged_tool_names"]

DEFAULT_TOOL_COUNT = 300
DEFAULT_PAGE_SIZE = 50

_SECOND_PAGE_CURSOR = ""

_X_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"x": {"type": "integer"}},
    "additionalProperties": False,
}


def paged_tool_names(count: int) -> tuple[str, ...]:
    """`tool_000` … zero-padded to three digits, or to as many as the largest number needs."""
    width = max(3, len(str(count - 1)))
    return tuple(f"tool_{number:0{width}d}" for number in range(count))


def _numbered_tool(name: str) -> DemoTool:
    number = name.removeprefix("tool_")

    async def answer(arguments: Mapping[str, Any]) -> types.CallToolResult:
        return text(f"{name}:{arguments.get('x', '')}")

    return DemoTool(name, f"Demo tool {number}", _X_SCHEMA, answer)


def _page_cursors(page_count: int) -> dict[str, int]:
    """Cursor → index of the page it opens; page 0 is the request without a cursor."""
    cursors = {_SECOND_PAGE_CURSOR: 1} if page_count > 1 else {}
    cursors.update({secrets.token_urlsafe(12): index for index in range(2, page_count)})
    return cursors


def _list_in_pages(tools: Sequence[DemoTool], page_size: int) -> ListTools:
    cursors = _page_cursors(math.ceil(len(tools) / page_size))
    cursor_of_page = {index: cursor for cursor, index in cursors.items()}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        cursor = None if params is None else params.cursor
        page = 0 if cursor is None else cursors.get(cursor)
        if page is None:
            raise MCPError(code=types.INVALID_PARAMS, message="unknown cursor")
        chunk = tools[page * page_size : (page + 1) * page_size]
        return types.ListToolsResult(
            tools=[tool.published() for tool in chunk], next_cursor=cursor_of_page.get(page + 1)
        )

    return list_tools


def build_paged(tool_count: int = DEFAULT_TOOL_COUNT, page_size: int = DEFAULT_PAGE_SIZE) -> Server[Any]:
    if tool_count < 0 or page_size < 1:
        raise ValueError("tool_count must be >= 0 and page_size >= 1")
    tools = tuple(_numbered_tool(name) for name in paged_tool_names(tool_count))
    return build_server("paged", tools, list_tools=_list_in_pages(tools, page_size))
