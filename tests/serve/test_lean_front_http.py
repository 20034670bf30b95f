"""Over streamable HTTP the lean front answers exactly what the SDK's server would: two
``toolpool serve --http`` processes, one with the lean front (the default) and one with
``--sdk-front``, are sent the same corpus of 2026-07-28 POSTs (valid and invalid bodies and
headers); status, content type and body must be equal for every one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from .gateway_helpers import INITIALIZE, MCP_HEADERS, TEST_S, bearer, new_token, served
from .test_lean_front import _CONFIG, _ECHO, _ENVELOPE, MODERN

pytestmark = pytest.mark.anyio

_HEADERS = {"Content-Type": "application/json", "MCP-Protocol-Version": MODERN, **MCP_HEADERS}


def _post(
    request_id: object, method: str, params: Mapping[str, Any] | None = None, **headers: str
) -> tuple[str, dict[str, str]]:
    """A request with its envelope and the routing headers the SDK's client sends."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": dict(_ENVELOPE)},
    }
    sent = {**_HEADERS, "Mcp-Method": method}
    name = (params or {}).get("name")
    if method == "tools/call" and isinstance(name, str):
        sent["Mcp-Name"] = name
    return json.dumps(body), sent | headers


def _corpus() -> list[tuple[str, dict[str, str]]]:
    echo = {"name": _ECHO, "arguments": {"text": "hello"}}
    valid_call, call_headers = _post(5, "tools/call", echo)
    return [
        _post(1, "tools/list"),
        _post(2, "tools/list"),
        _post(3, "ping"),
        _post("four", "tools/call", echo),
        (valid_call, call_headers),
        _post(6, "tools/call", {"name": _ECHO, "arguments": {"text": "h\u00e9llo \u2603 \U0001f600"}}),
        _post(7, "tools/call", {"name": _ECHO}),
        _post(8, "tools/call", {"name": _ECHO, "arguments": ["x"]}),
        _post(9, "tools/call", {"name": "mcp__demo_alpha__nope", "arguments": {}}),
        _post(10, "tools/call", {"name": "mcp__demo_alpha__process_info", "arguments": {}}),
        _post(11, "tools/call", {"name": "mcp__demo_alpha__lookup", "arguments": {"key": "k1"}}),
        _post(12, "tools/call", {"name": _ECHO, "arguments": {"text": 5}}),
        _post(13, "tools/call", {"name": _ECHO, "arguments": {"text": "x"}, "task": {"ttl": 5}}),
        _post(14, "tools/list", {"cursor": "abc"}),
        _post(15, "ping", {"extra": 1}),
        _post(True, "ping"),
        _post(None, "ping"),
        _post(1.5, "ping"),
        _post(2**70, "ping"),
        # headers the SDK checks
        (valid_call, {**call_headers, "Mcp-Name": "other"}),
        (valid_call, {k: v for k, v in call_headers.items() if k != "Mcp-Method"}),
        (valid_call, {**call_headers, "Mcp-Method": "tools/list"}),
        (valid_call, {**call_headers, "Accept": "application/json"}),
        (valid_call, {**call_headers, "Accept": "text/event-stream"}),
        (valid_call, {**call_headers, "Accept": "*/*"}),
        (valid_call, {**call_headers, "Content-Type": "text/plain"}),
        (valid_call, {**call_headers, "Host": "evil.example:80"}),
        (valid_call, {**call_headers, "Origin": "http://evil.example"}),
        (valid_call, {**call_headers, "MCP-Protocol-Version": "2099-01-01"}),
        (valid_call, {**call_headers, "Mcp-Param-Text": "hello"}),
        # bodies
        ('{"jsonrpc":"2.0","id":20,"method":"tools/call"', call_headers),
        ("[" + valid_call + "]", call_headers),
        ("{}", call_headers),
        (
            '{"jsonrpc":"2.0","id":21,"method":"ping","params":{"_meta":{}}}',
            {**_HEADERS, "Mcp-Method": "ping"},
        ),
        ('{"jsonrpc":"2.0","id":22,"method":"ping"}', {**_HEADERS, "Mcp-Method": "ping"}),
        (valid_call.replace('"hello"', "1e999"), call_headers),
        (valid_call.replace('"hello"', "NaN"), call_headers),
        (valid_call.replace('"hello"', "[" * 120 + "]" * 120), call_headers),
        (valid_call.replace('"hello"', '"a\\ud800"'), call_headers),
        (valid_call.replace('"jsonrpc": "2.0", ', '"jsonrpc": "2.0", "extra": 1, '), call_headers),
        (
            '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
            {**_HEADERS, "Mcp-Method": "notifications/cancelled"},
        ),
    ]


async def _replies(config: Path, token: str, *flags: str) -> list[tuple[int, str, object]]:
    replies: list[tuple[int, str, object]] = []
    async with served(config, "--http", "127.0.0.1:0", *flags) as running, bearer(token) as http:
        for body, headers in _corpus():
            response = await http.post(running.url, content=body.encode(), headers=headers)
            kind = response.headers.get("content-type", "")
            try:
                content: object = response.json()
            except ValueError:
                content = response.text
            replies.append((response.status_code, kind, content))
        legacy = await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)  # passes to the SDK
        replies.append(
            (legacy.status_code, legacy.headers.get("content-type", ""), "mcp-session-id" in legacy.headers)
        )
    return replies


async def test_the_lean_http_front_answers_every_post_of_the_corpus_exactly_as_the_sdk_does(
    tmp_path: Path,
) -> None:
    replies = []
    with anyio.fail_after(TEST_S * 2):
        for flags in ((), ("--sdk-front",)):
            folder = tmp_path / ("sdk" if flags else "lean")
            folder.mkdir()
            config = folder / "toolpool.toml"
            config.write_text(_CONFIG)
            token = new_token(config, "corpus", "--allow", "*")
            replies.append(await _replies(config, token, *flags))
    lean, sdk = replies
    corpus = _corpus()
    different = [(corpus[i][0][:120], a, b) for i, (a, b) in enumerate(zip(lean, sdk, strict=True)) if a != b]
    assert not different, different[:3]
    assert (
        sum(
            1
            for status, _, content in lean
            if status == 200 and '"toolpool/code": "ok"' in json.dumps(content)
        )
        >= 4
    )


async def test_a_client_that_gives_up_on_a_lean_call_leaves_the_gateway_serving_the_next(
    tmp_path: Path,
) -> None:
    config = tmp_path / "toolpool.toml"
    config.write_text(_CONFIG)
    token = new_token(config, "corpus", "--allow", "*")
    body, headers = _post(1, "tools/call", {"name": _ECHO, "arguments": {"text": "x"}})
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running:
            async with bearer(token) as http:
                with anyio.move_on_after(0.001):
                    await http.post(running.url, content=body.encode(), headers=headers)
            async with bearer(token) as http:
                answer = await http.post(running.url, content=body.encode(), headers=headers)
    assert answer.status_code == 200
    assert answer.json()["result"]["_meta"]["toolpool/code"] == "ok"
