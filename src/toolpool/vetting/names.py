"""Tool names (R3): which remote names are acceptable, and the local name each one gets.

Local names are what a model sees and calls: ``mcp__<alias>__<tool>``, with every character
outside ``[A-Za-z0-9_-]`` mapped to ``_`` so that every model provider accepts them, and cut
to 64 characters with a short hash of the remote name when longer.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

from toolpool.config import REMOTE_NAME_PATTERN

__all__ = ["LOCAL_NAME_PATTERN", "REMOTE_NAME_PATTERN", "local_name", "name_problems", "safe_name"]

LOCAL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_LOCAL_MAX = 64
_SUFFIX_CHARS = 8
_NOT_LOCAL = re.compile(r"[^A-Za-z0-9_-]")


def local_name(alias: str, remote_name: str) -> str:
    """The provider-safe local name of ``remote_name``; deterministic, at most 64 characters."""
    mapped = _NOT_LOCAL.sub("_", f"mcp__{alias}__{remote_name}")
    if len(mapped) <= _LOCAL_MAX:
        return mapped
    digest = hashlib.sha256(remote_name.encode()).hexdigest()[:_SUFFIX_CHARS]
    return f"{mapped[: _LOCAL_MAX - _SUFFIX_CHARS - 1]}_{digest}"


def safe_name(name: str) -> str:
    """A rendering of an upstream name that is safe to show anywhere, even to a model."""
    if REMOTE_NAME_PATTERN.match(name):
        return repr(name)
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"<invalid name, {len(name)} chars, sha256 {digest}>"


def name_problems(alias: str, remote_names: Iterable[str]) -> list[str]:
    """Every R3 problem with a server's published names, as model-safe lines."""
    names = list(remote_names)
    problems = [
        f"R3: tool name {safe_name(name)} is not 1-128 letters, digits, '.', '_' or '-'"
        for name in names
        if not REMOTE_NAME_PATTERN.match(name)
    ]
    problems += [
        f"R3: tool name {safe_name(name)} is published {count} times"
        for name, count in Counter(names).items()
        if count > 1
    ]
    by_local: dict[str, set[str]] = {}
    for name in names:
        if REMOTE_NAME_PATTERN.match(name):
            by_local.setdefault(local_name(alias, name), set()).add(name)
    problems += [
        f"R3: tool names {', '.join(safe_name(n) for n in sorted(clash))} all map to local name {local!r}"
        for local, clash in sorted(by_local.items())
        if len(clash) > 1
    ]
    return problems
