"""The store's pins behind the vetting layer's ``Pins`` protocol (R7)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolpool.vetting.model import PublishedTool
from toolpool.vetting.pins import Pin

if TYPE_CHECKING:
    from toolpool.store._store import Store

__all__ = ["StorePins", "hash_of_definition"]


def hash_of_definition(definition: Mapping[str, Any]) -> str:
    """The pin hash of a canonical definition, exactly as ``PublishedTool.definition_hash``."""
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class StorePins:
    """``Pins`` over a store: what a pool admits, and approves, is remembered across processes."""

    def __init__(self, store: Store, actor: str) -> None:
        self._store = store
        self._actor = actor

    def pin_of(self, alias: str, remote_name: str) -> Pin | None:
        return self._store.pin_of(alias, remote_name)

    def approve(self, alias: str, remote_name: str, tool: PublishedTool) -> None:
        self._store.approve_pin(alias, remote_name, tool.definition(), tool.definition_hash(), self._actor)
