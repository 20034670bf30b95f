"""What ``toolpool tools`` needs of the configuration, kept beside it for the next run.

Reading and validating 13 MB of TOML (20,000 servers) takes seconds every time, tomllib most
of them. The listing needs little of it: the store's URL, the aliases, and each tool's alias,
name and what a sync reads of its policy (``SyncedPolicy``: action, effect, ``enabled``, ...),
in the configuration's order. The first run writes that to a cache file beside the
configuration (``.NAME.listing``), under the sha256 of the configuration's text; later runs
with exactly that text, at that path, read it instead, and can sync the store (after another
process changed it) without the configuration.

The file is one line of JSON naming the format, the configuration's hash and path, the
store's URL and the sha256 of the body, then the body (JSON): a file that was cut short,
corrupted or edited by hand is not believed, and neither is one of another format.

Trust: the cache says no more than the configuration, and it is believed only when whoever
could write it could write the configuration too: both belong to the user running the
command, and the cache is a regular file (not a link) that nobody else can read or write.
Anything else (another owner, loose modes, another text, another path, a file that does not
parse or whose body does not match its hash) and the configuration is read and validated as
always. Nothing in the cache reaches a pool: it only lists and syncs.
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
from toolpool.store import SyncedPolicy

__all__ = ["ConfigListing", "cached_listing", "config_hash", "keep_listing"]

# Written into every cache: a cache of another format (another toolpool) is never read.
_FORMAT = "toolpool-listing-2"
_PRIVATE = 0o600
_ROW = 2 + len(SyncedPolicy._fields)  # alias, name, then the policy's fields in order


@dataclass(frozen=True, slots=True)
class ConfigListing:
    """A configuration as ``toolpool tools`` sees it: every alias, and ``tools`` with rows of
    (alias, name, action, effect, *the rest of its ``SyncedPolicy``) in the configuration's
    order, action ``False`` for a forbidden tool."""

    config_hash: str
    source: Path
    store_url: str
    aliases: Sequence[str]
    tools: Sequence[Sequence[Any]]

    @classmethod
    def of(cls, config: Config, config_hash: str) -> ConfigListing:
        tools = [
            (alias, name, *SyncedPolicy.of(policy))
            for alias, spec in config.servers.items()
            for name, policy in spec.tools.items()
        ]
        return cls(config_hash, config.source, config.store_url, list(config.servers), tools)

    def policies(self) -> dict[str, dict[str, SyncedPolicy]]:
        """Alias -> tool -> what a sync reads of its policy, as ``Config.servers`` holds them."""
        found: dict[str, dict[str, SyncedPolicy]] = {alias: {} for alias in self.aliases}
        new = tuple.__new__  # a NamedTuple's own __new__ is a Python call per tool
        for row in self.tools:
            found[row[0]][row[1]] = new(SyncedPolicy, row[2:])
        return found


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
            head, _, body = file.read().partition(b"\n")
            kept = json.loads(head)
            if not isinstance(kept, dict) or [kept.get(key) for key in _CHECKED] != [
                _FORMAT,
                text_hash,
                str(source),
                "sha256:" + hashlib.sha256(body).hexdigest(),
            ]:
                return None
            aliases, tools = json.loads(body)
        except (OSError, ValueError, TypeError, RecursionError):
            return None
    store_url = kept.get("store_url")
    if not (isinstance(store_url, str) and isinstance(aliases, list) and isinstance(tools, list)):
        return None
    if not all(type(row) is list and len(row) == _ROW for row in tools):
        return None
    return ConfigListing(text_hash, source, store_url, aliases, tools)


_CHECKED = ("format", "hash", "source", "body")


def keep_listing(listing: ConfigListing) -> None:
    """Write ``listing`` beside its configuration for the next run, if the configuration is
    the user's own; a folder that cannot take it (read-only, full) only costs that speed."""
    if not _owned(listing.source):
        return
    cache = _cache_of(listing.source)
    partial = cache.with_name(f"{cache.name}.{os.getpid()}.partial")
    body = json.dumps([list(listing.aliases), list(listing.tools)], separators=(",", ":")).encode("utf-8")
    head = {
        "format": _FORMAT,
        "hash": listing.config_hash,
        "source": str(listing.source),
        "body": "sha256:" + hashlib.sha256(body).hexdigest(),
        "store_url": listing.store_url,
    }
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(partial, flags, _PRIVATE), "wb") as file:
            file.write(json.dumps(head, separators=(",", ":")).encode("utf-8") + b"\n" + body)
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
