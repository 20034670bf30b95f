"""The record of one agent run: every model request with the tools it showed, every tool
call with the code it came to, every answer. The demo prints it; tests assert on it.

Agents are named ``lead``, ``subagent:NAME`` and ``teammate:NAME``; ``request`` counts that
agent's model requests within one run, from 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["AnswerEntry", "CallEntry", "Entry", "RequestEntry", "Transcript"]


@dataclass(frozen=True, slots=True)
class RequestEntry:
    """One model request: the snapshot it was built from (None for roles without MCP tools),
    the tool names shown in order, and their estimated prompt tokens. ``search`` says the
    list was over the context budget, so ``search_tools`` stood in for the MCP tools."""

    agent: str
    request: int
    snapshot_version: int | None
    tools: tuple[str, ...]
    tool_tokens: int
    search: bool = False

    kind = "request"


@dataclass(frozen=True, slots=True)
class CallEntry:
    """One tool call of a reply: ``code`` is the Envelope's code for MCP tools, and for the
    builtins ``ok``, ``unknown_tool``, ``invalid_arguments``, ``refused`` or ``failed``.
    ``text`` is exactly what the model was given back."""

    agent: str
    request: int
    call_id: str
    name: str
    code: str
    text: str

    kind = "call"


@dataclass(frozen=True, slots=True)
class AnswerEntry:
    """The model's final answer; ``completed`` is False when the turn limit ended the run."""

    agent: str
    request: int
    text: str
    completed: bool = True

    kind = "answer"


Entry = RequestEntry | CallEntry | AnswerEntry


class Transcript:
    """Entries in the order they happened, across the Lead and everyone it delegated to."""

    def __init__(self, on_entry: Callable[[Entry], None] | None = None) -> None:
        self._entries: list[Entry] = []
        self._on_entry = on_entry

    def add(self, entry: Entry) -> None:
        self._entries.append(entry)
        if self._on_entry is not None:
            self._on_entry(entry)

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    def requests(self, agent: str | None = None) -> tuple[RequestEntry, ...]:
        return tuple(e for e in self._entries if isinstance(e, RequestEntry) and agent in (None, e.agent))

    def calls(self, agent: str | None = None) -> tuple[CallEntry, ...]:
        return tuple(e for e in self._entries if isinstance(e, CallEntry) and agent in (None, e.agent))

    def to_list(self) -> list[dict[str, Any]]:
        """Plain JSON data, one object per entry with its ``kind``."""
        return [{"kind": entry.kind, **asdict(entry)} for entry in self._entries]
