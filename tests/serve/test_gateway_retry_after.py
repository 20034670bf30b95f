"""HTTP clients of the gateway get ``Retry-After`` on a ``tools/call`` the limits gate refused,
in both eras (a JSON body, or the legacy SSE stream), and ``_meta`` carries the wait anyway;
a call that runs gets no such header, and a slow call's headers are not held back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from toolpool.serve.gateway._retry_after import HOLD_S, RetryAfter, retry_after_of

from .gateway_helpers import INITIALIZE, MCP_HEADERS, TEST_S, bearer, copy_config, new_token, served

pytestmark = pytest.mark.anyio

ECHO = "mcp__demo_alpha__echo"
CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": ECHO, "arguments": {"text": "x"}},
}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def _legacy_session(http: Any, url: str) -> dict[str, str]:
    """The headers of a legacy session opened and initialized on ``url``."""
    opened = await http.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    legacy = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
    legacy["mcp-protocol-version"] = "2025-11-25"
    await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=legacy)
    return legacy


def _result(body: str) -> dict[str, Any]:
    text = body if body.startswith("{") else body.split("data:", 1)[1]
    result: dict[str, Any] = json.loads(text)["result"]
    return result


async def test_a_rate_limited_call_gets_retry_after_in_both_eras_and_a_call_that_runs_does_not(
    tmp_path: Path,
) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[servers.demo_alpha]\n", '[servers.demo_alpha]\nrate = "1/min"\n', 1))
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running, bearer(token) as http:
            legacy = await _legacy_session(http, running.url)
            ran = await http.post(running.url, json=CALL, headers=legacy)
            refused = await http.post(running.url, json=CALL, headers=legacy)
            modern_headers = {
                **MCP_HEADERS,
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": "tools/call",
                "mcp-name": ECHO,
            }
            modern_call = {**CALL, "params": {**CALL["params"], "_meta": MODERN_META}}
            modern = await http.post(running.url, json=modern_call, headers=modern_headers)
    assert ran.status_code == 200 and "retry-after" not in ran.headers
    assert _result(ran.text)["_meta"]["toolpool/code"] == "ok"
    for answer in (refused, modern):
        meta = _result(answer.text)["_meta"]
        assert answer.status_code == 200 and meta["toolpool/code"] == "rate_limited"
        assert 0 < meta["toolpool/retry_after_s"] <= 60
        assert answer.headers["retry-after"] in {"59", "60"}
    assert refused.headers["content-type"].startswith("text/event-stream")
    assert modern.headers["content-type"].startswith("application/json")


def _answer(meta: dict[str, Any], **result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"_meta": meta, **result}}).encode()


def test_only_the_results_own_meta_of_a_limits_refusal_gives_a_wait() -> None:
    refused = {"toolpool/code": "quota_exceeded", "toolpool/retry_after_s": 12.2}
    assert retry_after_of(_answer(refused)) == 13
    assert retry_after_of(b"event: message\ndata: " + _answer(refused) + b"\n\n") == 13
    assert retry_after_of(_answer({**refused, "toolpool/retry_after_s": 0.001})) == 1
    # A server's own words never set the header: in content, in structuredContent, on an ok call.
    echoed = {"toolpool/code": "rate_limited", "toolpool/retry_after_s": 5}
    assert retry_after_of(_answer({"toolpool/code": "ok"}, structuredContent=echoed)) is None
    assert (
        retry_after_of(
            _answer({"toolpool/code": "ok"}, content=[{"type": "text", "text": json.dumps(echoed)}])
        )
        is None
    )
    assert retry_after_of(_answer({**refused, "toolpool/code": "ok"})) is None
    for wait in (0, -1, True, "5", 1e12):
        assert retry_after_of(_answer({**refused, "toolpool/retry_after_s": wait})) is None
    assert retry_after_of(b"not json " + b'"toolpool/retry_after_s"') is None


async def test_a_slow_answers_headers_go_out_after_the_hold_without_waiting_for_its_body() -> None:
    sent: list[Message] = []
    started = anyio.Event()
    finish = anyio.Event()

    async def slow_app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await finish.wait()
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})

    async def server_send(message: Message) -> None:
        sent.append(message)
        if message["type"] == "http.response.start":
            started.set()

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope: Scope = {"type": "http", "method": "POST", "headers": []}
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(RetryAfter(slow_app), scope, receive, server_send)
            at = anyio.current_time()
            await started.wait()
            assert anyio.current_time() - at >= HOLD_S * 0.9 and len(sent) == 1
            finish.set()
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["headers"] == []


async def test_a_call_over_a_principals_quota_gets_retry_after_over_the_legacy_stream(tmp_path: Path) -> None:
    # A quota is a limit of its own (no server or tool limit in this configuration): the
    # gateway must still hold the stream's headers back to add the wait.
    config = copy_config(tmp_path, ["demo_alpha"])
    text = config.read_text(encoding="utf-8")
    config.write_text(text + '\n[principals."*"]\nquota_calls = 1\nquota_period = "hour"\n', encoding="utf-8")
    token = new_token(config, "ci", "--allow", "*")
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running, bearer(token) as http:
            legacy = await _legacy_session(http, running.url)
            ran = await http.post(running.url, json=CALL, headers=legacy)
            refused = await http.post(running.url, json=CALL, headers=legacy)
    assert _result(ran.text)["_meta"]["toolpool/code"] == "ok" and "retry-after" not in ran.headers
    assert _result(refused.text)["_meta"]["toolpool/code"] == "quota_exceeded"
    assert refused.headers["content-type"].startswith("text/event-stream")
    assert 1 <= int(refused.headers["retry-after"]) <= 3600
