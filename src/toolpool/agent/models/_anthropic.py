"""Anthropic Messages, through the official ``anthropic`` SDK.

As with OpenAI, nothing comes from the environment: the key and base URL are always passed,
``ANTHROPIC_CUSTOM_HEADERS`` and ``ANTHROPIC_WEBHOOK_SIGNING_KEY`` (which the constructor reads
regardless) are cleared, OpenTelemetry is switched off explicitly rather than configured from
``ANTHROPIC_OPEN_TELEMETRY*``, and the default HTTP client ignores proxy variables.
"""

from __future__ import annotations

from typing import Any, Final

import anthropic
import httpx2

from toolpool.agent._messages import (
    AssistantMessage,
    Message,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from toolpool.agent.models._failures import (
    Settings,
    rejected_or_unavailable,
    retries_taken,
    timed_out,
    unreachable,
)
from toolpool.agent.models._json import dump_arguments, field, items, plain, tokens
from toolpool.agent.models._sdk import SdkModel
from toolpool.errors import ModelError, ModelUnavailable

__all__ = ["ANTHROPIC_BASE_URL", "AnthropicModel"]

ANTHROPIC_BASE_URL: Final = "https://api.anthropic.com"
_STOP_REASONS: Final = {"end_turn": "end", "stop_sequence": "end"}
# Prompt-cache reads and writes are input too; Usage has one input count.
_INPUT_KEYS: Final = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


class AnthropicModel(SdkModel):
    """A model behind the Messages API; ``name`` is ``anthropic:<model>``.

    ``base_url`` defaults to Anthropic's own (never to ``ANTHROPIC_BASE_URL``). Each attempt is
    bounded by ``timeout_s``; the SDK retries up to ``max_retries`` times with backoff,
    honouring ``retry-after-ms`` / ``retry-after``.

    Raises:
        UsageError: an empty ``api_key``, or a timeout or retry count out of range.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 60,
        max_retries: int = 3,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        settings = Settings(
            f"anthropic:{model}", api_key=api_key, timeout_s=timeout_s, max_retries=max_retries
        )
        super().__init__(settings, owns_http_client=http_client is None)
        self._model = model
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url or ANTHROPIC_BASE_URL,
            timeout=settings.timeout_s,
            max_retries=max_retries,
            open_telemetry=False,
            http_client=http_client or anthropic.DefaultAsyncHttpxClient(trust_env=False),
        )
        self._client.webhook_key = None
        self._client._custom_headers = {}  # ANTHROPIC_CUSTOM_HEADERS; no public way to drop it

    async def _send(self, request: ModelRequest) -> bytes:
        params = request_body(self._model, request)
        response = await self._client.messages.with_raw_response.create(**params)
        content: bytes = await response.read()
        return content

    def _read(self, body: dict[str, Any]) -> ModelReply:
        return read_reply(body)

    def _translate(self, exc: Exception) -> ModelError | None:
        if isinstance(exc, anthropic.APITimeoutError):
            return timed_out(self._settings, retries_taken(exc.request))
        if isinstance(exc, anthropic.APIConnectionError):
            return unreachable(self._settings, retries_taken(exc.request), exc.__cause__)
        if isinstance(exc, anthropic.APIStatusError):
            return rejected_or_unavailable(
                self._settings, exc.status_code, exc.body, retries_taken(exc.request)
            )
        if isinstance(exc, anthropic.AnthropicError):
            detail = self._settings.scrub(f"{type(exc).__name__}: {exc}")
            return ModelUnavailable(self.name, "the Anthropic SDK failed", detail=detail)
        return None

    async def _close_client(self) -> None:
        await self._client.close()


def request_body(model: str, request: ModelRequest) -> dict[str, Any]:
    """The Messages request for ``request``, as the JSON the provider receives."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": _messages(request.messages),
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    return body


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "input_schema": plain(spec.input_schema)}


def _messages(conversation: tuple[Message, ...]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the blocks of a user message of tool results
    for message in conversation:
        if isinstance(message, ToolResult):
            # All results answering one assistant turn must arrive in one user message.
            if results is None:
                results = []
                messages.append({"role": "user", "content": results})
            results.append(_tool_result(message))
            continue
        results = None
        if isinstance(message, AssistantMessage):
            content = _assistant_content(message)
            if content:  # the API refuses an empty turn, and an empty reply has nothing to show
                messages.append({"role": "assistant", "content": content})
        else:
            messages.append({"role": "user", "content": message.text})
    return messages


def _assistant_content(message: AssistantMessage) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": message.text}] if message.text else []
    # The API requires an object; arguments that were not one were refused, never run.
    content += [
        {"type": "tool_use", "id": call.id, "name": call.name, "input": plain(call.arguments or {})}
        for call in message.tool_calls
    ]
    return content


def _tool_result(result: ToolResult) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": result.call_id,
        "content": result.text,
        "is_error": result.is_error,
    }


def read_reply(body: dict[str, Any]) -> ModelReply:
    """The ``ModelReply`` in a Messages body: its text blocks joined, its tool_use blocks."""
    blocks = items(body, "content", "reply")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(blocks):
        where = f"reply.content[{index}]"
        kind = field(block, "type", str, where)
        if kind == "text":
            texts.append(field(block, "text", str, where))
        elif kind == "tool_use":
            calls.append(_tool_use(block, where))
        # thinking, redacted_thinking, server tools: nothing the loop acts on
    reason = field(body, "stop_reason", str, "reply", default="")
    usage = field(body, "usage", dict, "reply", default={})
    return ModelReply(
        text="".join(texts),
        tool_calls=tuple(calls),
        stop_reason=_STOP_REASONS.get(reason, reason) or ("tool_use" if calls else "end"),
        usage=Usage(tokens(usage, *_INPUT_KEYS), tokens(usage, "output_tokens")),
    )


def _tool_use(block: dict[str, Any], where: str) -> ToolCall:
    call_id = field(block, "id", str, where)
    name = field(block, "name", str, where)
    raw = block.get("input")
    if raw is None:  # a call without arguments
        return ToolCall(call_id, name, {}, "")
    return ToolCall(call_id, name, raw if isinstance(raw, dict) else None, dump_arguments(raw))
