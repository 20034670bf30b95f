"""Subagents and Teammates: agents the Lead delegates to. They never see MCP tools or the
management tools (R16): they hold no pool, their tool list is empty, and any tool call they
make, by any name, is answered ``unknown_tool`` without reaching anything.

A Subagent starts a fresh conversation for every task; a Teammate keeps its conversation
across the tasks it is given, as a colleague remembers earlier requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from toolpool.agent._loop import AgentRun, Meter, Outcome, converse
from toolpool.agent._messages import Message, Model, ToolCall, ToolSpec, UserMessage
from toolpool.agent._transcript import Transcript
from toolpool.telemetry import Telemetry

__all__ = ["Helper", "Subagent", "Teammate"]

SUBAGENT_SYSTEM = (
    "You are a subagent. Do the task you are given and answer with the result. You have no tools."
)
TEAMMATE_SYSTEM = (
    "You are a teammate of the lead agent. Answer each request it sends you; you remember "
    "earlier requests. You have no tools."
)


@dataclass(frozen=True, slots=True)
class _NoTools:
    """The turn of a role without tools: nothing is shown and every call is refused."""

    snapshot_version: int | None = None
    specs: tuple[ToolSpec, ...] = ()
    search: bool = False
    listed: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    async def run(self, call: ToolCall) -> Outcome:
        return Outcome(
            f"{call.name[:80]!r} is not a tool of this request: this agent has no tools", "unknown_tool"
        )


class Helper:
    """What Subagent and Teammate share: a model, a system prompt, a turn limit."""

    role = "helper"
    _keeps_conversation = False

    def __init__(
        self,
        model: Model,
        *,
        system: str | None = None,
        max_turns: int = 8,
        max_tokens: int = 4096,
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.model = model
        self.system = system if system is not None else self._default_system()
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self._messages: list[Message] = []

    async def run(
        self,
        task: str,
        *,
        name: str = "",
        transcript: Transcript | None = None,
        meter: Meter | None = None,
        telemetry: Telemetry | None = None,
    ) -> AgentRun:
        """Do ``task``; ``name`` is how the transcript calls this helper (``subagent:NAME``);
        ``meter`` counts its model requests (the Lead passes its session's, so a helper's
        tokens are billed to the Lead's principal and session); ``telemetry`` traces them.

        Raises:
            ModelError: the model failed.
        """
        transcript = transcript if transcript is not None else Transcript()
        messages = self._messages if self._keeps_conversation else []
        messages.append(UserMessage(task))
        answer, completed = await converse(
            self.model,
            self.system,
            messages,
            agent=f"{self.role}:{name}" if name else self.role,
            transcript=transcript,
            max_turns=self.max_turns,
            max_tokens=self.max_tokens,
            next_turn=_NoTools,
            meter=meter,
            telemetry=telemetry,
        )
        return AgentRun(answer, completed, transcript)

    def _default_system(self) -> str:
        return SUBAGENT_SYSTEM


class Subagent(Helper):
    """A fresh conversation for every task it is given."""

    role = "subagent"


class Teammate(Helper):
    """One conversation across every task it is given."""

    role = "teammate"
    _keeps_conversation = True

    def _default_system(self) -> str:
        return TEAMMATE_SYSTEM
