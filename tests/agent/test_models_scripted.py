"""ScriptedModel: replies in order from a list or a JSON/YAML file, every request recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

import toolpool.agent.models
from toolpool.agent._messages import Model, ModelReply, ModelRequest, ToolCall, Usage, UserMessage
from toolpool.agent.models import ScriptedModel
from toolpool.errors import ConfigError, ModelUnavailable, UsageError

pytestmark = pytest.mark.anyio

TIMEOUT = 5
SCRIPT: list[dict[str, Any]] = [
    {
        "text": "Let me look.",
        "tool_calls": [
            {"name": "lookup", "arguments": {"key": "k2"}},
            {"name": "lookup", "raw_arguments": "{not json", "id": "bad"},
            {"name": "clock"},
        ],
    },
    {"text": "k2 is v2.", "stop_reason": "max_tokens", "usage": {"input_tokens": 812, "output_tokens": 9}},
]


def ask(text: str) -> ModelRequest:
    return ModelRequest("system", (UserMessage(text),))


async def complete(model: Model, request: ModelRequest) -> ModelReply:
    with anyio.fail_after(TIMEOUT):
        return await model.complete(request)


def test_the_models_facade_exports_exactly_the_three_models() -> None:
    assert sorted(toolpool.agent.models.__all__) == ["AnthropicModel", "OpenAIChatModel", "ScriptedModel"]


def test_playing_a_script_does_not_import_the_provider_sdks() -> None:
    probe = "import sys, toolpool.agent.models; print(sorted({'openai', 'anthropic'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


async def test_replies_come_in_order_and_every_request_is_recorded() -> None:
    first, second = ModelReply("one"), ModelReply("two")
    model = ScriptedModel([first, second])
    assert isinstance(model, Model) and model.name == "scripted"
    assert await complete(model, ask("a")) is first
    assert await complete(model, ask("b")) is second
    assert model.requests == (ask("a"), ask("b"))
    assert model.remaining == 0


async def test_a_step_can_compute_its_reply_from_the_request() -> None:
    model = ScriptedModel([lambda request: ModelReply(f"echo: {request.messages[-1].text}")], name="echo")
    assert (await complete(model, ask("hi"))).text == "echo: hi"


async def test_an_exhausted_script_raises_model_unavailable_naming_the_request() -> None:
    model = ScriptedModel([ModelReply("only")], name="demo")
    await complete(model, ask("a"))
    with pytest.raises(ModelUnavailable) as caught:
        await complete(model, ask("b"))
    assert str(caught.value) == "demo: the script has no reply left for request 2"
    assert len(model.requests) == 2  # the request that found nothing is recorded too


@pytest.mark.parametrize("suffix", [".json", ".yaml", ".yml"])
async def test_a_script_file_plays_its_replies_with_generated_call_ids(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"script{suffix}"
    path.write_text(json.dumps(SCRIPT) if suffix == ".json" else yaml.safe_dump(SCRIPT))
    model = ScriptedModel.from_file(path)
    first = await complete(model, ask("a"))
    assert first.text == "Let me look."
    assert first.stop_reason == "tool_use"
    assert first.tool_calls == (
        ToolCall("call_1", "lookup", {"key": "k2"}, '{"key": "k2"}'),
        ToolCall("bad", "lookup", None, "{not json"),
        ToolCall("call_3", "clock", {}, "{}"),
    )
    second = await complete(model, ask("b"))
    assert (second.text, second.tool_calls, second.stop_reason) == ("k2 is v2.", (), "max_tokens")
    assert (first.usage, second.usage) == (Usage(0, 0), Usage(812, 9))


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("script.txt", "[]", "script.txt: a script must be a .json, .yaml or .yml file"),
        ("script.json", "[{", "script.json:1: is not valid JSON"),
        ("script.yaml", "- text: [unclosed", "script.yaml:1: is not valid YAML: expected ',' or ']'"),
        ("script.yaml", "text: hello", "script.yaml: a script is a list of replies, not a mapping"),
        ("script.yaml", "- txt: hello", "script.yaml: [0]: unknown key 'txt'"),
        ("script.yaml", "- text: 42", "script.yaml: [0].text: must be a string, not a number"),
        (
            "script.yaml",
            "- tool_calls: [{arguments: {}}]",
            "script.yaml: [0].tool_calls[0]: a tool call needs a name",
        ),
        (
            "script.json",
            '[{"tool_calls": [{"name": "x", "arguments": [1]}]}]',
            "script.json: [0].tool_calls[0].arguments: must be a mapping, not a list",
        ),
        (
            "script.json",
            '[{"tool_calls": [{"name": "x", "arguments": {}, "raw_arguments": "{}"}]}]',
            "give arguments or raw_arguments, not both",
        ),
        ("script.yaml", "- hello", "script.yaml: [0]: a reply must be a mapping, not a string"),
        ("script.yaml", "- usage: 5", "script.yaml: [0].usage: usage must be a mapping, not a number"),
        ("script.yaml", "- usage: {tokens: 5}", "script.yaml: [0].usage: unknown key 'tokens'"),
        (
            "script.yaml",
            "- usage: {input_tokens: -1}",
            "script.yaml: [0].usage.input_tokens: must be a token count (0 or more)",
        ),
        (
            "script.yaml",
            "- usage: {output_tokens: true}",
            "script.yaml: [0].usage.output_tokens: must be a token count (0 or more)",
        ),
        (
            "script.yaml",
            "- usage: {output_tokens: 1.5}",
            "script.yaml: [0].usage.output_tokens: must be a token count (0 or more)",
        ),
    ],
)
def test_a_bad_script_file_raises_one_config_error_line_naming_the_file_and_place(
    tmp_path: Path, name: str, content: str, problem: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ConfigError) as caught:
        ScriptedModel.from_file(path)
    message = str(caught.value)
    assert message.startswith(str(tmp_path))
    assert problem in message
    assert "\n" not in message


def test_a_missing_script_file_raises_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing\.yaml: cannot be read: No such file"):
        ScriptedModel.from_file(tmp_path / "missing.yaml")


async def test_a_closed_model_refuses_requests_and_closing_twice_is_fine() -> None:
    model = ScriptedModel([ModelReply("x")])
    await model.aclose()
    await model.aclose()
    with pytest.raises(UsageError, match="closed"):
        await complete(model, ask("a"))
    assert model.requests == ()
