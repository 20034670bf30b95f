"""The LangChain/LangGraph adapter with LangChain's own fake chat model against the real demo
server: one snapshot per model request, every call through the session's gates, refusals as
results."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from pydantic import Field

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
from toolpool.integrations.langchain import ToolpoolTools

pytestmark = pytest.mark.anyio


class FakeChat(GenericFakeChatModel):
    """LangChain's fake chat model, noting the tools bound for each request."""

    shown: list[list[str]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> FakeChat:
        self.shown.append(sorted(tool.name for tool in tools))
        return self


def call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def results(messages: Sequence[BaseMessage]) -> dict[str, ToolMessage]:
    return {message.tool_call_id: message for message in messages if isinstance(message, ToolMessage)}


async def run(pool: Pool, model: FakeChat, prompt: str) -> dict[str, ToolMessage]:
    graph = ToolpoolTools(pool, ticket=ANY).agent_graph(model)
    with anyio.fail_after(TIMEOUT):
        state = await graph.ainvoke({"messages": [("user", prompt)]})
    assert state["messages"][-1].content == "done"
    return results(state["messages"])


async def test_a_tool_connected_during_a_turn_is_shown_and_callable_from_the_next_request(
    tmp_path: Path,
) -> None:
    first = AIMessage(
        content="",
        tool_calls=[
            {"name": "connect_mcp", "args": {"alias": "demo_alpha"}, "id": "c1"},
            {"name": LOOKUP, "args": {"key": "k1"}, "id": "c2"},
        ],
    )
    model = FakeChat(messages=iter([first, call(LOOKUP, {"key": "k1"}, "c3"), AIMessage("done")]))
    async with Pool(alpha_config(tmp_path)) as pool:
        found = await run(pool, model, "look up k1")
    assert LOOKUP not in model.shown[0]
    assert LOOKUP in model.shown[1] and ECHO in model.shown[1]
    assert str(found["c1"].content).startswith("connected demo_alpha")
    assert str(found["c2"].content).startswith("[unknown_tool]") and found["c2"].status == "error"
    assert "alpha:v1" in str(found["c3"].content) and found["c3"].status == "success"
    assert recorded_codes(tmp_path) == [(LOOKUP, "unknown_tool"), ("lookup", "ok")]


async def test_a_tool_disabled_during_a_turn_is_refused_with_its_code_and_gone_from_the_next_request(
    tmp_path: Path,
) -> None:
    async with Pool(alpha_config(tmp_path)) as pool:

        def replies() -> Iterator[AIMessage]:
            yield call(LOOKUP, {"key": "k1"}, "c1")
            disable_lookup(pool)
            yield call(LOOKUP, {"key": "k1"}, "c2")
            yield AIMessage("done")

        model = FakeChat(messages=replies())
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
        found = await run(pool, model, "look up k1 twice")
    assert LOOKUP in model.shown[0] and LOOKUP in model.shown[1]
    assert "alpha:v1" in str(found["c1"].content)
    assert str(found["c2"].content).startswith("[tool_disabled]") and found["c2"].status == "error"
    assert LOOKUP not in model.shown[2] and ECHO in model.shown[2]


async def test_invalid_arguments_are_refused_by_toolpool_and_never_reach_the_server(tmp_path: Path) -> None:
    model = FakeChat(messages=iter([call(LOOKUP, {"key": 5, "extra": True}, "c1"), AIMessage("done")]))
    async with Pool(alpha_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
        found = await run(pool, model, "look up")
    assert str(found["c1"].content).startswith("[invalid_arguments]")
    assert recorded_codes(tmp_path) == [("lookup", "invalid_arguments")]


async def test_a_reply_from_no_request_of_this_agent_runs_nothing(tmp_path: Path) -> None:
    async with Pool(alpha_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            answers = await ToolpoolTools(pool, ticket=ANY).run_calls(call(LOOKUP, {"key": "k1"}, "c1"))
    assert [str(answer.content)[:14] for answer in answers] == ["[unknown_tool]"]
    assert recorded_codes(tmp_path) == []
