"""The OpenAI Agents SDK adapter with a fake ``Model`` of the SDK against the real demo server:
one snapshot per model request, every call through the session's gates, refusals as results.
Tracing is off: nothing leaves the machine."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents import ModelResponse, RunConfig, Runner, Usage
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

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
from toolpool.integrations.openai_agents import ToolpoolAgent, ToolpoolTools

pytestmark = pytest.mark.anyio

# an unknown tool is an answer to the model, as in toolpool's own loop, not an exception
QUIET = RunConfig(tracing_disabled=True, tool_not_found_behavior="return_error_to_model")
Output = list[Any]


def call(name: str, args: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name=name, arguments=json.dumps(args), id=f"fc_{call_id}"
    )


def say(text: str) -> ResponseOutputMessage:
    content = [ResponseOutputText(type="output_text", text=text, annotations=[])]
    return ResponseOutputMessage(
        id="msg", type="message", role="assistant", status="completed", content=content
    )


class FakeModel(Model):
    """Plays scripted outputs in order, noting the tools each request showed and the tool
    outputs it carried."""

    def __init__(self, *outputs: Output | Callable[[], Output]) -> None:
        self._outputs = list(outputs)
        self.shown: list[list[str]] = []
        self.results: list[dict[str, str]] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        tools = args[2] if len(args) > 2 else kwargs["tools"]
        self.shown.append(sorted(tool.name for tool in tools))
        items = input if isinstance(input, list) else []
        self.results.append(
            {
                item["call_id"]: str(item["output"])
                for item in items
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            }
        )
        output = self._outputs.pop(0)
        return ModelResponse(output=output() if callable(output) else output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the tests run without streaming")


def agent(pool: Pool, model: FakeModel) -> ToolpoolAgent:
    return ToolpoolAgent(name="lead", model=model, toolpool=ToolpoolTools(pool, ticket=ANY))


async def test_a_tool_connected_during_a_turn_is_shown_and_callable_from_the_next_request(
    tmp_path: Path,
) -> None:
    model = FakeModel(
        [call("connect_mcp", {"alias": "demo_alpha"}, "c1"), call(LOOKUP, {"key": "k1"}, "c2")],
        [call(LOOKUP, {"key": "k1"}, "c3")],
        [say("k1 is alpha:v1")],
    )
    async with Pool(alpha_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            result = await Runner.run(agent(pool, model), "look up k1", run_config=QUIET)
    assert LOOKUP not in model.shown[0]
    assert LOOKUP in model.shown[1] and ECHO in model.shown[1]
    assert model.results[1]["c1"].startswith("connected demo_alpha")
    # not in the request's tools: the SDK answers it as unknown itself, nothing runs
    assert "not found" in model.results[1]["c2"] and "alpha:v1" not in model.results[1]["c2"]
    assert "alpha:v1" in model.results[2]["c3"]
    assert result.final_output == "k1 is alpha:v1"
    assert recorded_codes(tmp_path) == [("lookup", "ok")]


async def test_a_tool_disabled_during_a_turn_is_refused_with_its_code_and_gone_from_the_next_request(
    tmp_path: Path,
) -> None:
    async with Pool(alpha_config(tmp_path)) as pool:

        def disable_then_call() -> Output:
            disable_lookup(pool)
            return [call(LOOKUP, {"key": "k1"}, "c2")]

        model = FakeModel([call(LOOKUP, {"key": "k1"}, "c1")], disable_then_call, [say("done")])
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await Runner.run(agent(pool, model), "look up k1 twice", run_config=QUIET)
    assert LOOKUP in model.shown[0] and LOOKUP in model.shown[1]
    assert "alpha:v1" in model.results[1]["c1"]
    assert model.results[2]["c2"].startswith("[tool_disabled]")
    assert LOOKUP not in model.shown[2] and ECHO in model.shown[2]


async def test_invalid_arguments_are_refused_by_toolpool_and_never_reach_the_server(tmp_path: Path) -> None:
    model = FakeModel([call(LOOKUP, {"key": 5, "extra": True}, "c1")], [say("done")])
    async with Pool(alpha_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await Runner.run(agent(pool, model), "look up", run_config=QUIET)
    assert model.results[1]["c1"].startswith("[invalid_arguments]")
    assert recorded_codes(tmp_path) == [("lookup", "invalid_arguments")]
