"""The web UI's logins: server-side sessions, their cookie, CSRF tokens and form bodies.

A session id is 256 random bits kept in this process's memory; the cookie holds nothing else
(never the admin token). A session ends on logout, after ``IDLE_S`` without a request, or
``MAX_AGE_S`` after login, whichever comes first; past ``MAX_SESSIONS`` the oldest is dropped.
Each session has its own CSRF token, which every state-changing form carries. Restarting the
service logs everyone out: that is intended.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response

__all__ = [
    "COOKIE",
    "FORM_MAX_BYTES",
    "Flash",
    "FormError",
    "Sessions",
    "UiSession",
    "clear_cookie",
    "read_form",
    "set_cookie",
]

COOKIE = "toolpool_ui"
IDLE_S = 8 * 3600.0  # a working day without a click logs out
MAX_AGE_S = 24 * 3600.0  # and nobody stays logged in across days
MAX_SESSIONS = 256  # a handful of operators; bounds memory whatever a client does
FORM_MAX_BYTES = 64 * 1024  # the longest form is an approval reason; the login form is public


@dataclass(frozen=True, slots=True)
class Flash:
    """A one-time message shown on the next page: the outcome of an action."""

    level: Literal["ok", "error"]
    text: str


@dataclass(slots=True)
class UiSession:
    """One logged-in browser."""

    id: str
    csrf: str
    actor: str
    started: float
    seen: float
    flashes: list[Flash] = field(default_factory=list)

    def flash(self, level: Literal["ok", "error"], text: str) -> None:
        self.flashes.append(Flash(level, text))

    def take_flashes(self) -> list[Flash]:
        taken, self.flashes = self.flashes, []
        return taken

    def csrf_ok(self, form: Mapping[str, str]) -> bool:
        """Whether ``form`` carries this session's CSRF token (compared in constant time)."""
        return hmac.compare_digest(form.get("csrf", "").encode(), self.csrf.encode())


class Sessions:
    """The sessions of one UI app, in memory; safe to use from any thread."""

    def __init__(
        self,
        *,
        idle_s: float = IDLE_S,
        max_age_s: float = MAX_AGE_S,
        limit: int = MAX_SESSIONS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._idle_s = idle_s
        self._max_age_s = max_age_s
        self._limit = limit
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, UiSession] = {}

    def open(self, actor: str) -> UiSession:
        """A new session (always a fresh id: a login never reuses one it was handed)."""
        now = self._clock()
        session = UiSession(secrets.token_urlsafe(32), secrets.token_urlsafe(32), actor, now, now)
        with self._lock:
            self._expire(now)
            while len(self._sessions) >= self._limit:
                oldest = min(self._sessions.values(), key=lambda s: s.seen)
                del self._sessions[oldest.id]
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> UiSession | None:
        """The live session with this id (its idle clock restarts), or None."""
        if not session_id:
            return None
        now = self._clock()
        with self._lock:
            self._expire(now)
            session = self._sessions.get(session_id)
            if session is not None:
                session.seen = now
            return session

    def close(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _expire(self, now: float) -> None:
        stale = [
            key
            for key, session in self._sessions.items()
            if now - session.seen > self._idle_s or now - session.started > self._max_age_s
        ]
        for key in stale:
            del self._sessions[key]


def set_cookie(response: Response, request: Request, session: UiSession, path: str) -> None:
    """The session cookie: HttpOnly, SameSite=Strict, Secure when the request came over https."""
    response.set_cookie(
        COOKIE,
        session.id,
        max_age=int(MAX_AGE_S),
        path=path,
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )


def clear_cookie(response: Response, request: Request, path: str) -> None:
    response.delete_cookie(
        COOKIE, path=path, secure=request.url.scheme == "https", httponly=True, samesite="strict"
    )


class FormError(Exception):
    """A form body this UI does not read: too large, or not ``application/x-www-form-urlencoded``."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


async def read_form(request: Request, limit: int = FORM_MAX_BYTES) -> dict[str, str]:
    """The fields of an urlencoded form (the last value of a repeated name), read up to ``limit``
    bytes: the login form is reachable without a session, so its body is bounded.

    Raises:
        FormError: another content type (415), or a body over ``limit`` bytes (413).
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in ("application/x-www-form-urlencoded", ""):
        raise FormError(415, "forms are sent as application/x-www-form-urlencoded")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise FormError(413, f"a form body is at most {limit} bytes")
    if not kind and body:  # an empty body needs no type: it is an empty form
        raise FormError(415, "forms are sent as application/x-www-form-urlencoded")
    try:
        return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=64))
    except ValueError:
        raise FormError(413, "a form has at most 64 fields") from None
