"""Files the CLI keeps beside a configuration for its next run, and when one is believed.

A configuration of 20,000 servers is 13 MB of TOML: reading it costs seconds on every command.
What a command derives from it (``toolpool tools``' listing, the TOML's values) is kept in a
file beside it, ``.NAME.<kind>``, under the sha256 of the configuration's text.

The file is one line of JSON (the head: its format, the configuration's hash and path, the
sha256 of the body, and what the kind adds), then the body. A file that was cut short,
corrupted or edited by hand is not believed, and neither is one of another format.

Trust: a kept file says no more than the configuration, and it is believed only when whoever
could write it could write the configuration too: both belong to the user running the command,
and the file is a regular file (not a link) that nobody else can read or write. Anything else
(another owner, loose modes, another text, another path, a head that does not parse or a body
that does not match its hash) and the configuration is read as always.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["config_hash", "keep_beside", "read_beside"]

_PRIVATE = 0o600


def config_hash(text: str) -> str:
    """``sha256:`` of a configuration's text (what the store remembers a sync of, too)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_beside(source: Path, kind: str, expected: Mapping[str, str]) -> tuple[dict[str, Any], bytes] | None:
    """The head and body kept as ``kind`` beside ``source``, when this process may believe
    them and the head holds each of ``expected``; else None."""
    try:
        descriptor = os.open(_path_of(source, kind), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as file:
        try:
            if not (_private(os.fstat(file.fileno())) and _owned(source)):
                return None
            head_line, _, body = file.read().partition(b"\n")
            head = json.loads(head_line)
        except (OSError, ValueError, RecursionError):
            return None
    if not isinstance(head, dict):
        return None
    wanted = {**expected, "source": str(source), "body": "sha256:" + hashlib.sha256(body).hexdigest()}
    if any(head.get(key) != value for key, value in wanted.items()):
        return None
    return head, body


def keep_beside(source: Path, kind: str, head: Mapping[str, Any], body: bytes) -> None:
    """Keep ``body`` as ``kind`` beside ``source`` for the next run, if the configuration is
    the user's own; a folder that cannot take it (read-only, full) only costs that speed."""
    if not _owned(source):
        return
    kept = _path_of(source, kind)
    partial = kept.with_name(f"{kept.name}.{os.getpid()}.partial")
    line = {**head, "source": str(source), "body": "sha256:" + hashlib.sha256(body).hexdigest()}
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(partial, flags, _PRIVATE), "wb") as file:
            file.write(json.dumps(line, separators=(",", ":")).encode("utf-8") + b"\n" + body)
        os.replace(partial, kept)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()


def _path_of(source: Path, kind: str) -> Path:
    return source.with_name(f".{source.name}.{kind}")


def _private(found: os.stat_result) -> bool:
    """A regular file of this user that no one else may read or write."""
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & 0o077


def _owned(source: Path) -> bool:
    try:
        return source.stat().st_uid == os.geteuid()
    except OSError:
        return False
