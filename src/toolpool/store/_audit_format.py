"""The audit chain's formulas: the two row hashes, and the MACs of the keyed chain.

- **v2** (every event from the head's ``audit_v2_from`` on; all events of a store created at
  migration 0003 or later): ``hash = sha256(canonical({"v": 2, "id", "prev", "at", "actor",
  "action", "resource", "detail"}))`` — the id and the previous hash are inside, so a row
  cannot move to another id or follow another row without changing its hash.
- **v1** (events written before that migration, checked with the rule they were written under):
  ``hash = sha256(prev_hash + canonical({"at", "actor", "action", "resource", "detail"}))``.

``at`` is the UTC moment as ``timestamp`` gives it; ``detail`` is the stored JSON text.

A store opened with its secret key also MACs what it writes, with ``HMAC-SHA256`` under a key
derived from the secret key (never stored in the database): each row's hash, and the head's
(last id, last hash, first keyed id). See ``_audit_verify`` for what that lets verify name.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from datetime import datetime
from json.encoder import encode_basestring_ascii as _text

from toolpool.store._codec import canonical, digest, timestamp
from toolpool.store._crypto import SecretKey

__all__ = ["GENESIS", "HASH", "MAC", "AuditKey", "v1_hash", "v2_hash"]

GENESIS = "sha256:" + "0" * 64
HASH = re.compile(r"sha256:[0-9a-f]{64}")
MAC = re.compile(r"hmac-sha256:[0-9a-f]{64}")
# Purpose labels: a MAC made for one use never verifies as another.
_DERIVE = b"toolpool.audit-chain.v2"
_ROW = "row\n"
_ROW_AFTER_BREAK = "row-after-head-break\n"
_HEAD = "head\n"


def v2_hash(
    row_id: int, prev_hash: str, at: datetime, actor: str, action: str, resource: str, detail: str
) -> str:
    # ``canonical`` of {"v": 2, "id", "prev", "at", "actor", "action", "resource", "detail"},
    # written out in its sorted key order with the encoder's own string function: the same
    # text, without building and sorting a dict per event (a test compares the two).
    text = (
        f'{{"action":{_text(action)},"actor":{_text(actor)},"at":{_text(timestamp(at))},'
        f'"detail":{_text(detail)},"id":{int.__repr__(row_id)},"prev":{_text(prev_hash)},'
        f'"resource":{_text(resource)},"v":2}}'
    )
    return digest(text)


def v1_hash(prev_hash: str, at: datetime, actor: str, action: str, resource: str, detail: str) -> str:
    content = {"action": action, "actor": actor, "at": timestamp(at), "detail": detail, "resource": resource}
    return digest(prev_hash + canonical(content))


class AuditKey:
    """The MAC key of the audit chain, derived from the store's secret key. Not shown by repr."""

    __slots__ = ("_key",)

    def __init__(self, secret: SecretKey) -> None:
        raw = base64.urlsafe_b64decode(secret.to_text())
        self._key = hmac.new(raw, _DERIVE, hashlib.sha256).digest()

    def row_mac(self, row_hash: str, *, after_break: bool = False) -> str:
        """The MAC of a row. ``after_break``: the writer found the head's MAC wrong, so this row
        says so for good (a later head cannot make the cut before it disappear)."""
        return self._mac((_ROW_AFTER_BREAK if after_break else _ROW) + row_hash)

    def head_mac(self, last_id: int, last_hash: str, keyed_from: int | None) -> str:
        return self._mac(_HEAD + canonical([last_id, last_hash, keyed_from]))

    def _mac(self, text: str) -> str:
        return "hmac-sha256:" + hmac.new(self._key, text.encode("utf-8"), hashlib.sha256).hexdigest()

    def __repr__(self) -> str:
        return "AuditKey(<hidden>)"
