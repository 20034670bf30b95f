"""How many model tokens a tool definition costs in a prompt, estimated the same way everywhere.

Providers tokenize differently and a real tokenizer is a large dependency, so toolpool uses the
common estimate of one token per four bytes of the compact JSON a client or model is sent. The
figure is for comparing (a listing that doubled, which alias costs most) and for billing that
must agree with itself, not for matching a provider's invoice to the token.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["BYTES_PER_TOKEN", "definition_tokens"]

BYTES_PER_TOKEN = 4


def definition_tokens(definition: Mapping[str, Any]) -> int:
    """The estimated tokens of one tool as listed: ``name``, ``description`` and its schemas."""
    try:
        text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return 0
    size = len(text.encode("utf-8", "surrogatepass"))
    return -(-size // BYTES_PER_TOKEN)
