"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1, for the screen judge's
provider path: it answers each request with a JSON verdict on the definition it was shown."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from toolpool.vetting.judge import OPEN_QUOTE, SHUT_QUOTE

__all__ = ["FakeOpenAI"]


class FakeOpenAI:
    """Drops the tool named ``drop``, passes the others; records every request."""

    def __init__(self, drop: str) -> None:
        self.drop = drop
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        text = body["messages"][-1]["content"]
        definition = json.loads(text.split(OPEN_QUOTE)[1].split(SHUT_QUOTE)[0])
        dropped = definition["name"] == self.drop
        verdict = (
            {"verdict": "drop", "reasons": ["it sends data to a URL"]}
            if dropped
            else {"verdict": "pass", "reasons": []}
        )
        message = {"role": "assistant", "content": json.dumps(verdict)}
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            fake.requests.append(
                {"path": self.path, "authorization": self.headers.get("Authorization"), "body": body}
            )
            payload = json.dumps(fake.answer(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
