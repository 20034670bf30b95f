"""A tiny provider on 127.0.0.1 for the screen judge's real adapters: OpenAI-compatible chat
completions (``/v1/chat/completions``) and Anthropic Messages (``/v1/messages``). It answers
each request with a JSON verdict on the definition it was shown, and records every request."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from toolpool.vetting.judge import OPEN_QUOTE, SHUT_QUOTE

__all__ = ["FakeProvider"]


class FakeProvider:
    """Drops the tool named ``drop``, passes the others."""

    def __init__(self, drop: str) -> None:
        self.drop = drop
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def verdict(self, body: dict[str, Any]) -> str:
        content = body["messages"][-1]["content"]
        if isinstance(content, list):  # Anthropic's content blocks
            content = "".join(block.get("text", "") for block in content)
        definition = json.loads(content.split(OPEN_QUOTE)[1].split(SHUT_QUOTE)[0])
        if definition["name"] == self.drop:
            return json.dumps({"verdict": "drop", "reasons": ["it sends data to a URL"]})
        return json.dumps({"verdict": "pass", "reasons": []})

    def answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if path.endswith("/messages"):
            return {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": self.verdict(body)}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
        message = {"role": "assistant", "content": self.verdict(body)}
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


def _handler(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            fake.requests.append(
                {
                    "path": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "api_key": self.headers.get("x-api-key"),
                    "body": body,
                }
            )
            payload = json.dumps(fake.answer(self.path, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
