"""What both SDK adapters share at their boundary: settings, the overall deadline, and the
``ModelError`` values that replace the SDKs' exceptions.

Every message here is local text naming the model; what the provider said goes to ``detail``
only, trimmed, and with the api key blanked out, because a hostile or misconfigured server
may echo the key it was sent.
"""

from __future__ import annotations

import json
import math
from typing import Final

import httpx2

from toolpool.errors import ModelError, ModelRejected, ModelTimeout, ModelUnavailable, UsageError
from toolpool.redaction import Redactor

__all__ = [
    "Settings",
    "rejected_or_unavailable",
    "retries_taken",
    "timed_out",
    "unreachable",
    "unreadable",
]

# The longest retry-after the OpenAI SDK honours (it refuses to retry past it); the Anthropic
# SDK sleeps for whatever a server asks. Our deadline allows each retry this long a wait.
_RETRY_WAIT_ALLOWANCE_S: Final = 120.0
# httpx times connect, write and read separately, so one attempt may take a few timeouts.
_PHASES_PER_ATTEMPT: Final = 2
# Enough of a provider's error body to diagnose it; bodies can be whole HTML pages.
_DETAIL_CHARS: Final = 2000
_HINTS: Final = {
    400: "the request was malformed",
    401: "bad key?",
    403: "the key may not use this model",
    404: "unknown model or wrong base_url?",
    413: "the request is too large",
    422: "the request was malformed",
}


class Settings:
    """The checked settings of one adapter: its name, key, timeout and retries."""

    def __init__(self, name: str, *, api_key: str, timeout_s: float, max_retries: int) -> None:
        if not api_key:
            raise UsageError(f"{name}: api_key is empty (a local server that needs none takes any text)")
        if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s) and timeout_s > 0):
            raise UsageError(f"{name}: timeout_s must be a positive number of seconds, not {timeout_s!r}")
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise UsageError(f"{name}: max_retries must be a whole number >= 0, not {max_retries!r}")
        self.name = name
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self._redactor = Redactor()
        self._redactor.register("api key", api_key)

    def __repr__(self) -> str:
        return f"Settings({self.name!r}, timeout_s={self.timeout_s}, max_retries={self.max_retries})"

    @property
    def deadline_s(self) -> float:
        """A bound on one ``complete`` call, retries and their waits included.

        The SDKs bound each attempt, but not the whole: a trickling reply resets httpx's read
        timeout, and a server's retry-after can ask for hours.
        """
        attempts = self.max_retries + 1
        return attempts * _PHASES_PER_ATTEMPT * self.timeout_s + self.max_retries * _RETRY_WAIT_ALLOWANCE_S

    def scrub(self, text: str) -> str:
        """``text`` trimmed for ``detail``, with the api key (in any spelling) blanked out."""
        return self._redactor.redact(text)[:_DETAIL_CHARS]


def retries_taken(request: httpx2.Request) -> int:
    """How many retries came before the SDK's last attempt, which sent ``request``.

    Both SDKs (Stainless-generated) number their attempts in this header; it can be fewer than
    ``max_retries``, as the SDKs stop early when a server says ``x-should-retry: false`` or, in
    OpenAI's, asks to wait more than two minutes.
    """
    count = request.headers.get("x-stainless-retry-count", "")
    return int(count) if count.isdigit() else 0


def timed_out(settings: Settings, retries: int = 0, *, overall: bool = False) -> ModelTimeout:
    if overall:
        return ModelTimeout(settings.name, f"no answer within {settings.deadline_s:g} s, retries included")
    return ModelTimeout(settings.name, f"no answer within {settings.timeout_s:g} s{_after(retries)}")


def unreachable(settings: Settings, retries: int, cause: BaseException | None) -> ModelUnavailable:
    detail = settings.scrub(f"{type(cause).__name__}: {cause}") if cause is not None else ""
    return ModelUnavailable(settings.name, f"could not reach the provider{_after(retries)}", detail=detail)


def rejected_or_unavailable(settings: Settings, status: int, body: object, retries: int) -> ModelError:
    """The error for an HTTP error status that the SDK gave up on (after its retries)."""
    detail = settings.scrub(f"HTTP {status}: {_text(body)}")
    answered = f"the provider answered {status}"
    if status == 408:
        return ModelTimeout(settings.name, f"{answered} (request timeout){_after(retries)}", detail=detail)
    if status == 429:
        return ModelUnavailable(settings.name, f"{answered} (rate limited){_after(retries)}", detail=detail)
    if status >= 500 or status < 400:
        return ModelUnavailable(settings.name, f"{answered}{_after(retries)}", detail=detail)
    hint = f" ({_HINTS[status]})" if status in _HINTS else ""
    return ModelRejected(settings.name, f"{answered}{hint}", status=status, detail=detail)


def unreadable(settings: Settings, problem: str, content: bytes) -> ModelUnavailable:
    """The error for a reply that arrived but does not fit the wire format."""
    detail = settings.scrub(content.decode("utf-8", errors="replace"))
    return ModelUnavailable(
        settings.name, f"the provider sent a reply that cannot be read: {problem}", detail=detail
    )


def _after(retries: int) -> str:
    return f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""


def _text(body: object) -> str:
    if isinstance(body, str):
        return body
    try:
        return json.dumps(body, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(body)
