"""What every framework adapter shares: a Lead without a model of its own.

The framework runs the loop and owns the model; toolpool keeps its rules. For each model
request the adapter takes one ``Turn`` (a fresh snapshot of the Lead's session, filtered by its
ticket and bound to its release), shows that turn's tools, and runs every call of the reply
through that same turn: through the session's gates, against the snapshot the model saw.
A refusal or failure is an ordinary tool result that starts with its code, so the model reads
why, and the framework never mistakes a policy decision for a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolpool.agent import ContextBudget, Lead, ModelReply, ModelRequest, Outcome, ToolCall, Turn
from toolpool.calls import Session
from toolpool.errors import UsageError
from toolpool.pool import Pool
from toolpool.tickets import Ticket

__all__ = ["FrameworkLead", "result_text", "run_call"]


class _FrameworkModel:
    """Stands in for the model a framework owns: the Lead's own loop never runs here."""

    name = "framework"

    async def complete(self, request: ModelRequest) -> ModelReply:
        raise UsageError("a framework's agent runs this Lead's loop: use its turn(), not run()")

    async def aclose(self) -> None:
        return None


class FrameworkLead:
    """The Lead's tools for an agent framework's loop; each adapter's public class is one.

    Args:
        pool: an entered ``Pool``; one session is opened on it (``principal``, ``ticket``).
        ticket: what the agent may call (R10: nothing else is shown).
        principal: whom the session acts for; by default the ticket's.
        budget: above ``budget.max_tool_tokens`` of MCP tools, ``search_tools`` stands in.
        resume: a session id to resume (R15: it keeps its original release).
    """

    def __init__(
        self,
        pool: Pool,
        *,
        ticket: Ticket,
        principal: str | None = None,
        budget: ContextBudget | None = None,
        resume: str | None = None,
    ) -> None:
        self._framework_lead = Lead(
            pool, _FrameworkModel(), ticket=ticket, principal=principal, budget=budget, resume=resume
        )

    @property
    def session(self) -> Session:
        """The pool session every call goes through."""
        return self._framework_lead.session

    def turn(self) -> Turn:
        """The tools of one model request; take exactly one per request."""
        return self._framework_lead.turn()


async def run_call(turn: Turn, call_id: str, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
    """One call of a reply, run against the turn whose request the model answered."""
    return await turn.run(ToolCall(call_id, name, arguments))


def result_text(outcome: Outcome) -> str:
    """What the model reads: the result, or the refusal with its code first."""
    return outcome.text if not outcome.is_error else f"[{outcome.code}] {outcome.text}"
