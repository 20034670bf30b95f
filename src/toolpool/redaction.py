"""Redaction: a secret's value never leaves in an Envelope, an error, an event or an audit row.

The pool registers every secret value it resolves (for a header or an environment variable)
with its ``Redactor``; everything that leaves the pool passes through ``redact``, which
replaces the value, and its URL and base64 spellings, with ``[secret:NAME]``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

__all__ = ["Redactor"]

# Shorter values would blank out ordinary words; secrets that short are refused elsewhere.
_MIN_LENGTH = 4


class Redactor:
    """Replaces registered secret values wherever they appear."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def register(self, name: str, value: str) -> None:
        if len(value) < _MIN_LENGTH:
            return
        for spelling in _spellings(value):
            self._names[spelling] = name
        ordered = sorted(self._names, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(spelling) for spelling in ordered))

    def redact(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda match: f"[secret:{self._names[match.group(0)]}]", text)

    def redact_value(self, value: Any) -> Any:
        """``redact`` applied to every string in a JSON-like value (keys too)."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {self.redact(str(key)): self.redact_value(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.redact_value(item) for item in value)
        return value


def _spellings(value: str) -> set[str]:
    raw = value.encode()
    spellings = {
        value,
        quote(value, safe=""),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
    }
    # base64 text is often found without its padding.
    spellings |= {spelling.rstrip("=") for spelling in spellings}
    return {spelling for spelling in spellings if len(spelling) >= _MIN_LENGTH}
