"""The lean front answers exactly what the SDK's server would: two ``toolpool serve --stdio``
processes, one with the lean front (the default) and one with ``--sdk-front``, are sent the same
corpus of valid and invalid messages in each era, and every answer must be equal."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

from toolpool.calls import Envelope
from toolpool.serve.gateway._lean import Era
from toolpool.serve.gateway._wire import wire_result, wire_result_body

from .gateway_helpers import START_S, TEST_S, WAIT_S, environment

pytestmark = pytest.mark.anyio

_CONFIG = """
[servers.demo_alpha]
transport = "stdio"
command = "python"
args = ["-m", "toolpool.demo", "alpha"]
env = { PYTHONCOERCECLOCALE = "0" }
call_timeout_s = 10
connect_timeout_s = 60
era = "legacy"

[servers.demo_alpha.tools.echo]
action = "demo.echo"
effect = "read"
enabled = true

[servers.demo_alpha.tools.lookup]
action = "demo.lookup"
effect = "read"
enabled = true
resource = "{key}"

[servers.demo_alpha.tools.process_info]
action = false
"""
MODERN = "2026-07-28"
_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "corpus", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
_ECHO = "mcp__demo_alpha__echo"


def _request(request_id: object, method: str, params: object = None, *, modern: bool) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None or modern:
        message["params"] = dict(params or {})  # type: ignore[call-overload]
        if modern:
            message["params"]["_meta"] = {**message["params"].get("_meta", {}), **_ENVELOPE}
    return json.dumps(message)


def _corpus(modern: bool) -> list[str]:
    """Lines to send, in order: the handshake (legacy), then hot requests of every shape."""

    def req(request_id: object, method: str, params: object = None) -> str:
        return _request(request_id, method, params, modern=modern)

    lines: list[str] = []
    if not modern:
        lines += [
            req("i", "ping"),  # before initialize: the SDK's, in both
            req(
                1,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            ),
            '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        ]
    deep = "[" * 150 + "]" * 150
    deeper = "[" * 260 + "]" * 260
    lines += [
        req(2, "tools/list"),
        req(3, "tools/list"),
        req(4, "tools/list", {"cursor": "abc"}),
        req(5, "tools/call", {"name": _ECHO, "arguments": {"text": "hello"}}),
        req("six", "tools/call", {"name": _ECHO, "arguments": {"text": "h\u00e9llo \u2603 \U0001f600"}}),
        req(7, "tools/call", {"name": _ECHO}),
        req(8, "tools/call", {"name": _ECHO, "arguments": ["text"]}),
        req(9, "tools/call", {"name": 12, "arguments": {}}),
        req(10, "tools/call", {"arguments": {}}),
        req(11, "tools/call", {"name": _ECHO, "arguments": {"text": "x"}, "task": {"ttl": 5}}),
        req(12, "tools/call", {"name": "mcp__demo_alpha__nope", "arguments": {}}),
        req(13, "tools/call", {"name": "mcp__demo_alpha__process_info", "arguments": {}}),
        req(14, "tools/call", {"name": "mcp__demo_alpha__lookup", "arguments": {"key": "k1"}}),
        req(15, "tools/call", {"name": "mcp__demo_alpha__lookup", "arguments": {"key": "zz"}}),
        req(16, "tools/call", {"name": "mcp__demo_alpha__lookup", "arguments": {}}),
        req(17, "tools/call", {"name": _ECHO, "arguments": {"text": 5}}),
        req(18, "tools/call", {"name": _ECHO, "arguments": {"text": "y", "extra": True}}),
        req(19, "tools/call", {"name": _ECHO, "arguments": {"text": "z"}, "_meta": {"progressToken": "p1"}}),
        req(20, "ping"),
        req(21, "ping", {"extra": 1}),
        req(0, "ping"),
        req(-3, "ping"),
        req(2**70, "ping"),
        req(1.0, "ping"),
        req(True, "ping"),
        req(None, "ping"),
        req("", "tools/list"),
        '{"jsonrpc":"1.0","id":30,"method":"ping"}',
        '{"id":31,"method":"ping"}',
        '{"jsonrpc":"2.0","id":32,"method":"ping","extra":1}',
        '{"jsonrpc":"2.0","id":33,"method":"ping","params":[]}',
        '{"jsonrpc":"2.0","id":34,"method":"tools/call","params":"x"}',
        '{"jsonrpc":"2.0","id":35,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"text":'
        + deep
        + "}}}",
        '{"jsonrpc":"2.0","id":36,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"text":'
        + deeper
        + "}}}",
        '{"jsonrpc":"2.0","id":37,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"text":1e999}}}',
        '{"jsonrpc":"2.0","id":38,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"n":18446744073709551616}}}',
        '{"jsonrpc":"2.0","id":39,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"text":"\\ud800"}}}',
        '{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"text":"a","text":"b"}}}',
        '{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"'
        + _ECHO
        + '","arguments":{"text":NaN}}}',
        '{"jsonrpc":"2.0","id":42,"method":"tools/call"',
        '[{"jsonrpc":"2.0","id":43,"method":"ping"}]',
        "{}",
        "not json at all",
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}',
        req(44, "tools/list", {"_meta": {"progressToken": 7}}),
    ]
    if modern:
        bare = {
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {"name": _ECHO, "arguments": {"text": "q"}},
        }
        lines += [
            json.dumps({**bare, "id": 50}),  # no envelope at all
            json.dumps(
                {
                    **bare,
                    "id": 51,
                    "params": {
                        **bare["params"],
                        "_meta": {**_ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"},
                    },
                }
            ),
            json.dumps(
                {
                    **bare,
                    "id": 52,
                    "params": {
                        **bare["params"],
                        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN},
                    },
                }
            ),
            json.dumps(
                {
                    **bare,
                    "id": 53,
                    "params": {
                        **bare["params"],
                        "_meta": {**_ENVELOPE, "io.modelcontextprotocol/clientCapabilities": "x"},
                    },
                }
            ),
            req(
                54,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            ),
        ]
    else:
        lines += [
            _request(
                55, "tools/call", {"name": _ECHO, "arguments": {"text": "q"}}, modern=True
            ),  # an envelope on a handshake connection
            req(
                56,
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "2"},
                },
            ),
            req(57, "tools/call", {"name": _ECHO, "arguments": {"text": "after a second initialize"}}),
        ]
    return lines


class _Wire:
    """One ``toolpool serve --stdio`` process, spoken to line by line."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self._process = process
        self._pending = b""
        self._seen: list[dict[str, Any]] = []

    async def send(self, line: str) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.send(line.encode() + b"\n")

    async def answers_until(self, *ids: object) -> list[dict[str, Any]]:
        """Answers read until one has come for each of ``ids``."""
        wanted = list(ids)
        got: list[dict[str, Any]] = []
        while wanted:
            message = await self._next()
            got.append(message)
            if message.get("id") in wanted:
                wanted.remove(message["id"])
        return got

    async def _next(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        while b"\n" not in self._pending:
            self._pending += await self._process.stdout.receive()
        line, self._pending = self._pending.split(b"\n", 1)
        message = json.loads(line)
        assert isinstance(message, dict)
        return message


@asynccontextmanager
async def _serving(config: Path, *flags: str) -> AsyncIterator[_Wire]:
    command = [sys.executable, "-m", "toolpool", "serve", "--stdio", *flags, "--config", str(config)]
    process = await anyio.open_process(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environment(),
        cwd=config.parent,
    )
    try:
        yield _Wire(process)
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.terminate()
            with anyio.move_on_after(WAIT_S):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()


def _expects_answer(line: str) -> object:
    """The id a corpus line's own answer carries, or None when only the sentinel is waited for."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None
    request_id = message.get("id")
    usable = isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))
    return request_id if usable else None


async def _replies(config: Path, corpus: list[str], *flags: str) -> list[list[str]]:
    """Per corpus line, the answers it got (each as sorted JSON, in a sorted list)."""
    replies: list[list[str]] = []
    async with _serving(config, *flags) as wire:
        for number, line in enumerate(corpus):
            sentinel = f"sentinel-{number}"
            await wire.send(line)
            await wire.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "server/discover"}))
            own = _expects_answer(line)
            with anyio.fail_after(WAIT_S if number else START_S):
                got = await wire.answers_until(sentinel, *(() if own is None else (own,)))
            replies.append(
                sorted(json.dumps(answer, sort_keys=True) for answer in got if answer.get("id") != sentinel)
            )
    return replies


@pytest.mark.parametrize("era", ["legacy", MODERN])
async def test_the_lean_front_answers_every_message_of_the_corpus_exactly_as_the_sdk_does(
    tmp_path: Path, era: str
) -> None:
    corpus = _corpus(modern=era == MODERN)
    lean_folder, sdk_folder = tmp_path / "lean", tmp_path / "sdk"
    for folder in (lean_folder, sdk_folder):
        folder.mkdir()
        (folder / "toolpool.toml").write_text(_CONFIG)
    with anyio.fail_after(TEST_S * 2):
        lean = await _replies(lean_folder / "toolpool.toml", corpus)
        sdk = await _replies(sdk_folder / "toolpool.toml", corpus, "--sdk-front")
    different = [(line, a, b) for line, a, b in zip(corpus, lean, sdk, strict=True) if a != b]
    assert not different, different[:3]
    answered_ok = [reply for reply in lean if any('"toolpool/code": "ok"' in answer for answer in reply)]
    assert len(answered_ok) >= 4  # the corpus really reached the tools


def test_a_call_result_body_is_what_the_sdk_serializer_makes_of_the_result_model() -> None:
    from mcp.server.runner import _methods  # the SDK's own sieve: the reference

    envelopes = [
        Envelope(ok=True, code="ok", text="hello", untrusted=True, tool="a__b"),
        Envelope(
            ok=True,
            code="ok",
            text="x",
            untrusted=True,
            suspicious=True,
            structured={"n": 1, "l": [1.5, None]},
        ),
        Envelope(ok=True, code="ok", text="local", meta={"retry_after_s": 1.5}),
        Envelope(
            ok=False,
            code="approval_pending",
            text="ask",
            meta={"approval_id": "ap_1", "expires_at": "2026-12-03T00:00:00Z"},
        ),
        Envelope(ok=False, code="tool_disabled", text="not enabled"),
    ]
    for version in ("2024-11-05", "2025-06-18", "2025-11-25", MODERN):
        for envelope in envelopes:
            dumped = wire_result(envelope).model_dump(by_alias=True, mode="json", exclude_none=True)
            reference = _methods.serialize_server_result("tools/call", version, dumped)
            body = wire_result_body(envelope)
            if version == MODERN:
                reference = {k: v for k, v in reference.items() if k != "resultType"}
            assert body == reference, (version, envelope.code)


def test_the_era_settles_on_the_first_request_and_a_handshake_only_once_it_was_answered() -> None:
    era = Era()
    assert era.serving({}) is None
    era.inbound({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    assert era.serving({}) is None  # not answered yet
    era.outbound(1, {"protocolVersion": "2025-06-18"})
    assert era.serving({}) == "2025-06-18"
    assert era.serving({"_meta": dict(_ENVELOPE)}) is None  # an envelope on a handshake connection: the SDK's
    era.inbound({"id": 2, "method": "initialize", "params": {}})
    assert era.serving({}) is None  # a second initialize: unsettled until its answer
    era.outbound(2, "not a result")
    assert era.serving({}) is None
    modern = Era()
    modern.inbound({"id": "a", "method": "tools/list", "params": {"_meta": dict(_ENVELOPE)}})
    assert modern.serving({"_meta": dict(_ENVELOPE)}) == MODERN
    assert modern.serving({}) is None  # a request without its envelope: the SDK answers it
