"""`toolpool run`: a real model adapter over real HTTP (a local server speaking the provider's
wire format), the Lead, and the pool's demo servers — and one clear line when the key or the
network is missing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.wire import Reply, WireServer, anthropic_message, openai_completion, serve_wire

EXAMPLE = Path(__file__).parents[2] / "examples" / "toolpool.toml"
KEY = "sk-cli-test-93b1e0"


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with serve_wire() as server:
        yield server


@pytest.fixture
def example(tmp_path: Path) -> Path:
    copy = tmp_path / "toolpool.toml"
    copy.write_text(EXAMPLE.read_text())
    return copy


def toolpool(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})},
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_run_answers_through_the_lead_with_tools_from_the_next_request(
    wire: WireServer, example: Path
) -> None:
    wire.reply(
        Reply(body=openai_completion(None, tool_calls=[("c1", "connect_mcp", '{"alias": "demo_alpha"}')])),
        Reply(body=openai_completion(None, tool_calls=[("c2", "mcp__demo_alpha__lookup", '{"key": "k1"}')])),
        Reply(body=openai_completion("k1 is alpha:v1")),
    )
    result = toolpool(
        "run",
        "look up k1",
        "--model",
        "openai:gpt-test",
        "--base-url",
        f"{wire.url}/v1",
        "--config",
        str(example),
        "--json",
        env={"OPENAI_API_KEY": KEY},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["answer"], report["completed"]) == ("k1 is alpha:v1", True)
    calls = [(e["name"], e["code"]) for e in report["transcript"] if e["kind"] == "call"]
    assert calls == [("connect_mcp", "ok"), ("mcp__demo_alpha__lookup", "ok")]
    sent = [[tool["function"]["name"] for tool in r.body.get("tools", [])] for r in wire.requests]
    assert "mcp__demo_alpha__lookup" not in sent[0]
    assert "mcp__demo_alpha__lookup" in sent[1]
    assert wire.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in result.stdout + result.stderr


def test_run_speaks_anthropic_messages_too(wire: WireServer, example: Path) -> None:
    wire.reply(Reply(body=anthropic_message("nothing to do")))
    result = toolpool(
        "run",
        "hello",
        "--model",
        "anthropic:claude-test",
        "--base-url",
        wire.url,
        "--config",
        str(example),
        env={"ANTHROPIC_API_KEY": KEY},
    )
    assert (result.returncode, result.stdout.strip()) == (0, "nothing to do"), result.stderr
    headers = wire.requests[0].headers
    assert KEY in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))


def test_run_without_a_key_says_which_variable_to_set(example: Path) -> None:
    result = toolpool("run", "hi", "--model", "openai:gpt-4.1", "--config", str(example))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "toolpool: error: OPENAI_API_KEY is not set: export your openai API key (or pass --base-url for a local server)"
    ]


def test_run_with_the_network_missing_fails_with_one_line(example: Path) -> None:
    closed = f"http://127.0.0.1:{_free_port()}/v1"
    result = toolpool(
        "run",
        "hi",
        "--model",
        "openai:gpt-4.1",
        "--base-url",
        closed,
        "--retries",
        "0",
        "--config",
        str(example),
        env={"OPENAI_API_KEY": KEY},
    )
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("toolpool: error:")]
    assert errors == ["toolpool: error: openai:gpt-4.1: could not reach the provider"], result.stderr
    assert "Traceback" not in result.stderr and KEY not in result.stderr


def test_run_refuses_a_model_without_a_provider(example: Path) -> None:
    result = toolpool("run", "hi", "--model", "gpt-4.1", "--config", str(example))
    assert result.returncode == 1
    assert "PROVIDER:MODEL" in result.stderr
