"""toolpool's tools as a pydantic-ai toolset (``pip install 'toolpool[pydantic-ai]'``).

    from pydantic_ai import Agent
    from toolpool.integrations.pydantic_ai import ToolpoolToolset

    async with Pool(config) as pool:
        agent = Agent(model, toolsets=[ToolpoolToolset(pool, ticket=Ticket.allow("demo.*"))])
        result = await agent.run("look up k1")

pydantic-ai asks a toolset for its tools at every step of a run, that is once per model
request: each time, the toolset takes a fresh turn (one snapshot), and the tools it returns
carry that turn, so the calls of the reply run against exactly what the model was shown.
Arguments reach toolpool's gate 5 unchanged (pydantic-ai only checks they are an object);
refusals come back as the tool's result, starting with their code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolpool.errors import MissingExtra

try:
    import pydantic_core
    from pydantic_ai import RunContext
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
except ImportError as exc:  # pragma: no cover - exercised in a venv without the extra
    raise MissingExtra(__name__, "pydantic-ai") from exc

from toolpool.agent import ContextBudget, Turn
from toolpool.integrations._core import FrameworkLead, result_text, run_call
from toolpool.pool import Pool
from toolpool.tickets import Ticket

__all__ = ["ToolpoolToolset"]

# Any JSON object passes here: the tool's own compiled schema is toolpool's gate 5, which
# answers bad arguments with ``invalid_arguments`` instead of a framework retry.
_ANY_OBJECT = pydantic_core.SchemaValidator(
    pydantic_core.core_schema.dict_schema(
        pydantic_core.core_schema.str_schema(), pydantic_core.core_schema.any_schema()
    )
)


@dataclass(kw_only=True)
class _TurnTool(ToolsetTool[Any]):
    """A tool as one model request showed it, with the turn its calls run against."""

    turn: Turn


class ToolpoolToolset(FrameworkLead, AbstractToolset[Any]):
    """The tools of a toolpool session, for a pydantic-ai ``Agent``.

    Args:
        pool: an entered ``Pool``.
        ticket: what the agent may call (nothing else is shown, R10).
        principal: whom the session acts for; by default the ticket's.
        budget: above ``budget.max_tool_tokens``, ``search_tools`` stands in for the MCP tools.
        resume: a session id to resume (it keeps its original release, R15).
        id: the toolset's id among the agent's toolsets.
        max_retries: pydantic-ai's retry budget for these tools.
    """

    def __init__(
        self,
        pool: Pool,
        *,
        ticket: Ticket,
        principal: str | None = None,
        budget: ContextBudget | None = None,
        resume: str | None = None,
        id: str | None = "toolpool",
        max_retries: int = 1,
    ) -> None:
        super().__init__(pool, ticket=ticket, principal=principal, budget=budget, resume=resume)
        self._id = id
        self._max_retries = max_retries

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        turn = self.turn()
        return {
            spec.name: _TurnTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=spec.name,
                    description=spec.description,
                    parameters_json_schema=dict(spec.input_schema),
                    # the Lead runs a reply's calls in order: connect_mcp before what follows it
                    sequential=True,
                ),
                max_retries=self._max_retries,
                args_validator=_ANY_OBJECT,
                turn=turn,
            )
            for spec in turn.specs
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        if not isinstance(tool, _TurnTool):
            raise TypeError(f"{name} was not listed by this toolset")
        return result_text(await run_call(tool.turn, ctx.tool_call_id or name, name, tool_args))
