"""A programmable HTTP server that speaks the model providers' wire formats, for adapter tests.

The adapters are tested through the real SDKs over real HTTP: only the far end is scripted.
``serve_wire()`` runs a starlette app under uvicorn in a background thread, on a socket bound
to a free 127.0.0.1 port *before* the thread starts, so a client that connects early waits in
the backlog and no test has to poll for readiness. Each POST is recorded (path, headers, JSON
body) and answered with the next scripted ``Reply``; ``HANG`` never answers and ends only when
the client gives up and disconnects, which is how timeouts are tested; a ``drip_s`` reply
sends its body a byte at a time, too slowly to finish but fast enough to beat a read timeout.

A request is recorded before it is answered, so once the client has its answer the record is
there: tests read ``requests`` without any other synchronisation.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import uvicorn
from starlette.types import Receive, Scope, Send

__all__ = [
    "HANG",
    "Received",
    "Reply",
    "WireServer",
    "anthropic_error",
    "anthropic_message",
    "openai_completion",
    "openai_error",
    "serve_wire",
]

# uvicorn polls its exit flag every 0.1 s and then drains; a hung handler ends when its
# client disconnects, so stopping takes well under this.
_STOP_S = 10.0
_GRACEFUL_SHUTDOWN_S = 2


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer: a status, headers and a JSON body (or raw bytes), or a hang."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    hang: bool = False
    drip_s: float | None = None  # send the body one byte per drip_s seconds


HANG = Reply(hang=True)

# Answers a request nobody scripted: a 4xx the SDKs do not retry, so the test fails at once.
_UNSCRIPTED = Reply(418, {"error": {"message": "no reply was scripted"}}, {"x-should-retry": "false"})


@dataclass(frozen=True, slots=True)
class Received:
    """One request as the server saw it; header names are lower case."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


class WireServer:
    """The running server: script replies with ``reply``, read what arrived in ``requests``."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self._lock = threading.Lock()
        self._replies: deque[Reply] = deque()
        self._received: list[Received] = []

    def reply(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def requests(self) -> Sequence[Received]:
        with self._lock:
            return tuple(self._received)

    def _take(self, received: Received) -> Reply:
        with self._lock:
            self._received.append(received)
            return self._replies.popleft() if self._replies else _UNSCRIPTED

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        raw = b"".join(chunks)
        headers = {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}
        body = json.loads(raw) if raw else None
        reply = self._take(Received(scope["method"], scope["path"], headers, body))
        if reply.hang:
            # Wait for the client to give up: receive() returns http.disconnect when it does.
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        content = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
        kind = b"application/json" if reply.raw is None else b"text/plain"
        response_headers = [(b"content-type", kind), (b"content-length", str(len(content)).encode())]
        response_headers += [(key.encode(), value.encode()) for key, value in reply.headers.items()]
        await send({"type": "http.response.start", "status": reply.status, "headers": response_headers})
        if reply.drip_s is None:
            await send({"type": "http.response.body", "body": content})
        else:
            await _drip(content, reply.drip_s, receive, send)


async def _drip(content: bytes, every_s: float, receive: Receive, send: Send) -> None:
    """Send ``content`` a byte at a time until done or until the client disconnects."""
    async with anyio.create_task_group() as group:

        async def stop_on_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(stop_on_disconnect)
        for index in range(len(content)):
            await anyio.sleep(every_s)  # the pace of the reply, not synchronisation
            await send({"type": "http.response.body", "body": content[index : index + 1], "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        group.cancel_scope.cancel()


@contextmanager
def serve_wire() -> Iterator[WireServer]:
    """Run a ``WireServer`` on a free 127.0.0.1 port; stop and join its thread on exit."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    wire = WireServer(listener.getsockname()[1])
    config = uvicorn.Config(
        wire,
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN_S,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, name="wire", daemon=True)
    thread.start()
    try:
        yield wire
    finally:
        server.should_exit = True
        thread.join(_STOP_S)
        listener.close()
        if thread.is_alive():
            raise RuntimeError(f"the wire server did not stop within {_STOP_S} s")


def openai_completion(
    text: str | None = "",
    *,
    tool_calls: Sequence[tuple[str, str, str]] = (),
    finish_reason: str | None = None,
    usage: tuple[int, int] = (11, 7),
) -> dict[str, Any]:
    """A Chat Completions reply; ``tool_calls`` are ``(id, name, arguments as sent)``."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in tool_calls
        ]
    reason = finish_reason or ("tool_calls" if tool_calls else "stop")
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


def openai_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def anthropic_message(
    text: str = "",
    *,
    tool_uses: Sequence[tuple[str, str, Any]] = (),
    stop_reason: str | None = None,
    usage: tuple[int, int] = (13, 5),
) -> dict[str, Any]:
    """A Messages reply; ``tool_uses`` are ``(id, name, input as sent)``."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": use_id, "name": name, "input": arguments}
        for use_id, name, arguments in tool_uses
    ]
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": content,
        "stop_reason": stop_reason or ("tool_use" if tool_uses else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def anthropic_error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
