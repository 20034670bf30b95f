"""A test-only HTTP forwarding proxy in front of ``toolpool serve --http``, for a client that
cannot send a bearer token: the official conformance suite.

Why it exists: ``conformance server`` (npm ``@modelcontextprotocol/conformance`` 0.1.16) takes
``--url`` and nothing else: no header option, no environment variable, so every request it
makes gets toolpool's 401. The product keeps that rule (no token, no MCP); the suite talks to
this proxy instead, which runs in the test's own event loop on a free loopback port.

What it changes in each exchange, and nothing else:

- ``Authorization``: set to ``Bearer <token>``.
- ``Host`` and ``Origin``: a value naming the proxy's own loopback address becomes the same
  name with the gateway's port, as if the gateway listened where the proxy does. Any other
  value (``evil.example.com``) is passed unchanged, so toolpool's own DNS-rebinding guard
  answers it.
- tool names, for the names in ``names`` only: ``tools/call`` for ``X`` is sent as ``names[X]``,
  and ``tools/list`` results show ``names[X]`` as ``X`` again. The suite asks for fixed names
  (``test_simple_text``); toolpool exposes ``mcp__<alias>__<tool>`` (R3) and has no option to
  expose anything else.
- hop-by-hop headers and content encodings are dropped, as by any proxy (bodies are passed on
  decoded, with their new length).

Response bodies stream through line by line when they are event streams (a ``GET`` stream stays
open as long as its client keeps it), and whole otherwise.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import uvicorn
from starlette.types import Message, Receive, Scope, Send

from .gateway_helpers import WAIT_S

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
    "content-encoding",
    "accept-encoding",
    "authorization",
    "date",  # uvicorn sends its own date and server
    "server",
}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_GRACE_S = 2  # open event streams are cut after this when the proxy stops


@dataclass
class BearerProxy:
    """The ASGI app: forwards to ``target`` (the gateway's MCP URL) with ``token``."""

    target: str
    token: str
    names: Mapping[str, str] = field(default_factory=dict)
    port: int = 0
    """The proxy's own port, set once it listens."""
    renamed: list[str] = field(default_factory=list)
    """Every ``tools/call`` name the proxy mapped, in order."""

    def __post_init__(self) -> None:
        self._target = urlsplit(self.target)
        self._unnames = {local: remote for remote, local in self.names.items()}
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(WAIT_S, read=None))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        body = self._rename_call(await _body(receive))
        url = f"{self._target.scheme}://{self._target.netloc}{scope['raw_path'].decode()}"
        if scope["query_string"]:
            url += "?" + scope["query_string"].decode()
        request = self._http.build_request(scope["method"], url, headers=self._headers(scope), content=body)
        response = await self._http.send(request, stream=True)
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_cancel_on_disconnect, receive, tasks.cancel_scope)
                await self._answer(response, send)
                tasks.cancel_scope.cancel()
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _headers(self, scope: Scope) -> list[tuple[str, str]]:
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        sent = [(k, v) for k, v in headers if k.lower() not in _HOP_BY_HOP]
        sent = [(k, self._to_gateway(v) if k.lower() in ("host", "origin") else v) for k, v in sent]
        return [*sent, ("authorization", f"Bearer {self.token}")]

    def _to_gateway(self, value: str) -> str:
        scheme, _, authority = value.rpartition("://")
        name, _, port = authority.rpartition(":")
        if name not in _LOOPBACK_NAMES or port != str(self.port):
            return value
        moved = f"{name}:{self._target.port}"
        return f"{scheme}://{moved}" if scheme else moved

    def _rename_call(self, body: bytes) -> bytes:
        message = _json(body)
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return body
        params = message.get("params") or {}
        local = self.names.get(params.get("name"))
        if local is None:
            return body
        self.renamed.append(params["name"])
        message["params"] = {**params, "name": local}
        return json.dumps(message).encode()

    def _rename_listing(self, data: bytes) -> bytes:
        message = _json(data)
        result = message.get("result") if isinstance(message, dict) else None
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list) or not any(tool.get("name") in self._unnames for tool in tools):
            return data
        for tool in tools:
            tool["name"] = self._unnames.get(tool.get("name"), tool.get("name"))
        return json.dumps(message).encode()

    async def _answer(self, response: httpx.Response, send: Send) -> None:
        headers = [
            (k.encode("latin-1"), v.encode("latin-1"))
            for k, v in response.headers.multi_items()
            if k.lower() not in _HOP_BY_HOP
        ]
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    line = "data: " + self._rename_listing(line[6:].encode()).decode()
                await send({"type": "http.response.body", "body": line.encode() + b"\n", "more_body": True})
            await send({"type": "http.response.body", "body": b""})
            return
        body = self._rename_listing(await response.aread())
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@asynccontextmanager
async def bearer_proxy(target: str, token: str, names: Mapping[str, str]) -> AsyncIterator[BearerProxy]:
    """A :class:`BearerProxy` serving on a free 127.0.0.1 port (its URL: :func:`proxy_url`);
    stopped when the context exits, open streams cut after a short grace."""
    proxy = BearerProxy(target, token, names)
    config = uvicorn.Config(
        proxy, log_level="warning", lifespan="off", access_log=False, timeout_graceful_shutdown=_GRACE_S
    )
    server = uvicorn.Server(config)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        proxy.port = listener.getsockname()[1]
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(server.serve, [listener])
                try:
                    yield proxy
                finally:
                    server.should_exit = True
        finally:
            await proxy.aclose()


def proxy_url(proxy: BearerProxy) -> str:
    """The proxy's URL for the gateway's MCP path."""
    return f"http://127.0.0.1:{proxy.port}{urlsplit(proxy.target).path}"


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message: Message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None
