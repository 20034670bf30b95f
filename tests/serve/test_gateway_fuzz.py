"""The gateway's front under a hostile client: every request with an id gets exactly one
answer, a notification none, the process stays up and no traceback reaches the client.

Each test speaks to one long-running ``toolpool serve`` (one demo server behind it): over
stdio, line by line on its pipes; over HTTP, one POST per message in a legacy session. First
the attacks found by hand, each with the code it must get; then random JSON-RPC messages
(``jsonrpc_strategies``), a fixed number per transport, so the whole file takes seconds.
The peers are synchronous (Hypothesis drives plain functions); every wait is bounded.
"""

from __future__ import annotations

import itertools
import json
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given, settings

from tests.helpers import ALPHA_TOOLS, demo_server, write_config
from tests.serve.gateway_helpers import STOP_S, WAIT_S, environment, new_token, served_sync
from tests.serve.jsonrpc_strategies import Message, Rendered, messages, render
from toolpool.serve.gateway._stdio import MAX_LINE_BYTES

_EXAMPLES = 150  # per transport: a few seconds each on a busy machine
_FUZZ = settings(
    max_examples=_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
_LEGACY = "2025-06-18"
_TRACEBACK = (b"Traceback", b'File "')
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


def _config(folder: Path) -> Path:
    write_config(folder, demo_server("demo_alpha", "alpha", ALPHA_TOOLS))
    return folder / "toolpool.toml"


def _initialize(request_id: object) -> bytes:
    params = {"protocolVersion": _LEGACY, "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}).encode()


def _ping(request_id: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode()


def _echo(request_id: object, text: str) -> bytes:
    params = {"name": "mcp__demo_alpha__echo", "arguments": {"text": text}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


_INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _key(request_id: object) -> str:
    return json.dumps(request_id)  # 1 and "1" are different ids


def _is_response(message: object) -> bool:
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and ("result" in message) != ("error" in message)
    )


@dataclass
class _Stdio:
    """``toolpool serve --stdio`` on pipes; threads move its stdout lines into a queue and
    keep its stderr."""

    process: subprocess.Popen[bytes]
    lines: queue.Queue[bytes | None] = field(default_factory=queue.Queue)
    stderr: list[bytes] = field(default_factory=list)
    answered: dict[str, dict[str, Any]] = field(default_factory=dict)
    nulls: list[dict[str, Any]] = field(default_factory=list)
    serials: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        for target, stream in ((self._pump, self.process.stdout), (self._keep, self.process.stderr)):
            thread = threading.Thread(target=target, args=(stream,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def _keep(self, stream: IO[bytes]) -> None:
        self.stderr.extend(stream)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def take(self, deadline: float) -> None:
        """One message from the front, filed by its id; it must be a response, the first
        under its id, with no traceback in it."""
        try:
            raw = self.lines.get(timeout=max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            raise AssertionError(
                f"no answer within {WAIT_S} s; stderr: {b''.join(self.stderr)[-2000:]!r}"
            ) from None
        assert raw is not None, f"the front closed its stdout; stderr: {b''.join(self.stderr)[-2000:]!r}"
        assert not any(marker in raw for marker in _TRACEBACK), raw[:500]
        message = json.loads(raw)
        assert _is_response(message), raw[:500]
        if message["id"] is None:
            self.nulls.append(message)
            return
        assert _key(message["id"]) not in self.answered, f"answered twice: {raw[:300]!r}"
        self.answered[_key(message["id"])] = message

    def exchange(self, sent: Rendered) -> list[dict[str, Any]]:
        """Send one message and a ping after it; return what answers the message. Errors
        the front writes itself come before the ping's answer; a handler's may come after."""
        sentinel = f"sentinel-{next(self.serials)}"
        nulls_before = len(self.nulls)
        self.send(sent.line)
        self.send(_ping(sentinel))
        wanted = {_key(sentinel)} | ({_key(sent.id)} if sent.expect == "answer" else set())
        deadline = time.monotonic() + WAIT_S
        while not wanted <= self.answered.keys():
            self.take(deadline)
        got = self.nulls[nulls_before:]
        if sent.expect in ("answer", "either") and _key(sent.id) in self.answered:
            got = [*got, self.answered[_key(sent.id)]]
        return got

    def close(self) -> int | None:
        """Close stdin, wait (bounded) for the process to end, kill it if it will not."""
        running = self.process.poll() is None
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for thread in self.threads:
            thread.join(timeout=STOP_S)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return None if running else self.process.returncode


@pytest.fixture
def stdio_front(tmp_path: Path) -> Iterator[_Stdio]:
    config = _config(tmp_path)
    command = [sys.executable, "-m", "toolpool", "serve", "--stdio", "--config", str(config)]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(),
        cwd=tmp_path,
    )
    front = _Stdio(process)
    try:
        front.start()
        front.send(_initialize("init"))
        deadline = time.monotonic() + WAIT_S * 2  # the first answer waits for the demo server
        while _key("init") not in front.answered:
            front.take(deadline)
        front.send(_INITIALIZED)
        yield front
        _still_serves(front)  # after all of a test's messages, a call still passes every gate
    finally:
        exited = front.close()
    said = b"".join(front.stderr)
    assert exited is None, f"the front exited early ({exited}): {said[-2000:]!r}"
    assert b"Traceback" not in said, said[-2000:]  # nothing escaped, even to the operator's stderr


def _still_serves(front: _Stdio) -> None:
    assert front.process.poll() is None
    sent = Rendered(_echo("last", "still here"), "last", "answer")
    (answer,) = front.exchange(sent)
    assert answer["result"]["_meta"]["toolpool/code"] == "ok"


def _code(answer: dict[str, Any]) -> int:
    return int(answer["error"]["code"])


def test_the_stdio_front_answers_a_lone_surrogate_and_deep_nesting_under_the_request_id(
    stdio_front: _Stdio,
) -> None:
    deep = '{"a":' * 5_000 + "1" + "}" * 5_000
    call = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"mcp__demo_alpha__echo","arguments":%s}}'
    cases = [
        (call % ("1", '{"text":"\\ud800"}'), 1, PARSE_ERROR),
        (call % ('"two"', '{"text":' + deep + "}"), "two", PARSE_ERROR),
        ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":5}', 3, INVALID_PARAMS),
        ('{"jsonrpc":"2.0","id":4,"method":7}', 4, INVALID_REQUEST),
        ('{"jsonrpc":"2.0","id":5,', 5, PARSE_ERROR),
        ('{"jsonrpc":"2.0","id":null,"method":"ping"}', None, INVALID_REQUEST),
        ('{"jsonrpc":"2.0","id":6.5,"method":"ping"}', None, INVALID_REQUEST),
        ('[{"jsonrpc":"2.0","id":7,"method":"ping"}]', None, INVALID_REQUEST),
        ("not json at all", None, PARSE_ERROR),
    ]
    for line, request_id, code in cases:
        expect = "null" if request_id is None else "answer"
        answers = stdio_front.exchange(Rendered(line.encode(), request_id, expect))
        assert [(answer["id"], _code(answer)) for answer in answers] == [(request_id, code)], line[:80]
    for quiet in (b"", b"   ", b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":1}}'):
        assert stdio_front.exchange(Rendered(quiet, None, "none")) == []


def test_the_stdio_front_drops_a_line_longer_than_its_bound_unread_and_answers_it_once(
    stdio_front: _Stdio,
) -> None:
    for size in (MAX_LINE_BYTES + 1, 3 * MAX_LINE_BYTES):  # a line that ends, and one read past the bound
        too_long = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * size + b'"}}'
        (answer,) = stdio_front.exchange(Rendered(too_long, None, "null"))
        assert _code(answer) == INVALID_REQUEST and str(MAX_LINE_BYTES) in answer["error"]["message"]


@_FUZZ
@given(message=messages)
def test_every_message_a_stdio_client_sends_gets_exactly_the_answers_it_is_owed(
    stdio_front: _Stdio, message: Message
) -> None:
    sent = render(message, next(stdio_front.serials))
    event(f"{message.kind} {message.taint or message.id_kind or ''} -> {sent.expect}")
    answers = stdio_front.exchange(sent)
    if sent.expect == "none":
        assert answers == []
    elif sent.expect == "null":
        assert [answer["id"] for answer in answers] == [None]
    elif sent.expect == "either":
        assert len(answers) == 1 and answers[0]["id"] in (None, sent.id)
    else:
        assert [answer["id"] for answer in answers] == [sent.id]
    assert stdio_front.process.poll() is None


@dataclass
class _Http:
    url: str
    client: httpx.Client
    headers: dict[str, str]
    serials: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def post(self, body: bytes) -> tuple[int, list[dict[str, Any]]]:
        """One POST; its status and the JSON-RPC messages in its body (JSON or SSE)."""
        response = self.client.post(self.url, content=body, headers=self.headers)
        raw = response.content
        assert not any(marker in raw for marker in _TRACEBACK), raw[:500]
        assert response.status_code < 500, (response.status_code, raw[:500])
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            # SSE ends lines at CR, LF or CRLF only: str.splitlines() would also split inside an
            # id that holds U+2028, U+0085 or U+001C-U+001E, which JSON leaves unescaped.
            lines = re.split(r"\r\n|\r|\n", raw.decode())
            return response.status_code, [
                json.loads(line[5:]) for line in lines if line.startswith("data:") and line[5:].strip()
            ]
        return response.status_code, [json.loads(raw)] if raw.strip() else []


@pytest.fixture
def http_front(tmp_path: Path) -> Iterator[_Http]:
    config = _config(tmp_path)
    token = new_token(config, "fuzz", "--allow", "demo.*")
    with served_sync(config, "--http", "127.0.0.1:0") as url:
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        with httpx.Client(timeout=WAIT_S) as client:
            started = client.post(url, content=_initialize(0), headers=headers)
            assert started.status_code == 200, started.text
            session = {"Mcp-Session-Id": started.headers["mcp-session-id"], "MCP-Protocol-Version": _LEGACY}
            front = _Http(url, client, headers | session)
            assert front.post(_INITIALIZED)[0] == 202
            yield front
            # The process stayed up: a last call still passes every gate.
            status, (answer,) = front.post(_echo("last", "still here"))
            assert status == 200 and answer["result"]["_meta"]["toolpool/code"] == "ok"


def test_the_http_front_answers_a_request_with_an_unusable_id_with_one_error(http_front: _Http) -> None:
    for request_id in ("null", "6.5", "true", "[7]", '{"id":8}'):
        status, answers = http_front.post(
            b'{"jsonrpc":"2.0","id":' + request_id.encode() + b',"method":"ping"}'
        )
        assert (status, [(answer["id"], _code(answer)) for answer in answers]) == (
            400,
            [(None, INVALID_REQUEST)],
        )
    deep = b'{"a":' * 5_000 + b"1" + b"}" * 5_000
    for body in (_echo(1, "\ud800"), b'{"jsonrpc":"2.0","id":2,"method":"ping","params":' + deep + b"}"):
        status, answers = http_front.post(body)
        assert (status, [(answer["id"], _code(answer)) for answer in answers]) == (400, [(None, PARSE_ERROR)])


@_FUZZ
@given(message=messages)
def test_every_message_an_http_client_posts_gets_exactly_the_answer_it_is_owed(
    http_front: _Http, message: Message
) -> None:
    sent = render(message, next(http_front.serials))
    event(f"{message.kind} {message.taint or message.id_kind or ''} -> {sent.expect}")
    status, answers = http_front.post(sent.line)
    if sent.expect == "none":
        assert (status, answers) == (202, [])
        return
    assert len(answers) == 1 and _is_response(answers[0]), answers
    allowed = (None,) if sent.expect == "null" else (None, sent.id)  # HTTP binds an answer to its POST
    assert answers[0]["id"] in allowed
    assert status == 200 if "result" in answers[0] else status in (200, 400)
