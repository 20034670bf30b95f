"""Canonical JSON, digests and text that every database can store."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

__all__ = ["canonical", "digest", "now", "plain", "storable", "timestamp"]

# Lone surrogates cannot be encoded as UTF-8 and NUL cannot live in a PostgreSQL text value;
# both can arrive from a hostile server.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


# One encoder, built once: ``json.dumps`` with options builds a new one per call, which costs
# more than encoding a small value (the audit chain encodes two values per event).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def canonical(value: object) -> str:
    """Sorted keys, no spaces, ASCII only: one text per value, on every database and platform."""
    return _CANONICAL.encode(value)


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def now() -> datetime:
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """The form of a moment that hashes include: UTC, microseconds, no zone suffix."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")


def storable(text: str) -> str:
    """``text`` with the characters no database stores replaced by U+FFFD."""
    if text.isascii() and "\x00" not in text:
        return text  # the usual case, without the regex: lone surrogates are never ASCII
    return _UNSTORABLE.sub("\ufffd", text)


def plain(value: object) -> Any:
    """``value`` as JSON data: mappings with string keys, lists, and scalars; anything else as
    its ``str()``. Datetimes become ISO text and sets sorted lists."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(item) for item in value), key=canonical)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)
