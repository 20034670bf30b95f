"""Taint (gate 6): text from untrusted results must not flow into the arguments of write tools.

A session's ``TaintLedger`` remembers what its tool results said, compactly: winnowed
fingerprints of the normalized text (any shared run of ``GUARANTEED`` characters or more is
always found, shorter ones sometimes), and hashes of the hosts of the URLs and of the e-mail
addresses in it. Before a write tool runs, every string in its arguments is checked against
the ledger.

Every hash here is the same in every process (no per-process seed), so a ledger can be saved
and restored: ``record`` returns what it added as a ``TaintDelta``, whose ``encode``d text is
what the store keeps with the session — numbers only, never the untrusted text itself.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["GUARANTEED", "TaintDelta", "TaintLedger"]

_K = 16  # characters per fingerprinted k-gram
_W = 8  # winnowing window, in k-grams
GUARANTEED = _K + _W - 1  # a shared run at least this long is always detected
_MAX_FINGERPRINTS = 500_000  # per session; the oldest results are forgotten first
_MAX_TEXT = 256 * 1024  # characters fingerprinted per result (the model sees the clipped text)
# Results noted but not yet fingerprinted (``TaintLedger.note``), in characters, before they are.
_MAX_PENDING = 1024 * 1024
_MAX_ARGUMENT_STRINGS = 10_000
_SPACES = re.compile(r"\s+")
_URL = re.compile(r"\bhttps?://[^\s\"'<>()\[\]{}]+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# k-grams are hashed as their UTF-32 code points read as one integer, modulo this prime: the
# same in every process and a little cheaper than hashing the slices as strings.
_PRIME = (1 << 61) - 1
_CODE_UNIT = 4


@dataclass(frozen=True, slots=True)
class TaintDelta:
    """What one ``record`` added to a ledger: fingerprints and hashes, no text."""

    fingerprints: tuple[int, ...] = ()
    hosts: tuple[int, ...] = ()
    emails: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.fingerprints or self.hosts or self.emails)

    def encode(self) -> str:
        """Compact text for the store: base64 of unsigned 64-bit numbers per kind."""
        return json.dumps(
            {"f": _pack(self.fingerprints), "h": _pack(self.hosts), "e": _pack(self.emails)},
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, text: str) -> TaintDelta:
        """Raises ValueError for text that ``encode`` did not write."""
        try:
            data = json.loads(text)
            return cls(_unpack(data["f"]), _unpack(data["h"]), _unpack(data["e"]))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError("not an encoded taint delta") from exc


class TaintLedger:
    """What one session's untrusted results said, for gate 6."""

    def __init__(
        self, on_record: Callable[[TaintDelta], None] | None = None, *, scope: str | None = None
    ) -> None:
        """``on_record`` gets what each ``record`` added (when it added anything): how a
        session's taint is kept in the store as it grows. ``scope`` names the ledger where
        replicas share taint (``toolpool.calls._shared``); ``shared_seen`` counts the shared
        entries already taken in."""
        self._on_record = on_record
        self.scope = scope
        self.shared_seen = 0
        self._fingerprints: set[int] = set()
        self._order: deque[int] = deque()
        self._hosts: set[int] = set()
        self._emails: set[int] = set()
        self._pending: list[str] = []
        self._pending_chars = 0

    def note(self, text: str) -> None:
        """``record`` when nobody needs its delta now: a read-only session never pays for
        fingerprints. Every other method takes noted text in first, in order, so ``find``
        answers exactly as if it had been recorded at once. A ledger whose growth is kept
        (``on_record``) records at once, and at most ``_MAX_PENDING`` characters wait."""
        if self._on_record is not None:
            self.record(text)
            return
        text = text[:_MAX_TEXT]
        self._pending.append(text)
        self._pending_chars += len(text)
        if self._pending_chars > _MAX_PENDING:
            self._take_noted()

    def record(self, text: str) -> TaintDelta:
        """Remember a result's text (the sanitized text a model or caller may see); returns
        what was new."""
        self._take_noted()
        return self._record(text)

    def _take_noted(self) -> None:
        pending, self._pending, self._pending_chars = self._pending, [], 0
        for text in pending:
            self._record(text)

    def _record(self, text: str) -> TaintDelta:
        text = text[:_MAX_TEXT]
        hosts = _hosts(text) - self._hosts
        emails = _emails(text) - self._emails
        fingerprints = _winnow(_normalize(text)) - self._fingerprints
        delta = TaintDelta(tuple(fingerprints), tuple(hosts), tuple(emails))
        self._restore((delta,))
        if delta and self._on_record is not None:
            self._on_record(delta)
        return delta

    def restore(self, deltas: Iterable[TaintDelta]) -> None:
        """Take back what earlier ``record`` calls returned, oldest first (a resumed session)."""
        self._take_noted()
        self._restore(deltas)

    def _restore(self, deltas: Iterable[TaintDelta]) -> None:
        for delta in deltas:
            self._hosts.update(delta.hosts)
            self._emails.update(delta.emails)
            for fingerprint in delta.fingerprints:
                if fingerprint not in self._fingerprints:
                    self._fingerprints.add(fingerprint)
                    self._order.append(fingerprint)
        while len(self._order) > _MAX_FINGERPRINTS:
            self._fingerprints.discard(self._order.popleft())

    def find(self, arguments: object) -> str | None:
        """Why ``arguments`` carry tainted text, or None. The reason is local text."""
        self._take_noted()
        if not (self._fingerprints or self._hosts or self._emails):
            return None
        for value in _strings(arguments):
            if self._hosts & _hosts(value):
                return "an argument contains a URL taken from an earlier tool result"
            if self._emails & _emails(value):
                return "an argument contains an e-mail address taken from an earlier tool result"
            if len(value) >= _K and not self._fingerprints.isdisjoint(_winnow(_normalize(value))):
                return "an argument contains text copied from an earlier tool result"
        return None


def _normalize(text: str) -> str:
    return _SPACES.sub(" ", text.casefold()).strip()


def _winnow(text: str) -> set[int]:
    """Winnowing (Schleimer et al.): the minimum k-gram hash of every window of ``_W``."""
    units = text.encode("utf-32-le", "surrogatepass")
    width = _K * _CODE_UNIT
    whole = int.from_bytes
    hashes = [
        whole(units[at : at + width], "little") % _PRIME
        for at in range(0, len(units) - width + 1, _CODE_UNIT)
    ]
    if len(hashes) <= _W:
        return {min(hashes)} if hashes else set()
    return {min(hashes[i : i + _W]) for i in range(len(hashes) - _W + 1)}


def _stable(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest())


def _emails(text: str) -> set[int]:
    return {_stable(email.casefold()) for email in _EMAIL.findall(text)}


def _hosts(text: str) -> set[int]:
    return {_stable(host) for host in _host_names(text)}


def _pack(numbers: tuple[int, ...]) -> str:
    packed = array("Q", numbers)
    if sys.byteorder == "big":  # stored little-endian, whatever machine wrote it
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


def _unpack(text: str) -> tuple[int, ...]:
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    if len(raw) % 8:
        raise ValueError("not a packed list of 64-bit numbers")
    numbers = array("Q")
    numbers.frombytes(raw)
    if sys.byteorder == "big":
        numbers.byteswap()
    return tuple(numbers)


def _host_names(text: str) -> set[str]:
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
