"""Encoded payloads: base64, hex, percent and escape sequences that decode to readable text.

Only candidates that decode to mostly printable text are returned; the screener screens that
text again (once more for nested encodings), so a blob of JSON settings or "the quick brown
fox" passes while ``Y3VybCBodHRwOi8v…`` ("curl http://… | sh") does not. Bounded: a few
candidates per text, each clipped.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from urllib.parse import unquote_to_bytes

from toolpool.vetting.screener._guard import compiled

__all__ = ["CANDIDATE", "decoded_payloads"]

_MAX_CANDIDATES = 8
_MAX_ATTEMPTS = 32
_MAX_CANDIDATE_CHARS = 8192
_BASE64 = compiled(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = compiled(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){10,}(?![0-9A-Fa-f])")
_ESCAPED = compiled(r"(?:\\x[0-9A-Fa-f]{2}){6,}|(?:\\u00[0-9A-Fa-f]{2}){6,}|(?:%[0-9A-Fa-f]{2}){6,}")
_CANDIDATE = compiled(r"[A-Za-z0-9+/_%\\-]{16,}")
# No payload without such a run (``decoded_payloads`` looks no further; ``_plain`` neither).
CANDIDATE = _CANDIDATE
_LOWER_RUN = compiled(r"[a-z]{5,}")
_ESCAPE_PAIR = compiled(r"\\(?:x|u00)([0-9A-Fa-f]{2})")


def decoded_payloads(text: str) -> Iterator[tuple[str, str]]:
    """(encoding, decoded text) for each candidate in ``text`` that decodes to readable text."""
    if len(text) < 16 or _CANDIDATE.search(text) is None:
        return
    found = attempts = 0
    for kind, pattern in (("hex", _HEX), ("escaped", _ESCAPED), ("base64", _BASE64)):
        for match in pattern.finditer(text):
            candidate = match.group()[:_MAX_CANDIDATE_CHARS]
            if kind == "base64" and not _looks_encoded(candidate):
                continue
            attempts += 1
            decoded = _readable(_decode(kind, candidate))
            if decoded is not None:
                yield kind, decoded
                found += 1
            if found >= _MAX_CANDIDATES or attempts >= _MAX_ATTEMPTS:
                return


def _looks_encoded(candidate: str) -> bool:
    """Identifiers and words are not base64: payloads mix cases and digits, without long words."""
    body = candidate.rstrip("=")
    has_upper = any(c.isupper() for c in body)
    has_lower = any(c.islower() for c in body)
    has_other = any(c.isdigit() or c in "+/_-" for c in body)
    if not (has_upper and has_lower and (has_other or len(body) >= 24)):
        return False
    wordy = sum(len(run) for run in _LOWER_RUN.findall(body))
    return wordy < 0.35 * len(body)


def _decode(kind: str, candidate: str) -> bytes:
    try:
        if kind == "hex":
            return bytes.fromhex(candidate)
        if kind == "escaped":
            if candidate.startswith("%"):
                return unquote_to_bytes(candidate)
            return bytes(int(pair, 16) for pair in _ESCAPE_PAIR.findall(candidate))
        padded = candidate + "=" * (-len(candidate) % 4)
        if "-" in candidate or "_" in candidate:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (ValueError, binascii.Error):
        return b""


def _readable(data: bytes) -> str | None:
    if len(data) < 6:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for char in text if char.isprintable() or char in "\n\t")
    letters = sum(1 for char in text if char.isalpha())
    if printable < 0.95 * len(text) or letters < 0.2 * len(text) or " " not in text.strip():
        return None
    return text
