"""What every demo server is built from: a table of tools served by the SDK's low-level `Server`.

Every kind uses `mcp.server.lowlevel.Server` rather than `MCPServer`: the contract fixes each
tool's exact `inputSchema` (`MCPServer` derives schemas from function signatures, adding
titles and dropping `additionalProperties: false`), and only the low-level server lets
`tools/list` paginate.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

__all__ = [
    "DEMO_VERSION",
    "DemoTool",
    "ListTools",
    "ToolHandler",
    "argument_problem",
    "build_server",
    "error_text",
    "server_name",
    "text",
]

DEMO_VERSION = "1.0.0"

ToolHandler = Callable[[Mapping[str, Any]], Awaitable[types.CallToolResult]]
"""Gets arguments already checked against the tool's own input schema."""

ListTools = Callable[
    [ServerRequestContext[Any], types.PaginatedRequestParams | None], Awaitable[types.ListToolsResult]
]

_JSON_TYPES: Mapping[str, Callable[[object], bool]] = {
    "string": lambda value: isinstance(value, str),
    # JSON Schema does not count booleans as integers, Python does.
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
}


@dataclass(frozen=True, slots=True)
class DemoTool:
    """One published tool: what `tools/list` announces and what `tools/call` runs."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    handler: ToolHandler

    def published(self) -> types.Tool:
        return types.Tool(
            name=self.name, description=self.description, input_schema=copy.deepcopy(dict(self.input_schema))
        )


def server_name(kind: str) -> str:
    return f"toolpool-demo-{kind}"


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=value)])


def error_text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=value)], is_error=True)


def argument_problem(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """Check arguments against the small schema subset the demo tools use; None when they fit.

    The subset is: an object with `properties` of type string or integer, `required` and
    `additionalProperties: false`. Anything richer is a demo tool this checker was not written for.
    """
    properties: Mapping[str, Mapping[str, Any]] = schema.get("properties", {})
    missing = [name for name in schema.get("required", ()) if name not in arguments]
    if missing:
        return f"missing {', '.join(missing)}"
    if schema.get("additionalProperties") is False:
        extra = sorted(set(arguments) - set(properties))
        if extra:
            return f"unexpected {', '.join(extra)}"
    for name, value in arguments.items():
        expected = properties.get(name, {}).get("type")
        if expected is not None and not _JSON_TYPES[expected](value):
            return f"{name} must be {expected}"
    return None


def build_server(kind: str, tools: Sequence[DemoTool], *, list_tools: ListTools | None = None) -> Server[Any]:
    """A low-level server named `toolpool-demo-<kind>` that serves `tools`.

    Without `list_tools`, `tools/list` answers every tool in one page.
    """
    by_name = {tool.name: tool for tool in tools}

    async def list_all(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool.published() for tool in tools])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = by_name.get(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool: {params.name}")
        arguments = params.arguments or {}
        problem = argument_problem(tool.input_schema, arguments)
        if problem is not None:
            return error_text(f"invalid arguments: {problem}")
        return await tool.handler(arguments)

    def input_schema(name: str) -> Mapping[str, Any] | None:
        # Without this the modern streamable-HTTP entry walks every tools/list page on each
        # tools/call to find the schema it checks `Mcp-Param-*` headers against.
        tool = by_name.get(name)
        return None if tool is None else tool.input_schema

    return Server(
        server_name(kind),
        version=DEMO_VERSION,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools or list_all,
        on_call_tool=call_tool,
    )
