"""Opaque cursors of the long listings (the admin API's tools, the UI's tools page).

A cursor names the (alias, tool) a page ended at; the next page starts after it, so a page
costs one range scan of the store's primary key wherever it starts, and rows added or
removed between two pages shift nothing. Clients must treat it as opaque: it is URL-safe
base64 of a JSON pair, and anything else is refused (``decode_cursor`` returns None).
"""

from __future__ import annotations

import base64
import binascii
import json

from toolpool.config import ALIAS_PATTERN, REMOTE_NAME_PATTERN

__all__ = ["CURSOR_MAX", "decode_cursor", "encode_cursor"]

CURSOR_MAX = 400  # an alias (48) and a tool name (128) as JSON, in base64, fit with room


def encode_cursor(alias: str, name: str) -> str:
    text = json.dumps([alias, name], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str] | None:
    """The (alias, name) ``cursor`` stands for, or None if it is not a cursor of a listing."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = json.loads(raw)
    except (binascii.Error, ValueError):
        return None
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(part, str) for part in value)):
        return None
    alias, name = value
    if not ALIAS_PATTERN.match(alias) or not REMOTE_NAME_PATTERN.match(name):
        return None
    return alias, name
