"""The pydantic-ai toolset with pydantic-ai's own FunctionModel against the real demo server:
one snapshot per model request, every call through the session's gates, refusals as results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.integrations.scenario import (
    ANY,
    ECHO,
    LOOKUP,
    TIMEOUT,
    alpha_config,
    disable_lookup,
    recorded_codes,
)
from toolpool import Pool
from toolpool.integrations.pydantic_ai import ToolpoolToolset

pytestmark = pytest.mark.anyio


class Script:
    """A FunctionModel's function: plays ``replies`` in order, noting what each request showed
    and the tool results it carried."""

    def __init__(self, *replies: Any) -> None:
        self._replies = list(replies)
        self.shown: list[list[str]] = []
        self.results: list[dict[str, str]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.shown.append(sorted(tool.name for tool in info.function_tools))
        last = messages[-1]
        returned = getattr(last, "parts", []) if isinstance(last, ModelRequest) else []
        self.results.append(
            {part.tool_call_id: str(part.content) for part in returned if hasattr(part, "tool_call_id")}
        )
        reply = self._replies.pop(0)
        return reply() if callable(reply) else reply


def call(name: str, args: dict[str, Any], call_id: str) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id)


async def test_a_tool_connected_during_a_turn_is_shown_and_callable_from_the_next_request(
    tmp_path: Path,
) -> None:
    script = Script(
        ModelResponse(
            parts=[
                call("connect_mcp", {"alias": "demo_alpha"}, "c1"),
                call(LOOKUP, {"key": "k1"}, "c2"),
            ]
        ),
        ModelResponse(parts=[call(LOOKUP, {"key": "k1"}, "c3")]),
        ModelResponse(parts=[TextPart("k1 is alpha:v1")]),
    )
    async with Pool(alpha_config(tmp_path)) as pool:
        agent = Agent(FunctionModel(script), toolsets=[ToolpoolToolset(pool, ticket=ANY)])
        with anyio.fail_after(TIMEOUT):
            result = await agent.run("look up k1")
    assert LOOKUP not in script.shown[0]
    assert LOOKUP in script.shown[1] and ECHO in script.shown[1]
    assert script.results[1]["c1"].startswith("connected demo_alpha")
    # not in the request's tools: pydantic-ai answers it as unknown itself, nothing runs
    assert "Unknown tool name" in script.results[1]["c2"] and "alpha:v1" not in script.results[1]["c2"]
    assert "alpha:v1" in script.results[2]["c3"]
    assert result.output == "k1 is alpha:v1"


async def test_a_tool_disabled_during_a_turn_is_refused_with_its_code_and_gone_from_the_next_request(
    tmp_path: Path,
) -> None:
    async with Pool(alpha_config(tmp_path)) as pool:

        def disable_then_call() -> ModelResponse:
            disable_lookup(pool)
            return ModelResponse(parts=[call(LOOKUP, {"key": "k1"}, "c2")])

        script = Script(
            ModelResponse(parts=[call(LOOKUP, {"key": "k1"}, "c1")]),
            disable_then_call,
            ModelResponse(parts=[TextPart("done")]),
        )
        agent = Agent(FunctionModel(script), toolsets=[ToolpoolToolset(pool, ticket=ANY)])
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await agent.run("look up k1 twice")
    assert LOOKUP in script.shown[0] and LOOKUP in script.shown[1]
    assert "alpha:v1" in script.results[1]["c1"]
    assert script.results[2]["c2"].startswith("[tool_disabled]")
    assert LOOKUP not in script.shown[2] and ECHO in script.shown[2]


async def test_invalid_arguments_are_refused_by_toolpool_and_never_reach_the_server(tmp_path: Path) -> None:
    script = Script(
        ModelResponse(parts=[call(LOOKUP, {"key": 5, "extra": True}, "c1")]),
        ModelResponse(parts=[TextPart("done")]),
    )
    async with Pool(alpha_config(tmp_path)) as pool:
        agent = Agent(FunctionModel(script), toolsets=[ToolpoolToolset(pool, ticket=ANY)])
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await agent.run("look up")
    assert script.results[1]["c1"].startswith("[invalid_arguments]")
    assert recorded_codes(tmp_path) == [("lookup", "invalid_arguments")]
