"""The one hash of canonical JSON: a tool's definition (pins, R7) and a server's reach (R15).

Sorted keys, no spaces, non-ASCII kept as is, then sha256 of the UTF-8 text (lone surrogates
from a hostile server kept as ``surrogatepass`` bytes, so every definition has a hash).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["canonical_hash", "definition_hash"]


def canonical_hash(value: object) -> str:
    """``sha256:`` and the hex digest of ``value`` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def definition_hash(definition: Mapping[str, Any]) -> str:
    """The pin hash of a tool's canonical definition (``PublishedTool.definition()``)."""
    return canonical_hash(definition)
