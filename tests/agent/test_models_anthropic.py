"""AnthropicModel through the real anthropic SDK, against a local server speaking Messages."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.agent.wire import HANG, Reply, WireServer, anthropic_error, anthropic_message, serve_wire
from toolpool.agent._messages import (
    AssistantMessage,
    Model,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    UserMessage,
)
from toolpool.agent.models import AnthropicModel
from toolpool.agent.models._anthropic import read_reply
from toolpool.agent.models._json import Unreadable, decode
from toolpool.errors import ModelRejected, ModelTimeout, ModelUnavailable, UsageError

pytestmark = pytest.mark.anyio

TIMEOUT = 10
KEY = "sk-ant-test-8d2e61b0c5"
FAST = {"retry-after-ms": "1"}  # the SDK honours it, so a retry waits 1 ms instead of ~0.5 s
WEATHER = ToolSpec(
    "get_weather",
    "The weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
ASK = ModelRequest("You are terse.", (UserMessage("Weather in Paris and Rome?"),), (WEATHER,), max_tokens=300)


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with serve_wire() as server:
        yield server


@pytest.fixture
async def model(wire: WireServer) -> AsyncIterator[AnthropicModel]:
    async with AnthropicModel("claude-test", api_key=KEY, base_url=wire.url, max_retries=2) as model:
        yield model


async def complete(model: Model, request: ModelRequest = ASK) -> Any:
    with anyio.fail_after(TIMEOUT):
        return await model.complete(request)


async def test_a_plain_answer_comes_back_as_text_with_its_usage(
    wire: WireServer, model: AnthropicModel
) -> None:
    body = anthropic_message("Sunny.", usage=(20, 3))
    body["content"].insert(0, {"type": "thinking", "thinking": "hmm", "signature": "s"})
    body["usage"]["cache_read_input_tokens"] = 100
    wire.reply(Reply(body=body))
    reply = await complete(model, ModelRequest("You are terse.", (UserMessage("Hi"),)))
    assert (reply.text, reply.tool_calls, reply.stop_reason) == ("Sunny.", (), "end")
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (120, 3)
    [sent] = wire.requests
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.body == {
        "model": "claude-test",
        "max_tokens": 4096,
        "system": "You are terse.",
        "messages": [{"role": "user", "content": "Hi"}],
    }


@pytest.mark.parametrize(
    ("wire_reason", "stop_reason"),
    [
        ("end_turn", "end"),
        ("stop_sequence", "end"),
        ("max_tokens", "max_tokens"),
        ("tool_use", "tool_use"),
        ("refusal", "refusal"),
    ],
)
async def test_stop_reasons_map_to_ours(
    wire: WireServer, model: AnthropicModel, wire_reason: str, stop_reason: str
) -> None:
    wire.reply(Reply(body=anthropic_message("x", stop_reason=wire_reason)))
    assert (await complete(model)).stop_reason == stop_reason


async def test_the_model_name_names_the_provider_and_model(model: AnthropicModel) -> None:
    assert model.name == "anthropic:claude-test"
    assert isinstance(model, Model)


async def test_the_api_key_is_sent_in_the_sdks_auth_header_and_only_there(
    wire: WireServer, model: AnthropicModel
) -> None:
    wire.reply(Reply(body=anthropic_message("ok")))
    await complete(model)
    headers = wire.requests[0].headers
    # anthropic 2.x sends the key as a bearer token; older SDKs used x-api-key.
    assert KEY in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))
    assert sum(KEY in value for value in headers.values()) == 1


async def test_a_tool_round_trip_sends_all_results_back_in_one_user_message(
    wire: WireServer, model: AnthropicModel
) -> None:
    wire.reply(
        Reply(
            body=anthropic_message(
                "Checking both.",
                tool_uses=[
                    ("toolu_1", "get_weather", {"city": "Paris"}),
                    ("toolu_2", "get_weather", {"city": "Rome"}),
                ],
            )
        ),
        Reply(body=anthropic_message("Paris 18 C; Rome unknown.")),
    )
    first = await complete(model)
    assert (first.text, first.stop_reason) == ("Checking both.", "tool_use")
    assert first.tool_calls == (
        ToolCall("toolu_1", "get_weather", {"city": "Paris"}, '{"city": "Paris"}'),
        ToolCall("toolu_2", "get_weather", {"city": "Rome"}, '{"city": "Rome"}'),
    )

    conversation = (
        *ASK.messages,
        AssistantMessage(first.text, first.tool_calls),
        ToolResult("toolu_1", "get_weather", "18 C"),
        ToolResult("toolu_2", "get_weather", "mcp_timeout: no answer", is_error=True),
        UserMessage("Thanks."),
    )
    final = await complete(model, ModelRequest(ASK.system, conversation, ASK.tools, ASK.max_tokens))
    assert final.text == "Paris 18 C; Rome unknown."

    asked, answered = (received.body for received in wire.requests)
    assert asked["tools"] == [
        {"name": "get_weather", "description": WEATHER.description, "input_schema": WEATHER.input_schema}
    ]
    assert answered["max_tokens"] == 300
    assert answered["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Rome"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C", "is_error": False},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "mcp_timeout: no answer",
                    "is_error": True,
                },
            ],
        },
        {"role": "user", "content": "Thanks."},
    ]


@pytest.mark.parametrize(("sent", "raw"), [("{city: Paris", "{city: Paris"), ([1, 2], "[1, 2]"), (7, "7")])
async def test_tool_input_that_is_not_an_object_arrives_as_none_with_the_raw_text(
    wire: WireServer, model: AnthropicModel, sent: object, raw: str
) -> None:
    wire.reply(Reply(body=anthropic_message(tool_uses=[("toolu_1", "get_weather", sent)])))
    [call] = (await complete(model)).tool_calls
    assert (call.arguments, call.raw_arguments) == (None, raw)


async def test_a_malformed_call_goes_back_as_an_empty_input_and_empty_turns_are_left_out(
    wire: WireServer, model: AnthropicModel
) -> None:
    wire.reply(Reply(body=anthropic_message("done")))
    bad = ToolCall("toolu_1", "get_weather", None, "{city")
    conversation = (
        UserMessage("go"),
        AssistantMessage(),
        UserMessage("go on"),
        AssistantMessage("", (bad,)),
        ToolResult("toolu_1", "get_weather", "invalid_arguments", is_error=True),
    )
    await complete(model, ModelRequest("", conversation))
    sent = wire.requests[0].body
    assert "system" not in sent
    assert [message["role"] for message in sent["messages"]] == ["user", "user", "assistant", "user"]
    assert sent["messages"][2]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    ]


async def test_a_429_is_retried_by_the_sdk_after_the_servers_retry_after(
    wire: WireServer, model: AnthropicModel
) -> None:
    wire.reply(
        Reply(429, anthropic_error("slow down", "rate_limit_error"), FAST),
        Reply(body=anthropic_message("ok")),
    )
    assert (await complete(model)).text == "ok"
    assert [received.headers["x-stainless-retry-count"] for received in wire.requests] == ["0", "1"]


async def test_a_500_is_retried_by_the_sdk(wire: WireServer, model: AnthropicModel) -> None:
    wire.reply(Reply(500, anthropic_error("boom", "api_error"), FAST), Reply(body=anthropic_message("ok")))
    assert (await complete(model)).text == "ok"
    assert len(wire.requests) == 2


async def test_overloaded_until_the_retries_run_out_raises_model_unavailable(
    wire: WireServer, model: AnthropicModel
) -> None:
    wire.reply(*[Reply(529, anthropic_error("overloaded", "overloaded_error"), FAST)] * 3)
    with pytest.raises(ModelUnavailable) as caught:
        await complete(model)
    assert str(caught.value) == "anthropic:claude-test: the provider answered 529 after 2 retries"
    assert "overloaded" in caught.value.detail
    assert len(wire.requests) == 3


async def test_a_401_is_rejected_at_once_and_the_key_appears_nowhere_in_the_error(
    wire: WireServer, model: AnthropicModel
) -> None:
    wire.reply(Reply(401, anthropic_error(f"invalid x-api-key {KEY}", "authentication_error")))
    with pytest.raises(ModelRejected) as caught:
        await complete(model)
    error = caught.value
    assert error.status == 401
    assert str(error) == "anthropic:claude-test: the provider answered 401 (bad key?)"
    assert "authentication_error" in error.detail
    assert all(KEY not in text for text in (str(error), repr(error), error.detail))
    assert len(wire.requests) == 1


async def test_a_server_that_never_answers_raises_model_timeout(wire: WireServer) -> None:
    wire.reply(HANG)
    async with AnthropicModel(
        "claude-test", api_key=KEY, base_url=wire.url, timeout_s=0.5, max_retries=0
    ) as model:
        with pytest.raises(ModelTimeout, match=r"no answer within 0\.5 s"):
            await complete(model)


async def test_a_timeout_is_retried_and_the_error_counts_the_retries(wire: WireServer) -> None:
    wire.reply(HANG, HANG)
    async with AnthropicModel(
        "claude-test", api_key=KEY, base_url=wire.url, timeout_s=0.3, max_retries=1
    ) as model:
        with pytest.raises(ModelTimeout) as caught:
            await complete(model)
    assert str(caught.value) == "anthropic:claude-test: no answer within 0.3 s after 1 retry"
    assert len(wire.requests) == 2


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(raw=b"upstream connect error"), "the body is not JSON"),
        (Reply(body={"content": "hi"}), "reply.content is a string, not an array"),
        (Reply(body={"content": [{"type": "text"}]}), "reply.content[0].text is missing"),
        (
            Reply(body={"content": [{"type": "tool_use", "id": "t", "input": {}}]}),
            "reply.content[0].name is missing",
        ),
    ],
)
async def test_an_unreadable_reply_raises_model_unavailable(
    wire: WireServer, model: AnthropicModel, reply: Reply, problem: str
) -> None:
    wire.reply(reply)
    with pytest.raises(ModelUnavailable, match="cannot be read") as caught:
        await complete(model)
    assert problem in str(caught.value)


async def test_an_unreachable_server_raises_model_unavailable() -> None:
    with socket.socket() as probe:  # a port that nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with AnthropicModel(
        "claude-test", api_key=KEY, base_url=f"http://127.0.0.1:{port}", max_retries=0
    ) as model:
        with pytest.raises(ModelUnavailable, match="could not reach the provider"):
            await complete(model)


async def test_the_environment_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "ANTHROPIC_API_KEY": "sk-ant-from-env",
        "ANTHROPIC_AUTH_TOKEN": "token-from-env",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "ANTHROPIC_CUSTOM_HEADERS": "X-Leak: yes",
    }.items():
        monkeypatch.setenv(name, value)
    seen: list[httpx2.Request] = []

    def provider(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=anthropic_message("ok"))

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(provider)) as http_client:
        async with AnthropicModel("claude-test", api_key=KEY, http_client=http_client) as model:
            assert (await complete(model)).text == "ok"
        assert not http_client.is_closed  # the caller's client stays the caller's
    [request] = seen
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert "x-leak" not in request.headers
    assert not any("from-env" in value for value in request.headers.values())


async def test_a_closed_model_refuses_requests_and_closing_twice_is_fine(model: AnthropicModel) -> None:
    await model.aclose()
    await model.aclose()
    with pytest.raises(UsageError, match="closed"):
        await complete(model)


# Any JSON at all, and bodies shaped like Messages with anything at every leaf, so the fuzzing
# reaches the content blocks rather than stopping at the first missing field.
ANYTHING = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)
BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "thinking"]) | ANYTHING},
    optional={"text": ANYTHING, "id": ANYTHING, "name": ANYTHING, "input": ANYTHING},
)
BODY = st.fixed_dictionaries(
    {},
    optional={"content": st.lists(BLOCK, max_size=3) | ANYTHING, "stop_reason": ANYTHING, "usage": ANYTHING},
)


@given(st.binary(max_size=40) | (BODY | ANYTHING).map(lambda value: json.dumps(value).encode()))
def test_any_reply_body_is_either_read_or_refused_as_unreadable(content: bytes) -> None:
    try:
        reply = read_reply(decode(content))
    except Unreadable:
        return
    assert isinstance(reply, ModelReply) and isinstance(reply.text, str)
    for call in reply.tool_calls:
        assert isinstance(call.id, str) and isinstance(call.name, str)
        assert call.arguments is None or isinstance(call.arguments, dict)
