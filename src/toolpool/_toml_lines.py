"""Find the line of a key in TOML text, so configuration errors can say ``file:line``.

``tomllib`` keeps no positions, so this is a small best-effort scan: it follows table headers
and ``key =`` lines and returns the line of the deepest part of the key path it can find.
"""

from __future__ import annotations

import re

__all__ = ["locate_key"]

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<path>[^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY_LINE = re.compile(
    r"""^\s*(?P<key>(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)
_PART = re.compile(r"""\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[A-Za-z0-9_-]+))\s*""")


def locate_key(text: str, key: tuple[str, ...]) -> int | None:
    """Return the 1-based line of ``key`` (or of its deepest found ancestor), or None."""
    best_line: int | None = None
    best_depth = 0
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            table = _split(header.group("path"))
            path = table
        else:
            key_line = _KEY_LINE.match(line)
            if not key_line:
                continue
            path = table + _split(key_line.group("key"))
        depth = _common_prefix(path, key)
        if depth == len(path) and depth > best_depth:
            best_line, best_depth = number, depth
            if depth == len(key):
                return number
    return best_line


def _split(dotted: str) -> tuple[str, ...]:
    parts: list[str] = []
    for match in _PART.finditer(dotted):
        value = match.group("dq") if match.group("dq") is not None else match.group("sq")
        parts.append(value if value is not None else match.group("bare"))
    return tuple(parts)


def _common_prefix(path: tuple[str, ...], key: tuple[str, ...]) -> int:
    depth = 0
    for mine, wanted in zip(path, key, strict=False):
        if mine != wanted:
            break
        depth += 1
    return depth
