"""What ``toolpool tools`` needs of the configuration, kept beside it for the next run.

Reading and validating 13 MB of TOML (20,000 servers) takes seconds every time, tomllib most
of them. The listing needs little of it: the store's URL and each tool's alias, name, action
and effect, in the configuration's order. The first run writes that to a cache file beside
the configuration (``.NAME.listing``), under the sha256 of the configuration's text; later runs
with exactly that text, at that path, read it instead.

Trust: the cache says no more than the configuration, and it is believed only when whoever
could write it could write the configuration too: both belong to the user running the
command, and the cache is a regular file (not a link) that nobody else can read or write.
Anything else (another owner, loose modes, another text, another path, a file that does not
parse) and the configuration is read and validated as always. Nothing in the cache reaches
a pool: it only lists.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolpool.config import Config

__all__ = ["ConfigListing", "cached_listing", "config_hash", "keep_listing"]

# Written into every cache: a cache of another format (another toolpool) is never read.
_FORMAT = "toolpool-listing-1"
_PRIVATE = 0o600


@dataclass(frozen=True, slots=True)
class ConfigListing:
    """A configuration as ``toolpool tools`` sees it: ``tools`` holds (alias, name, action,
    effect) in the configuration's order, action ``False`` for a forbidden tool."""

    config_hash: str
    source: Path
    store_url: str
    tools: Sequence[Sequence[Any]]

    @classmethod
    def of(cls, config: Config, config_hash: str) -> ConfigListing:
        tools = [
            (alias, name, policy.action, policy.effect)
            for alias, spec in config.servers.items()
            for name, policy in spec.tools.items()
        ]
        return cls(config_hash, config.source, config.store_url, tools)


def config_hash(text: str) -> str:
    """``sha256:`` of a configuration's text (what the store remembers a sync of, too)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_listing(source: Path, text_hash: str) -> ConfigListing | None:
    """The listing kept for the configuration text ``text_hash`` at ``source``, or None when
    there is none this process may believe."""
    try:
        descriptor = os.open(_cache_of(source), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as file:
        try:
            if not (_private(os.fstat(file.fileno())) and _owned(source)):
                return None
            kept = json.loads(file.read())
        except (OSError, ValueError, RecursionError):
            return None
    if not isinstance(kept, dict) or [kept.get(key) for key in ("format", "hash", "source")] != [
        _FORMAT,
        text_hash,
        str(source),
    ]:
        return None
    store_url, tools = kept.get("store_url"), kept.get("tools")
    if not isinstance(store_url, str) or not isinstance(tools, list):
        return None
    return ConfigListing(text_hash, source, store_url, tools)


def keep_listing(listing: ConfigListing) -> None:
    """Write ``listing`` beside its configuration for the next run, if the configuration is
    the user's own; a folder that cannot take it (read-only, full) only costs that speed."""
    if not _owned(listing.source):
        return
    cache = _cache_of(listing.source)
    partial = cache.with_name(f"{cache.name}.{os.getpid()}.partial")
    kept = {
        "format": _FORMAT,
        "hash": listing.config_hash,
        "source": str(listing.source),
        "store_url": listing.store_url,
        "tools": list(listing.tools),
    }
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(partial, flags, _PRIVATE), "w", encoding="utf-8") as file:
            json.dump(kept, file, separators=(",", ":"))
        os.replace(partial, cache)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()


def _cache_of(source: Path) -> Path:
    return source.with_name(f".{source.name}.listing")


def _private(found: os.stat_result) -> bool:
    """A regular file of this user that no one else may read or write."""
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & 0o077


def _owned(source: Path) -> bool:
    try:
        return source.stat().st_uid == os.geteuid()
    except OSError:
        return False
