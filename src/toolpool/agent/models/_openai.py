"""OpenAI Chat Completions, through the official ``openai`` SDK, for OpenAI and for the
OpenAI-compatible servers (vLLM, llama.cpp, Ollama) that ``base_url`` points at.

The SDK would fill what it is not given from the environment (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``, ``OPENAI_CUSTOM_HEADERS``...)
and its default HTTP client from proxy variables. A library must not: everything is passed
explicitly, and what the SDK picked up on its own is cleared right after construction.
"""

from __future__ import annotations

import json
from typing import Any, Final

import httpx2
import openai

from toolpool.agent._messages import (
    AssistantMessage,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    UserMessage,
)
from toolpool.agent.models._failures import (
    Settings,
    rejected_or_unavailable,
    retries_taken,
    timed_out,
    unreachable,
)
from toolpool.agent.models._json import (
    Unreadable,
    dump_arguments,
    field,
    items,
    parse_arguments,
    plain,
    tokens,
    words,
)
from toolpool.agent.models._sdk import SdkModel
from toolpool.errors import ModelError, ModelUnavailable

__all__ = ["OPENAI_BASE_URL", "OpenAIChatModel"]

OPENAI_BASE_URL: Final = "https://api.openai.com/v1"
_STOP_REASONS: Final = {"tool_calls": "tool_use", "stop": "end", "length": "max_tokens"}
_MESSAGE: Final = "reply.choices[0].message"  # where the answer is, for Unreadable's messages


class OpenAIChatModel(SdkModel):
    """A model behind the Chat Completions API; ``name`` is ``openai:<model>``.

    ``base_url`` defaults to OpenAI's own (never to ``OPENAI_BASE_URL``). Each attempt is
    bounded by ``timeout_s``; the SDK retries up to ``max_retries`` times with backoff,
    honouring ``retry-after-ms`` / ``retry-after``. The request limits output with
    ``max_completion_tokens``; servers that predate it ignore it.

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
        settings = Settings(f"openai:{model}", api_key=api_key, timeout_s=timeout_s, max_retries=max_retries)
        super().__init__(settings, owns_http_client=http_client is None)
        self._model = model
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url or OPENAI_BASE_URL,
            timeout=settings.timeout_s,
            max_retries=max_retries,
            http_client=http_client or openai.DefaultAsyncHttpxClient(trust_env=False),
        )
        # Read from OPENAI_* by the constructor whatever we pass; sent as headers if set.
        self._client.organization = None
        self._client.project = None
        self._client.admin_api_key = None
        self._client.webhook_secret = None
        self._client._custom_headers = {}  # OPENAI_CUSTOM_HEADERS; no public way to drop it

    async def _send(self, request: ModelRequest) -> bytes:
        params = request_body(self._model, request)
        response = await self._client.chat.completions.with_raw_response.create(**params)
        content: bytes = response.http_response.content
        return content

    def _read(self, body: dict[str, Any]) -> ModelReply:
        return read_reply(body)

    def _translate(self, exc: Exception) -> ModelError | None:
        if isinstance(exc, openai.APITimeoutError):
            return timed_out(self._settings, retries_taken(exc.request))
        if isinstance(exc, openai.APIConnectionError):
            return unreachable(self._settings, retries_taken(exc.request), exc.__cause__)
        if isinstance(exc, openai.APIStatusError):
            return rejected_or_unavailable(
                self._settings, exc.status_code, exc.body, retries_taken(exc.request)
            )
        if isinstance(exc, openai.OpenAIError):
            detail = self._settings.scrub(f"{type(exc).__name__}: {exc}")
            return ModelUnavailable(self.name, "the OpenAI SDK failed", detail=detail)
        return None

    async def _close_client(self) -> None:
        await self._client.close()


def request_body(model: str, request: ModelRequest) -> dict[str, Any]:
    """The Chat Completions request for ``request``, as the JSON the provider receives."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        if isinstance(message, UserMessage):
            messages.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            messages.append(_assistant(message))
        else:
            messages.append(_tool_result(message))
    body: dict[str, Any] = {"model": model, "messages": messages, "max_completion_tokens": request.max_tokens}
    if request.tools:
        body["tools"] = [_tool(spec) for spec in request.tools]
    return body


def _tool(spec: ToolSpec) -> dict[str, Any]:
    function = {"name": spec.name, "description": spec.description, "parameters": plain(spec.input_schema)}
    return {"type": "function", "function": function}


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if message.tool_calls:
        entry["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments(call)},
            }
            for call in message.tool_calls
        ]
    return entry


def _arguments(call: ToolCall) -> str:
    # Local servers re-parse the arguments of past calls to render their chat template, so one
    # malformed call would fail every later request; the tool result already says it was invalid.
    return json.dumps(plain(call.arguments), ensure_ascii=False) if call.arguments is not None else "{}"


def _tool_result(result: ToolResult) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": result.call_id, "content": result.text}


def read_reply(body: dict[str, Any]) -> ModelReply:
    """The ``ModelReply`` in a Chat Completions body; the first choice is the answer."""
    choices = items(body, "choices", "reply")
    if not choices:
        raise Unreadable("reply.choices is empty")
    choice = choices[0]
    message = field(choice, "message", dict, "reply.choices[0]")
    text = words(message, "content", _MESSAGE) or field(message, "refusal", str, _MESSAGE, default="")
    calls = tuple(
        _tool_call(entry, index) for index, entry in enumerate(items(message, "tool_calls", _MESSAGE))
    )
    reason = field(choice, "finish_reason", str, "reply.choices[0]", default="")
    usage = field(body, "usage", dict, "reply", default={})
    return ModelReply(
        text=text,
        tool_calls=calls,
        stop_reason=_STOP_REASONS.get(reason, reason) or ("tool_use" if calls else "end"),
        usage=_usage(usage),
    )


def _usage(usage: dict[str, Any]) -> Usage:
    """Chat Completions says ``prompt_tokens`` / ``completion_tokens``; the Responses API and
    some compatible servers say ``input_tokens`` / ``output_tokens``."""
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        return Usage(tokens(usage, "prompt_tokens"), tokens(usage, "completion_tokens"))
    return Usage(tokens(usage, "input_tokens"), tokens(usage, "output_tokens"))


def _tool_call(entry: dict[str, Any], index: int) -> ToolCall:
    where = f"{_MESSAGE}.tool_calls[{index}]"
    function = field(entry, "function", dict, where)
    name = field(function, "name", str, f"{where}.function")
    # Some local servers send no id; the conversation still needs one to pair the result.
    call_id = field(entry, "id", str, where, default="") or f"call_{index + 1}"
    raw = function.get("arguments")
    if raw is None or raw == "":  # a call without arguments
        return ToolCall(call_id, name, {}, "")
    if isinstance(raw, dict):  # some local servers send the object itself, not a JSON string
        return ToolCall(call_id, name, raw, dump_arguments(raw))
    if isinstance(raw, str):
        return ToolCall(call_id, name, parse_arguments(raw), raw)
    return ToolCall(call_id, name, None, dump_arguments(raw))
