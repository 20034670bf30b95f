"""Vetting: published tools (untrusted) in, exposed tools (local capabilities) out."""

from toolpool.vetting.admission import Admission, cut_description, vet
from toolpool.vetting.model import ExposedTool
from toolpool.vetting.names import LOCAL_NAME_PATTERN, REMOTE_NAME_PATTERN, local_name, safe_name
from toolpool.vetting.pins import MemoryPins, Pin, Pins, classify_change
from toolpool.vetting.schemas import CompiledSchema, SchemaLimits, SchemaRejected, compile_schema
from toolpool.vetting.screening import PASS, PassingScreener, Peer, Screener, Verdict

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
