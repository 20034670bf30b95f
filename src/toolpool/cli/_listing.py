"""What ``toolpool tools`` needs of the configuration, kept beside it for the next run.

Reading and validating 13 MB of TOML (20,000 servers) takes seconds every time, tomllib most
of them. The listing needs little of it: the store's URL, the aliases, and each tool's alias,
name and what a sync reads of its policy (``SyncedPolicy``: action, effect, ``enabled``, ...),
in the configuration's order. The first run keeps that beside the configuration
(``.NAME.listing``, ``cli._beside``: when such a file is believed); later runs with exactly that
text, at that path, read it instead, and can sync the store (after another process changed it)
without the configuration. Nothing in the listing reaches a pool: it only lists and syncs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolpool.cli._beside import config_hash, keep_beside, read_beside
from toolpool.store import SyncedPolicy

if TYPE_CHECKING:
    from toolpool.config import Config

__all__ = ["ConfigListing", "cached_listing", "config_hash", "keep_listing"]

# Written into every cache: a cache of another format (another toolpool) is never read.
_FORMAT = "toolpool-listing-2"
_KIND = "listing"
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


def cached_listing(source: Path, text_hash: str) -> ConfigListing | None:
    """The listing kept for the configuration text ``text_hash`` at ``source``, or None when
    there is none this process may believe."""
    kept = read_beside(source, _KIND, {"format": _FORMAT, "hash": text_hash})
    if kept is None:
        return None
    head, body = kept
    try:
        aliases, tools = json.loads(body)
    except (ValueError, TypeError, RecursionError):
        return None
    store_url = head.get("store_url")
    if not (isinstance(store_url, str) and isinstance(aliases, list) and isinstance(tools, list)):
        return None
    # Every row a list of _ROW values, checked in two C-level passes (not a Python step per row).
    if tools and (set(map(type, tools)) != {list} or set(map(len, tools)) != {_ROW}):
        return None
    return ConfigListing(text_hash, source, store_url, aliases, tools)


def keep_listing(listing: ConfigListing) -> None:
    """Keep ``listing`` beside its configuration for the next run (``cli._beside``)."""
    body = json.dumps([list(listing.aliases), list(listing.tools)], separators=(",", ":")).encode("utf-8")
    head = {"format": _FORMAT, "hash": listing.config_hash, "store_url": listing.store_url}
    keep_beside(listing.source, _KIND, head, body)
