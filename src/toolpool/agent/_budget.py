"""What a tool list costs in a prompt, and how to show a model fewer tools.

A model pays for every tool it is shown, on every turn. Past a budget the agent shows a
``search_tools`` tool instead and, per query, the few tools a BM25 index ranks best:

- ``estimate_tokens`` prices a tool list (an estimate: no tokenizer, no dependency);
- ``order_tools`` fixes the order tools are shown in, so a provider's prompt cache keeps hitting;
- ``ToolIndex`` (from ``_search``) finds tools for a query written by the model;
- ``ContextBudget`` says when a list is too long to show whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolpool.agent._messages import ToolSpec
from toolpool.agent._search import DEFAULT_SEARCH_LIMIT, QUERY_MAX_CHARS, ToolIndex

__all__ = [
    "DEFAULT_MAX_TOOL_TOKENS",
    "DEFAULT_SEARCH_LIMIT",
    "QUERY_MAX_CHARS",
    "TOOL_OVERHEAD_TOKENS",
    "ContextBudget",
    "ToolIndex",
    "estimate_text_tokens",
    "estimate_tokens",
    "order_tools",
]

DEFAULT_MAX_TOOL_TOKENS = 8000
# BPE tokenizers average about four bytes of English text or JSON per token; counting UTF-8
# bytes rather than characters keeps CJK text (three bytes, about one token per character)
# from being priced at a quarter of a token per character.
BYTES_PER_TOKEN = 4
# What a provider wraps around each tool (type tags, a function header, separators): a rough
# constant, not measured against any particular provider.
TOOL_OVERHEAD_TOKENS = 8


def estimate_text_tokens(text: str) -> int:
    """About how many prompt tokens ``text`` costs: one per four UTF-8 bytes, rounded up."""
    size = len(text.encode("utf-8", "surrogatepass"))
    return (size + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


def estimate_tokens(tools: Iterable[ToolSpec]) -> int:
    """About how many prompt tokens showing ``tools`` costs; deterministic.

    Each tool is serialized as a provider would send it (name, description and input schema as
    compact JSON with sorted keys, non-ASCII kept as is), priced by ``estimate_text_tokens``,
    plus ``TOOL_OVERHEAD_TOKENS``. It is an estimate: real tokenizers differ by model, and a
    provider adds a fixed preamble once per request when tools are present, not counted here.
    """
    return sum(estimate_text_tokens(_serialized(tool)) + TOOL_OVERHEAD_TOKENS for tool in tools)


def order_tools(tools: Iterable[ToolSpec]) -> tuple[ToolSpec, ...]:
    """``tools`` sorted by name (code-point order): the same set is always shown the same way."""
    return tuple(sorted(tools, key=lambda tool: tool.name))


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """How many estimated tokens of tool specs a request may carry, and how many tools one
    search shows when the full list would not fit.

    Raises:
        ValueError: a limit below 1.
    """

    max_tool_tokens: int = DEFAULT_MAX_TOOL_TOKENS
    search_limit: int = DEFAULT_SEARCH_LIMIT

    def __post_init__(self) -> None:
        if self.max_tool_tokens < 1 or self.search_limit < 1:
            raise ValueError("max_tool_tokens and search_limit must be at least 1")

    def over(self, tools: Iterable[ToolSpec]) -> bool:
        """Whether showing ``tools`` whole would cost more than ``max_tool_tokens``."""
        return estimate_tokens(tools) > self.max_tool_tokens


def _serialized(tool: ToolSpec) -> str:
    shown = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
    return json.dumps(shown, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain)


def _plain(value: object) -> Any:
    """JSON for what ``json`` cannot encode itself: read-only mappings, sequences, the rest as text."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    return str(value)
