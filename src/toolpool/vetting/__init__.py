"""Vetting: published tools (untrusted) in, exposed tools (local capabilities) out.

Names are imported from their modules when first used (``toolpool._lazy``).
"""

from typing import TYPE_CHECKING

from toolpool._lazy import lazy_names

if TYPE_CHECKING:
    from toolpool.vetting.admission import Admission, cut_description, vet
    from toolpool.vetting.model import ExposedTool
    from toolpool.vetting.names import LOCAL_NAME_PATTERN, REMOTE_NAME_PATTERN, local_name, safe_name
    from toolpool.vetting.peer_set import PeerGroup, PeerSet
    from toolpool.vetting.pins import MemoryPins, Pin, Pins, classify_change
    from toolpool.vetting.schemas import CompiledSchema, SchemaLimits, SchemaRejected, compile_schema
    from toolpool.vetting.screening import PASS, PassingScreener, Peer, Screener, Verdict

_HOMES: dict[str, tuple[str, ...]] = {
    "toolpool.vetting.admission": ("Admission", "cut_description", "vet"),
    "toolpool.vetting.model": ("ExposedTool",),
    "toolpool.vetting.names": ("LOCAL_NAME_PATTERN", "REMOTE_NAME_PATTERN", "local_name", "safe_name"),
    "toolpool.vetting.peer_set": ("PeerGroup", "PeerSet"),
    "toolpool.vetting.pins": ("MemoryPins", "Pin", "Pins", "classify_change"),
    "toolpool.vetting.schemas": ("CompiledSchema", "SchemaLimits", "SchemaRejected", "compile_schema"),
    "toolpool.vetting.screening": ("PASS", "PassingScreener", "Peer", "Screener", "Verdict"),
}

__all__ = [
    "LOCAL_NAME_PATTERN",
    "PASS",
    "REMOTE_NAME_PATTERN",
    "Admission",
    "CompiledSchema",
    "ExposedTool",
    "MemoryPins",
    "PassingScreener",
    "Peer",
    "PeerGroup",
    "PeerSet",
    "Pin",
    "Pins",
    "SchemaLimits",
    "SchemaRejected",
    "Screener",
    "Verdict",
    "classify_change",
    "compile_schema",
    "cut_description",
    "local_name",
    "safe_name",
    "vet",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
