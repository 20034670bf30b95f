"""Cursors of the long listings (the admin API's tools, the UI's tools page).

A cursor names the (alias, tool) a page ended at, as ``alias:tool``; the next page starts
after it, so a page costs one range scan of the store's primary key wherever it starts, and
rows added or removed between two pages shift nothing. Any position is a valid cursor (the
listing starts after it), so every string that matches ``CURSOR_PATTERN`` — the pattern the
API documents — is accepted, and any other is refused (``decode_cursor`` returns None).
Clients should pass a cursor on as they got it.
"""

from __future__ import annotations

import re

__all__ = ["CURSOR_MAX", "CURSOR_PATTERN", "decode_cursor", "encode_cursor"]

CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,64}:[A-Za-z0-9._-]{1,128}$"
CURSOR_MAX = 64 + 1 + 128
_CURSOR = re.compile(CURSOR_PATTERN)


def encode_cursor(alias: str, name: str) -> str:
    return f"{alias}:{name}"


def decode_cursor(cursor: str) -> tuple[str, str] | None:
    """The (alias, name) ``cursor`` stands for, or None if it is not a cursor of a listing."""
    if not _CURSOR.match(cursor):
        return None
    alias, _, name = cursor.partition(":")
    return alias, name
