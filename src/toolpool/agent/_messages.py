"""What an agent and a model exchange, in no provider's format.

A model adapter maps these values to its provider's wire format and back; the loop only ever
sees these. Everything is frozen: a request, once sent, is a record of what the model saw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "AssistantMessage",
    "Message",
    "Model",
    "ModelReply",
    "ModelRequest",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "UserMessage",
]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as a model is shown it: local name, description, JSON Schema of its arguments."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call in a model's reply.

    ``arguments`` is the parsed JSON object, or ``None`` when the model sent arguments that
    are not a JSON object (``raw_arguments`` keeps what it sent); the loop answers such a call
    with ``invalid_arguments`` and never runs it.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] | None
    raw_arguments: str = ""


@dataclass(frozen=True, slots=True)
class UserMessage:
    text: str


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """A model's reply as it goes back into the conversation."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one tool call: ``text`` is already what a model may see (an Envelope's
    ``for_model()``, or a builtin's local text); ``is_error`` marks a refusal or failure."""

    call_id: str
    name: str
    text: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolResult


@dataclass(frozen=True, slots=True)
class Usage:
    """The tokens a provider reported for one reply (0 where it reported none); the Lead
    records them in the usage ledger."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One request to a model: the system prompt, the conversation and the tools shown."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096


@dataclass(frozen=True, slots=True)
class ModelReply:
    """A model's answer: text, tool calls (possibly several), and why it stopped."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str = "end"
    usage: Usage = field(default_factory=Usage)


@runtime_checkable
class Model(Protocol):
    """A model provider behind one interface.

    ``complete`` retries what is worth retrying (429, 5xx, a dropped connection) with backoff,
    bounds every attempt with a timeout, and raises ``ModelError`` (``ModelUnavailable``,
    ``ModelTimeout``, ``ModelRejected``) when it gives up. ``aclose`` is idempotent.
    """

    @property
    def name(self) -> str: ...

    async def complete(self, request: ModelRequest) -> ModelReply: ...

    async def aclose(self) -> None: ...
