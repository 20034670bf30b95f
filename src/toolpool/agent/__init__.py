"""The agent runtime: a Lead that manages the tool pool, and the Subagents and Teammates it
delegates to, over one loop that takes a fresh snapshot for every model request.

    from toolpool.agent import Lead, Subagent, ScriptedModel

    async with Pool(config) as pool:
        lead = Lead(pool, model, ticket=Ticket.allow("demo.*"), helpers={"researcher": Subagent(model2)})
        run = await lead.run("look up k1")
        run.answer, run.transcript.to_list()
"""

from toolpool.agent._budget import ContextBudget, ToolIndex, estimate_tokens, order_tools
from toolpool.agent._helpers import Helper, Subagent, Teammate
from toolpool.agent._lead import Lead
from toolpool.agent._loop import AgentRun, Outcome, Turn
from toolpool.agent._messages import (
    AssistantMessage,
    Message,
    Model,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    UserMessage,
)
from toolpool.agent._transcript import AnswerEntry, CallEntry, Entry, RequestEntry, Transcript

__all__ = [
    "AgentRun",
    "AnswerEntry",
    "AssistantMessage",
    "CallEntry",
    "ContextBudget",
    "Entry",
    "Helper",
    "Lead",
    "Message",
    "Model",
    "ModelReply",
    "ModelRequest",
    "Outcome",
    "RequestEntry",
    "Subagent",
    "Teammate",
    "ToolCall",
    "ToolIndex",
    "ToolResult",
    "ToolSpec",
    "Transcript",
    "Turn",
    "Usage",
    "UserMessage",
    "estimate_tokens",
    "order_tools",
]
