"""The part of a ``Model`` that does not depend on the provider: lifecycle, deadline, the one
place where SDK exceptions become ``ModelError``, and reading the reply as hostile JSON.

An adapter supplies three things: how to send a request with its SDK (returning the raw
body), how to read that body into a ``ModelReply``, and how its SDK's exceptions map.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, Final, Self

import anyio

from toolpool.agent._messages import ModelReply, ModelRequest
from toolpool.agent.models._failures import Settings, timed_out, unreadable
from toolpool.agent.models._json import Unreadable, decode
from toolpool.errors import ModelError, UsageError

__all__ = ["SdkModel"]

# Closing only releases pooled connections; it must not hang a shutdown.
_CLOSE_S: Final = 5.0


class SdkModel(ABC):
    """A ``Model`` over an official SDK client. ``aclose`` is idempotent; a closed model
    refuses ``complete`` (it cannot reopen). An ``http_client`` the caller passed in is the
    caller's to close."""

    def __init__(self, settings: Settings, *, owns_http_client: bool) -> None:
        self._settings = settings
        self._owns_http_client = owns_http_client
        self._closed = False

    @property
    def name(self) -> str:
        return self._settings.name

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<{type(self).__name__} {self.name!r} {state}>"

    async def complete(self, request: ModelRequest) -> ModelReply:
        """Send ``request``; the SDK retries 408/409/429/5xx and dropped connections with backoff.

        Raises:
            ModelTimeout: no answer within the timeout (or the overall deadline).
            ModelUnavailable: unreachable, still failing after the retries, or an unreadable reply.
            ModelRejected: a 4xx that retrying cannot fix (bad key, unknown model, bad request).
            UsageError: the model was closed.
        """
        if self._closed:
            raise UsageError(f"{self.name}: the model is closed; make a new one")
        try:
            with anyio.fail_after(self._settings.deadline_s):
                content = await self._send(request)
        except TimeoutError as exc:
            raise timed_out(self._settings, overall=True) from exc
        except Exception as exc:
            error = self._translate(exc)
            if error is None:
                raise
            raise error from exc
        try:
            return self._read(decode(content))
        except Unreadable as exc:
            raise unreadable(self._settings, str(exc), content) from exc

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns_http_client:
            with anyio.move_on_after(_CLOSE_S, shield=True):
                await self._close_client()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    @abstractmethod
    async def _send(self, request: ModelRequest) -> bytes:
        """Send ``request`` through the SDK; the raw body of the successful reply."""

    @abstractmethod
    def _read(self, body: dict[str, Any]) -> ModelReply:
        """The reply in ``body``; raises ``Unreadable`` where it does not fit the wire format."""

    @abstractmethod
    def _translate(self, exc: Exception) -> ModelError | None:
        """The ``ModelError`` for an SDK exception; ``None`` for anything that is not the SDK's."""

    @abstractmethod
    async def _close_client(self) -> None: ...
