"""The agent runtime traces each model request (``chat``, with the provider's token counts) and
each tool execution (``execute_tool``), the pool's gate span nested in the tool's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from opentelemetry.trace import SpanKind

from tests.helpers import ALPHA_TOOLS, demo_server, write_config
from tests.telemetry.otel_helpers import Recorded, recorded
from toolpool import Pool, Ticket
from toolpool.agent import Lead, ModelReply, ToolCall, Usage
from toolpool.agent.models import ScriptedModel

pytestmark = pytest.mark.anyio

TIMEOUT = 60


@pytest.fixture
def otel() -> Iterator[Recorded]:
    yield from recorded()


async def test_each_model_request_and_each_tool_execution_is_a_span_with_tokens_and_codes(
    tmp_path: Path, otel: Recorded
) -> None:
    lookup = ToolCall("c2", "mcp__demo_alpha__lookup", {"key": "k1"})
    model = ScriptedModel(
        [
            ModelReply(
                tool_calls=(ToolCall("c1", "connect_mcp", {"alias": "demo_alpha"}), lookup),
                stop_reason="tool_use",
                usage=Usage(input_tokens=120, output_tokens=30),
            ),
            ModelReply(
                tool_calls=(lookup,), stop_reason="tool_use", usage=Usage(input_tokens=200, output_tokens=20)
            ),
            ModelReply(text="k1 is alpha:v1", usage=Usage(input_tokens=260, output_tokens=9)),
        ]
    )
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS))
    async with Pool(config, store=False, telemetry=otel.telemetry) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=Ticket.allow("*")).run("look up k1")
    assert run.completed
    chats = otel.spans("chat ")
    assert [s.kind for s in chats] == [SpanKind.CLIENT] * 3
    assert [
        (s.attributes["gen_ai.usage.input_tokens"], s.attributes["gen_ai.usage.output_tokens"]) for s in chats
    ] == [  # type: ignore[index]
        (120, 30),
        (200, 20),
        (260, 9),
    ]
    assert all(s.attributes["gen_ai.operation.name"] == "chat" for s in chats)  # type: ignore[index]
    executed = otel.spans("execute_tool ")
    outcomes = [(s.attributes["gen_ai.tool.name"], s.attributes.get("error.type", "ok")) for s in executed]  # type: ignore[index, union-attr]
    assert outcomes == [
        ("connect_mcp", "ok"),
        ("mcp__demo_alpha__lookup", "unknown_tool"),  # connected during the reply: next request only
        ("mcp__demo_alpha__lookup", "ok"),
    ]
    (gates,) = otel.spans("toolpool.call lookup")
    assert gates.parent is not None and gates.parent.span_id == executed[2].context.span_id
    connect = otel.spans("connect demo_alpha")
    assert len(connect) == 1 and connect[0].parent is not None
    assert connect[0].parent.span_id == executed[0].context.span_id
