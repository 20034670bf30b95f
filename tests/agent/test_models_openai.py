"""OpenAIChatModel through the real openai SDK, against a local server speaking Chat Completions."""

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

from tests.agent.wire import HANG, Reply, WireServer, openai_completion, openai_error, serve_wire
from toolpool.agent._messages import (
    AssistantMessage,
    Model,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    UserMessage,
)
from toolpool.agent.models import OpenAIChatModel
from toolpool.agent.models._json import Unreadable, decode
from toolpool.agent.models._openai import read_reply
from toolpool.errors import ModelRejected, ModelTimeout, ModelUnavailable, UsageError

pytestmark = pytest.mark.anyio

TIMEOUT = 10
KEY = "sk-test-4f1c9a7e0b2d"
FAST = {"retry-after-ms": "1"}  # the SDK honours it, so a retry waits 1 ms instead of ~0.5 s
WEATHER = ToolSpec(
    "get_weather",
    "The weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
ASK = ModelRequest("You are terse.", (UserMessage("Weather in Paris?"),), (WEATHER,), max_tokens=300)


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with serve_wire() as server:
        yield server


@pytest.fixture
async def model(wire: WireServer) -> AsyncIterator[OpenAIChatModel]:
    async with OpenAIChatModel("gpt-test", api_key=KEY, base_url=f"{wire.url}/v1", max_retries=2) as model:
        yield model


async def complete(model: Model, request: ModelRequest = ASK) -> Any:
    with anyio.fail_after(TIMEOUT):
        return await model.complete(request)


async def test_a_plain_answer_comes_back_as_text_with_its_usage(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(Reply(body=openai_completion("Sunny.", usage=(21, 3))))
    reply = await complete(model, ModelRequest("You are terse.", (UserMessage("Hi"),)))
    assert (reply.text, reply.tool_calls, reply.stop_reason) == ("Sunny.", (), "end")
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (21, 3)
    [sent] = wire.requests
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.body == {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hi"}],
        "max_completion_tokens": 4096,
    }


def test_usage_is_read_from_chat_completions_or_responses_style_fields() -> None:
    body = openai_completion("Sunny.")
    body["usage"] = {"input_tokens": 40, "output_tokens": 5, "total_tokens": 45}
    assert read_reply(body).usage == Usage(40, 5)
    body["usage"] = {"prompt_tokens": 30, "completion_tokens": 2, "input_tokens": 999}
    assert read_reply(body).usage == Usage(30, 2)
    body["usage"] = {"prompt_tokens": "many", "completion_tokens": None}
    assert read_reply(body).usage == Usage(0, 0)
    del body["usage"]
    assert read_reply(body).usage == Usage(0, 0)


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [
        ("stop", "end"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        ("content_filter", "content_filter"),
    ],
)
async def test_finish_reasons_map_to_stop_reasons(
    wire: WireServer, model: OpenAIChatModel, finish_reason: str, stop_reason: str
) -> None:
    wire.reply(Reply(body=openai_completion("x", finish_reason=finish_reason)))
    assert (await complete(model)).stop_reason == stop_reason


async def test_the_model_name_names_the_provider_and_model(model: OpenAIChatModel) -> None:
    assert model.name == "openai:gpt-test"
    assert isinstance(model, Model)


async def test_the_api_key_is_sent_as_a_bearer_token(wire: WireServer, model: OpenAIChatModel) -> None:
    wire.reply(Reply(body=openai_completion("ok")))
    await complete(model)
    assert wire.requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_a_tool_call_round_trip_sends_the_result_back_under_its_call_id(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(
        Reply(body=openai_completion(None, tool_calls=[("call_abc", "get_weather", '{"city": "Paris"}')])),
        Reply(body=openai_completion("18 C and sunny.")),
    )
    first = await complete(model)
    assert first.tool_calls == (ToolCall("call_abc", "get_weather", {"city": "Paris"}, '{"city": "Paris"}'),)
    assert (first.text, first.stop_reason) == ("", "tool_use")

    conversation = (
        *ASK.messages,
        AssistantMessage(first.text, first.tool_calls),
        ToolResult("call_abc", "get_weather", "18 C, sunny"),
    )
    final = await complete(model, ModelRequest(ASK.system, conversation, ASK.tools, ASK.max_tokens))
    assert final.text == "18 C and sunny."

    asked, answered = (received.body for received in wire.requests)
    assert asked["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": WEATHER.description,
                "parameters": WEATHER.input_schema,
            },
        }
    ]
    assert answered["max_completion_tokens"] == 300
    assert answered["messages"][2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_abc",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "18 C, sunny"},
    ]


@pytest.mark.parametrize("arguments", ['{"city": "Par', "[1, 2]", '"Paris"', "null"])
async def test_tool_arguments_that_are_not_a_json_object_arrive_as_none_with_the_raw_text(
    wire: WireServer, model: OpenAIChatModel, arguments: str
) -> None:
    wire.reply(Reply(body=openai_completion(tool_calls=[("call_1", "get_weather", arguments)])))
    [call] = (await complete(model)).tool_calls
    assert (call.arguments, call.raw_arguments) == (None, arguments)


async def test_a_malformed_call_goes_back_as_an_empty_object_so_local_servers_can_render_it(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(Reply(body=openai_completion("done")))
    bad = ToolCall("call_1", "get_weather", None, '{"city": "Par')
    conversation = (
        UserMessage("go"),
        AssistantMessage("", (bad,)),
        ToolResult("call_1", "get_weather", "invalid", True),
    )
    await complete(model, ModelRequest("", conversation))
    sent = wire.requests[0].body["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert sent[0] == {"role": "user", "content": "go"}  # no system message for an empty prompt


async def test_local_server_variants_of_tool_calls_are_understood(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    body = openai_completion(tool_calls=[("", "get_weather", "")])
    body["choices"][0]["message"]["tool_calls"].append(
        {"type": "function", "function": {"name": "now", "arguments": {"tz": "UTC"}}}
    )
    wire.reply(Reply(body=body))
    first, second = (await complete(model)).tool_calls
    assert (first.id, first.arguments) == ("call_1", {})
    assert (second.id, second.arguments, json.loads(second.raw_arguments)) == (
        "call_2",
        {"tz": "UTC"},
        {"tz": "UTC"},
    )


async def test_a_429_is_retried_by_the_sdk_after_the_servers_retry_after(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(
        Reply(429, openai_error("slow down", "rate_limit_error"), FAST), Reply(body=openai_completion("ok"))
    )
    assert (await complete(model)).text == "ok"
    assert [received.headers["x-stainless-retry-count"] for received in wire.requests] == ["0", "1"]


async def test_a_500_is_retried_by_the_sdk(wire: WireServer, model: OpenAIChatModel) -> None:
    wire.reply(Reply(500, openai_error("boom", "server_error"), FAST), Reply(body=openai_completion("ok")))
    assert (await complete(model)).text == "ok"
    assert len(wire.requests) == 2


async def test_500s_until_the_retries_run_out_raise_model_unavailable(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(*[Reply(503, openai_error("down", "server_error"), FAST)] * 3)
    with pytest.raises(ModelUnavailable) as caught:
        await complete(model)
    assert str(caught.value) == "openai:gpt-test: the provider answered 503 after 2 retries"
    assert "down" in caught.value.detail
    assert len(wire.requests) == 3


async def test_a_server_that_says_not_to_retry_is_believed(wire: WireServer, model: OpenAIChatModel) -> None:
    wire.reply(Reply(503, openai_error("maintenance", "server_error"), {"x-should-retry": "false"}))
    with pytest.raises(ModelUnavailable) as caught:
        await complete(model)
    assert str(caught.value) == "openai:gpt-test: the provider answered 503"
    assert len(wire.requests) == 1


async def test_a_429_that_outlasts_the_retries_is_unavailable_not_rejected(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(*[Reply(429, openai_error("slow down", "rate_limit_error"), FAST)] * 3)
    with pytest.raises(ModelUnavailable, match="429"):
        await complete(model)


async def test_a_401_is_rejected_at_once_and_the_key_appears_nowhere_in_the_error(
    wire: WireServer, model: OpenAIChatModel
) -> None:
    wire.reply(Reply(401, openai_error(f"Incorrect API key provided: {KEY}")))
    with pytest.raises(ModelRejected) as caught:
        await complete(model)
    error = caught.value
    assert error.status == 401
    assert str(error) == "openai:gpt-test: the provider answered 401 (bad key?)"
    assert "Incorrect API key" in error.detail
    assert all(KEY not in text for text in (str(error), repr(error), error.detail))
    assert len(wire.requests) == 1


async def test_a_server_that_never_answers_raises_model_timeout(wire: WireServer) -> None:
    wire.reply(HANG)
    async with OpenAIChatModel(
        "gpt-test", api_key=KEY, base_url=wire.url, timeout_s=0.5, max_retries=0
    ) as model:
        with pytest.raises(ModelTimeout, match=r"no answer within 0\.5 s"):
            await complete(model)


async def test_a_reply_that_trickles_in_is_cut_off_by_the_overall_deadline(wire: WireServer) -> None:
    # Each byte arrives well within the read timeout, so only the overall deadline
    # (2 x timeout_s per attempt, retries included) ends the call.
    wire.reply(Reply(body=openai_completion("slow"), drip_s=0.1))
    async with OpenAIChatModel(
        "gpt-test", api_key=KEY, base_url=wire.url, timeout_s=0.5, max_retries=0
    ) as model:
        with pytest.raises(ModelTimeout, match=r"no answer within 1 s, retries included"):
            await complete(model)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(raw=b"<html>Bad gateway</html>"), "the body is not JSON"),
        (Reply(body=[1, 2]), "the body is an array, not an object"),
        (Reply(body={"choices": []}), "reply.choices is empty"),
        (
            Reply(body={"choices": [{"message": {"content": 7}}]}),
            "reply.choices[0].message.content is a number, not a string",
        ),
        (
            Reply(body=openai_completion(tool_calls=[("c", None, "{}")])),
            "tool_calls[0].function.name is missing",
        ),
    ],
)
async def test_an_unreadable_reply_raises_model_unavailable(
    wire: WireServer, model: OpenAIChatModel, reply: Reply, problem: str
) -> None:
    wire.reply(reply)
    with pytest.raises(ModelUnavailable, match="cannot be read") as caught:
        await complete(model)
    assert problem in str(caught.value)


async def test_an_unreachable_server_raises_model_unavailable() -> None:
    with socket.socket() as probe:  # a port that nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with OpenAIChatModel(
        "gpt-test", api_key=KEY, base_url=f"http://127.0.0.1:{port}", max_retries=0
    ) as model:
        with pytest.raises(ModelUnavailable, match="could not reach the provider"):
            await complete(model)


async def test_the_environment_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "OPENAI_API_KEY": "sk-from-env",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "OPENAI_ORG_ID": "org-env",
        "OPENAI_PROJECT_ID": "proj-env",
        "OPENAI_CUSTOM_HEADERS": "X-Leak: yes",
    }.items():
        monkeypatch.setenv(name, value)
    seen: list[httpx2.Request] = []

    def provider(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=openai_completion("ok"))

    async with httpx2.AsyncClient(transport=httpx2.MockTransport(provider)) as http_client:
        async with OpenAIChatModel("gpt-test", api_key=KEY, http_client=http_client) as model:
            assert (await complete(model)).text == "ok"
        assert not http_client.is_closed  # the caller's client stays the caller's
    [request] = seen
    assert str(request.url) == "https://api.openai.com/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert not {"openai-organization", "openai-project", "x-leak"} & set(request.headers.keys())


async def test_a_closed_model_refuses_requests_and_closing_twice_is_fine(model: OpenAIChatModel) -> None:
    await model.aclose()
    await model.aclose()
    with pytest.raises(UsageError, match="closed"):
        await complete(model)


@pytest.mark.parametrize(
    "settings",
    [{"api_key": ""}, {"api_key": KEY, "timeout_s": 0}, {"api_key": KEY, "max_retries": -1}],
)
def test_bad_settings_are_refused_without_showing_the_key(settings: dict[str, Any]) -> None:
    with pytest.raises(UsageError) as caught:
        OpenAIChatModel("gpt-test", **settings)
    assert KEY not in str(caught.value)


# Any JSON at all, and bodies shaped like Chat Completions with anything at every leaf, so the
# fuzzing reaches the tool calls rather than stopping at the first missing field.
ANYTHING = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12,
)
CALL = st.fixed_dictionaries(
    {},
    optional={
        "id": ANYTHING,
        "function": st.fixed_dictionaries({}, optional={"name": ANYTHING, "arguments": ANYTHING | st.text()})
        | ANYTHING,
    },
)
MESSAGE = st.fixed_dictionaries(
    {},
    optional={"content": ANYTHING, "refusal": ANYTHING, "tool_calls": st.lists(CALL, max_size=3) | ANYTHING},
)
CHOICE = st.fixed_dictionaries({}, optional={"message": MESSAGE | ANYTHING, "finish_reason": ANYTHING})
BODY = st.fixed_dictionaries(
    {}, optional={"choices": st.lists(CHOICE, max_size=2) | ANYTHING, "usage": ANYTHING}
)


@given(st.binary(max_size=40) | (BODY | ANYTHING).map(lambda value: json.dumps(value).encode()))
def test_any_reply_body_is_either_read_or_refused_as_unreadable(content: bytes) -> None:
    try:
        reply = read_reply(decode(content))
    except Unreadable:
        return
    assert isinstance(reply, ModelReply) and isinstance(reply.text, str)
    for call in reply.tool_calls:
        assert isinstance(call.id, str) and call.id and isinstance(call.name, str)
        assert call.arguments is None or isinstance(call.arguments, dict)
