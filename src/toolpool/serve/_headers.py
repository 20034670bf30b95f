"""The security headers of the service's own answers: the UI's pages, the admin API's JSON.

Both planes answer only their own origin, are never framed, never sniffed, never cached and
send no referrer. The UI loads its script, style and images from this origin; the admin API
loads nothing, so its policy allows nothing (a JSON answer opened in a browser runs nothing).
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["API_HEADERS", "API_POLICY", "UI_HEADERS", "UI_POLICY", "SecurityHeaders"]

UI_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
API_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
_COMMON: Mapping[str, str] = {
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
UI_HEADERS: Mapping[str, str] = {"content-security-policy": UI_POLICY, **_COMMON}
API_HEADERS: Mapping[str, str] = {"content-security-policy": API_POLICY, **_COMMON}


class SecurityHeaders:
    """Adds ``headers`` to every response, and ``cache-control: no-store`` to every response
    that did not choose its own (answers show live state)."""

    def __init__(self, app: ASGIApp, headers: Mapping[str, str]) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.update(self.headers)
                headers.setdefault("cache-control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)
