"""Taint (gate 6): text from untrusted results must not flow into the arguments of write tools.

A session's ``TaintLedger`` remembers what its tool results said, compactly: winnowed
fingerprints of the normalized text (any shared run of ``GUARANTEED`` characters or more is
always found, shorter ones sometimes), the hosts of the URLs and the e-mail addresses in it.
Before a write tool runs, every string in its arguments is checked against the ledger.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Mapping
from urllib.parse import urlsplit

__all__ = ["GUARANTEED", "TaintLedger"]

_K = 16  # characters per fingerprinted k-gram
_W = 8  # winnowing window, in k-grams
GUARANTEED = _K + _W - 1  # a shared run at least this long is always detected
_MAX_FINGERPRINTS = 500_000  # per session; the oldest results are forgotten first
_MAX_TEXT = 256 * 1024  # characters fingerprinted per result (the model sees the clipped text)
_MAX_ARGUMENT_STRINGS = 10_000
_SPACES = re.compile(r"\s+")
_URL = re.compile(r"\bhttps?://[^\s\"'<>()\[\]{}]+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


class TaintLedger:
    """What one session's untrusted results said, for gate 6."""

    def __init__(self) -> None:
        self._fingerprints: set[int] = set()
        self._order: deque[int] = deque()
        self._hosts: set[str] = set()
        self._emails: set[str] = set()

    def record(self, text: str) -> None:
        """Remember a result's text (the sanitized text a model or caller may see)."""
        text = text[:_MAX_TEXT]
        self._hosts.update(_hosts(text))
        self._emails.update(email.casefold() for email in _EMAIL.findall(text))
        for fingerprint in _winnow(_normalize(text)):
            if fingerprint not in self._fingerprints:
                self._fingerprints.add(fingerprint)
                self._order.append(fingerprint)
        while len(self._order) > _MAX_FINGERPRINTS:
            self._fingerprints.discard(self._order.popleft())

    def find(self, arguments: object) -> str | None:
        """Why ``arguments`` carry tainted text, or None. The reason is local text."""
        if not (self._fingerprints or self._hosts or self._emails):
            return None
        for value in _strings(arguments):
            if self._hosts & _hosts(value):
                return "an argument contains a URL taken from an earlier tool result"
            if self._emails & {email.casefold() for email in _EMAIL.findall(value)}:
                return "an argument contains an e-mail address taken from an earlier tool result"
            if len(value) >= _K and not self._fingerprints.isdisjoint(_winnow(_normalize(value))):
                return "an argument contains text copied from an earlier tool result"
        return None


def _normalize(text: str) -> str:
    return _SPACES.sub(" ", text.casefold()).strip()


def _winnow(text: str) -> set[int]:
    """Winnowing (Schleimer et al.): the minimum k-gram hash of every window of ``_W``."""
    hashes = [hash(text[i : i + _K]) for i in range(len(text) - _K + 1)]
    if len(hashes) <= _W:
        return {min(hashes)} if hashes else set()
    return {min(hashes[i : i + _W]) for i in range(len(hashes) - _W + 1)}


def _hosts(text: str) -> set[str]:
    found = set()
    for url in _URL.findall(text):
        try:
            host = urlsplit(url).hostname
        except ValueError:
            continue
        if host:
            found.add(host.casefold().rstrip("."))
    return found


def _strings(value: object) -> Iterator[str]:
    stack = [value]
    seen = 0
    while stack and seen < _MAX_ARGUMENT_STRINGS:
        item = stack.pop()
        if isinstance(item, str):
            seen += 1
            yield item
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
