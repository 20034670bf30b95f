"""toolpool's tools for the OpenAI Agents SDK (``pip install 'toolpool[openai-agents]'``).

    from agents import Runner
    from toolpool.integrations.openai_agents import ToolpoolAgent, ToolpoolTools

    async with Pool(config) as pool:
        agent = ToolpoolAgent(name="lead", model=model,
                              toolpool=ToolpoolTools(pool, ticket=Ticket.allow("demo.*")))
        result = await Runner.run(agent, "look up k1")

The SDK asks an agent for its tools once per turn, that is once per model request
(``Agent.get_all_tools``). ``ToolpoolAgent`` answers with the agent's own tools plus a fresh
turn of toolpool's (one snapshot); each ``FunctionTool`` it builds runs its calls against that
turn, so the calls of a reply are judged by exactly what the model was shown. Arguments reach
toolpool's gate 5 as the model sent them (no strict-schema rewrite); refusals come back as
the tool's output, starting with their code. A call of a tool the request did not show is
the SDK's to answer: ``RunConfig(tool_not_found_behavior="return_error_to_model")`` tells the
model, as toolpool's own loop does, instead of ending the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from toolpool.errors import MissingExtra

try:
    from agents import Agent, FunctionTool, RunContextWrapper, Tool
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised in a venv without the extra
    raise MissingExtra(__name__, "openai-agents") from exc

from toolpool.agent import ToolSpec, Turn
from toolpool.integrations._core import FrameworkLead, result_text, run_call

__all__ = ["ToolpoolAgent", "ToolpoolTools"]


class ToolpoolTools(FrameworkLead):
    """The tools of a toolpool session; give it to a ``ToolpoolAgent``.

    Takes the arguments of ``FrameworkLead``: ``pool``, ``ticket``, ``principal``, ``budget``, ``resume``.
    """

    def for_request(self) -> list[FunctionTool]:
        """The tools of one model request, bound to its snapshot."""
        turn = self.turn()
        return [_function_tool(turn, spec) for spec in turn.specs]


@dataclass
class ToolpoolAgent(Agent[Any]):
    """An ``Agent`` whose tools include, at every model request, a fresh turn of ``toolpool``'s."""

    toolpool: ToolpoolTools | None = None

    async def get_all_tools(self, run_context: RunContextWrapper[Any]) -> list[Tool]:
        tools = await super().get_all_tools(run_context)
        if self.toolpool is None:
            return tools
        return [*tools, *self.toolpool.for_request()]


def _function_tool(turn: Turn, spec: ToolSpec) -> FunctionTool:
    async def invoke(context: ToolContext[Any], raw: str) -> str:
        try:
            parsed = json.loads(raw) if raw else {}
        except ValueError:
            parsed = None
        arguments = parsed if isinstance(parsed, dict) else None  # not an object: gate 5 says so
        return result_text(await run_call(turn, context.tool_call_id, spec.name, arguments))

    return FunctionTool(
        name=spec.name,
        description=spec.description,
        params_json_schema=dict(spec.input_schema),
        on_invoke_tool=invoke,
        strict_json_schema=False,  # the server's schema as vetted, not the SDK's strict rewrite
    )
