"""The loop every role runs: for each model request, take the tools of that moment (a
``Turn``), send the conversation and that tool list, run the reply's tool calls against that
same turn, append the results, repeat until the model answers or the turn limit.

A ``Turn`` is the snapshot rule made concrete: a call is judged by the tools of the request
whose reply made it, never by what changed while the reply was being run.

With telemetry on, each model request is a ``chat <model>`` span (with the tokens the provider
reported) and each tool call an ``execute_tool <tool>`` span (GenAI conventions).

A ``Meter`` (the Lead's session, for every role it runs) is told of each answered request:
the model's name, the list tokens per alias of the MCP tools it was shown, and the usage the
provider reported — the usage ledger's part of the agent runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from jsonschema import Draft202012Validator

from toolpool.agent._budget import estimate_tokens
from toolpool.agent._messages import (
    AssistantMessage,
    Message,
    Model,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from toolpool.agent._transcript import AnswerEntry, CallEntry, RequestEntry, Transcript
from toolpool.telemetry import SpanKind, Telemetry, mark_outcome, plain_name, traced
from toolpool.telemetry import _names as names

__all__ = ["AgentRun", "Meter", "Outcome", "Turn", "converse", "invalid_arguments", "not_shown"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one tool call came to: the text the model gets back, and its code."""

    text: str
    code: str

    @property
    def is_error(self) -> bool:
        return self.code != "ok"


class Turn(Protocol):
    """The tools of one model request, and how a call from its reply is run."""

    @property
    def snapshot_version(self) -> int | None: ...

    @property
    def specs(self) -> tuple[ToolSpec, ...]: ...

    @property
    def search(self) -> bool: ...

    @property
    def listed(self) -> Mapping[str, int]:
        """The estimated list tokens, per alias, of the MCP tools this request shows."""
        ...

    async def run(self, call: ToolCall) -> Outcome: ...


class Meter(Protocol):
    """Counts one answered model request: the model's name, ``Turn.listed``, and the usage
    its provider reported."""

    def __call__(self, model: str, listed: Mapping[str, int], usage: Usage) -> None: ...


@dataclass(frozen=True, slots=True)
class AgentRun:
    """The result of ``run``: the answer, whether the model gave one before the turn limit,
    and the transcript (shared with everyone the run delegated to)."""

    answer: str
    completed: bool
    transcript: Transcript


async def converse(
    model: Model,
    system: str,
    messages: list[Message],
    *,
    agent: str,
    transcript: Transcript,
    max_turns: int,
    max_tokens: int,
    next_turn: Callable[[], Turn],
    meter: Meter | None = None,
    telemetry: Telemetry | None = None,
) -> tuple[str, bool]:
    """Run the loop on ``messages`` (appended to in place); the answer and whether it came.
    ``meter`` is told of every answered request; ``telemetry`` traces each request and call."""
    telemetry = telemetry if telemetry is not None else Telemetry.off()
    for request in range(1, max_turns + 1):
        turn = next_turn()
        transcript.add(
            RequestEntry(
                agent,
                request,
                turn.snapshot_version,
                tuple(spec.name for spec in turn.specs),
                estimate_tokens(turn.specs),
                turn.search,
            )
        )
        chat = {names.OPERATION: "chat", names.REQUEST_MODEL: plain_name(model.name), "toolpool.agent": agent}
        with traced(telemetry, f"chat {plain_name(model.name)}", SpanKind.CLIENT, chat) as span:
            reply = await model.complete(ModelRequest(system, tuple(messages), turn.specs, max_tokens))
            if span.is_recording():
                span.set_attributes(
                    {
                        names.INPUT_TOKENS: reply.usage.input_tokens,
                        names.OUTPUT_TOKENS: reply.usage.output_tokens,
                    }
                )
        if meter is not None:
            meter(model.name, turn.listed, reply.usage)
        messages.append(AssistantMessage(reply.text, reply.tool_calls))
        if not reply.tool_calls:
            transcript.add(AnswerEntry(agent, request, reply.text))
            return reply.text, True
        for call in reply.tool_calls:
            tool = plain_name(call.name)
            executed = {
                names.OPERATION: "execute_tool",
                names.TOOL_NAME: tool,
                names.TOOL_CALL_ID: plain_name(call.id),
            }
            with traced(telemetry, f"execute_tool {tool}", SpanKind.INTERNAL, executed) as span:
                outcome = await turn.run(call)
                mark_outcome(span, outcome.code)
            transcript.add(CallEntry(agent, request, call.id, call.name, outcome.code, outcome.text))
            messages.append(ToolResult(call.id, call.name, outcome.text, outcome.is_error))
    transcript.add(AnswerEntry(agent, max_turns, "", completed=False))
    return "", False


def not_shown(name: str) -> Outcome:
    shown = repr(name) if len(name) <= 80 else repr(name[:80] + "\u2026")
    return Outcome(f"{shown} is not a tool of this request", "unknown_tool")


def invalid_arguments(name: str, problem: str) -> Outcome:
    return Outcome(f"the arguments of {name} are invalid: {problem}", "invalid_arguments")


class BuiltinSchema:
    """A builtin tool's schema with its validator: a builtin takes exactly what it declares."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        Draft202012Validator.check_schema(schema)
        self.schema = schema
        self._validator = Draft202012Validator(schema)

    def problem(self, arguments: Mapping[str, Any] | None) -> str | None:
        if arguments is None:
            return "they are not a JSON object"
        error = next(iter(self._validator.iter_errors(dict(arguments))), None)
        if error is None:
            return None
        where = "/".join(str(part) for part in error.absolute_path) or "the arguments"
        return f"{where}: {error.validator} check failed"
