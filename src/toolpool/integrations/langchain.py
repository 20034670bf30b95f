"""toolpool's tools for LangChain and LangGraph (``pip install 'toolpool[langchain]'``).

    from toolpool.integrations.langchain import ToolpoolTools

    async with Pool(config) as pool:
        tools = ToolpoolTools(pool, ticket=Ticket.allow("demo.*"))
        graph = tools.agent_graph(chat_model)          # a LangGraph: model <-> tools
        state = await graph.ainvoke({"messages": [("user", "look up k1")]})

A LangChain chat model is bound to a fixed list of tools, so the graph's model node binds a
fresh turn's tools (one snapshot) at every model request, and its tools node runs the reply's
calls against the turn of the request that made them, in order, through the session's gates.
A refusal is a ``ToolMessage`` (status ``error``) whose content starts with its code.

``for_request()`` gives the tools of one request as ``StructuredTool``s for a loop of your own:
call it once per model request and run that reply's calls with those tools.
"""

from __future__ import annotations

from typing import Any

from toolpool.errors import MissingExtra

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.prebuilt import tools_condition
except ImportError as exc:  # pragma: no cover - exercised in a venv without the extra
    raise MissingExtra(__name__, "langchain") from exc

from toolpool.agent import ToolSpec, Turn
from toolpool.integrations._core import FrameworkLead, result_text, run_call
from toolpool.pool import Pool
from toolpool.tickets import Ticket

__all__ = ["ToolpoolTools"]

_UNMATCHED = "it does not answer a model request of this agent"


class ToolpoolTools(FrameworkLead):
    """The tools of a toolpool session, for LangChain models and LangGraph graphs.

    Takes the arguments of ``FrameworkLead``: ``pool``, ``ticket``, ``principal``, ``budget``, ``resume``.
    """

    def __init__(self, pool: Pool, *, ticket: Ticket, **options: Any) -> None:
        super().__init__(pool, ticket=ticket, **options)
        self._turns: dict[str, Turn] = {}  # the reply's message id -> the turn it answered

    def for_request(self) -> list[BaseTool]:
        """The tools of one model request, bound to its snapshot."""
        turn = self.turn()
        return [_structured_tool(turn, spec) for spec in turn.specs]

    async def call_model(self, model: BaseChatModel, messages: list[AnyMessage]) -> AIMessage:
        """One model request: a fresh turn's tools bound to ``model``; the reply remembers the turn."""
        turn = self.turn()
        bound = model.bind_tools([_structured_tool(turn, spec) for spec in turn.specs])
        reply = await bound.ainvoke(messages)
        if not isinstance(reply, AIMessage):
            raise TypeError(f"the chat model answered with {type(reply).__name__}, not an AIMessage")
        if reply.tool_calls:
            reply.id = reply.id or f"toolpool-{id(reply)}-{len(self._turns)}"
            self._turns[reply.id] = turn
        return reply

    async def run_calls(self, reply: AIMessage) -> list[ToolMessage]:
        """The calls of ``reply``, in order, against the turn of the request it answered."""
        turn = self._turns.pop(reply.id, None) if reply.id else None
        answers = []
        for call in reply.tool_calls:
            call_id = call.get("id") or ""
            if turn is None:
                text, ok = f"[unknown_tool] {call['name'][:80]!r} cannot run: {_UNMATCHED}", False
            else:
                outcome = await run_call(turn, call_id, call["name"], call.get("args"))
                text, ok = result_text(outcome), not outcome.is_error
            answers.append(
                ToolMessage(
                    text, tool_call_id=call_id, name=call["name"], status="success" if ok else "error"
                )
            )
        return answers

    def agent_graph(self, model: BaseChatModel) -> CompiledStateGraph[Any, Any, Any, Any]:
        """A LangGraph agent: ``model`` (a fresh turn per request) and ``tools``, until it answers."""

        async def model_node(state: MessagesState) -> dict[str, list[AnyMessage]]:
            return {"messages": [await self.call_model(model, state["messages"])]}

        async def tools_node(state: MessagesState) -> dict[str, list[ToolMessage]]:
            last = state["messages"][-1]
            return {"messages": await self.run_calls(last) if isinstance(last, AIMessage) else []}

        graph = StateGraph(MessagesState)
        graph.add_node("model", model_node)
        graph.add_node("tools", tools_node)
        graph.add_edge(START, "model")
        graph.add_conditional_edges("model", tools_condition)
        graph.add_edge("tools", "model")
        return graph.compile()


def _structured_tool(turn: Turn, spec: ToolSpec) -> StructuredTool:
    async def run(**arguments: Any) -> str:
        return result_text(await run_call(turn, "", spec.name, arguments))

    return StructuredTool(
        name=spec.name,
        description=spec.description,
        args_schema=dict(spec.input_schema),
        coroutine=run,
    )
