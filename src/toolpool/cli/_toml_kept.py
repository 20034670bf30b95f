"""A large configuration's TOML values, kept beside it as JSON for the next command.

tomllib reads 13 MB of TOML (20,000 servers) in ~8 s of CPU; ``json`` reads the same values in
a fraction of a second. Every command that loads the configuration (``import``, ``serve``,
``enable``, ...) reads the TOML first, so a command after the first keeps the values it read
beside the configuration (``.NAME.values``, ``cli._beside``: when such a file is believed)
and the next one with exactly that text, at that path, reads them instead.

The values are validated exactly as values read from the text are: the file saves the reading,
never a check. It is written only after the configuration validated, only for a configuration
of at least ``KEEP_FROM_BYTES`` (a small one reads in milliseconds and gets no file beside it),
and only when JSON carries every value exactly: TOML's dates and times, ``inf`` and ``nan``
have no JSON form, and such a configuration is read from its text every time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolpool.cli._beside import keep_beside, read_beside

__all__ = ["KEEP_FROM_BYTES", "keep_toml", "kept_toml"]

KEEP_FROM_BYTES = 256 * 1024
# Written into every file: one of another format (another toolpool) is never read.
_FORMAT = "toolpool-toml-1"
_KIND = "values"


def kept_toml(source: Path, text_hash: str) -> dict[str, Any] | None:
    """The TOML values kept for the configuration text ``text_hash`` at ``source``, or None
    when there are none this process may believe."""
    kept = read_beside(source, _KIND, {"format": _FORMAT, "hash": text_hash})
    if kept is None:
        return None
    try:
        values = json.loads(kept[1])
    except (ValueError, RecursionError):
        return None
    return values if isinstance(values, dict) else None


def keep_toml(source: Path, text_hash: str, values: dict[str, Any]) -> None:
    """Keep ``values`` (the text ``text_hash``'s TOML, validated) for the next command, unless
    JSON cannot carry one of them exactly."""
    try:
        body = json.dumps(values, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # a date or a time; inf or nan
        return
    keep_beside(source, _KIND, {"format": _FORMAT, "hash": text_hash}, body)
