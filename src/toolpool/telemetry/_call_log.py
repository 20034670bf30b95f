"""The call log: one structured JSON line per call decision, through the standard ``logging``.

A line ties a call to its trace, span, session and principal, and says what was decided (the
Envelope code), how long it took, the arguments' *shape* (each key and the size of its value,
never a value) and the result's size and screening flags. Any ``logging`` handler can take it;
the CLI and the service attach one from ``[telemetry] call_log`` or ``TOOLPOOL_CALL_LOG``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["CALL_LOGGER", "CallLine", "CallLog", "argument_shape", "plain_name"]

CALL_LOGGER = "toolpool.calls"
# Names from a model or a refused call may be anything: only plain ones are written as they are.
_PLAIN = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_MAX_KEYS = 32
# Codes for which the upstream, not a gate, decided: worth an operator's attention.
_UPSTREAM = frozenset({"mcp_timeout", "mcp_connection_lost", "mcp_remote_error", "circuit_open"})


@dataclass(frozen=True, slots=True)
class CallLine:
    """What one line says; built by the call pipeline from local facts only."""

    session: str
    principal: str
    alias: str
    tool: str
    code: str
    duration_ms: float
    arguments: object  # the call's arguments: only their shape is ever written
    result_bytes: int
    suspicious: bool
    screen_reasons: tuple[str, ...]
    clipped: bool
    snapshot_version: int
    release: int | None
    trace_id: str = ""
    span_id: str = ""


class CallLog:
    """Writes ``CallLine``s to ``logger`` (``toolpool.calls`` unless given)."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger if logger is not None else logging.getLogger(CALL_LOGGER)

    def write(self, line: CallLine) -> None:
        level = logging.WARNING if line.code in _UPSTREAM else logging.INFO
        if not self.logger.isEnabledFor(level):
            return
        fields: dict[str, object] = {
            "event": "call",
            "trace_id": line.trace_id,
            "span_id": line.span_id,
            "session": line.session,
            "principal": line.principal,
            "alias": line.alias,
            "tool": plain_name(line.tool),
            "code": line.code,
            "duration_ms": line.duration_ms,
            "arguments": argument_shape(line.arguments),
            "result_bytes": line.result_bytes,
            "suspicious": line.suspicious,
            "screen_reasons": list(line.screen_reasons),
            "clipped": line.clipped,
            "snapshot": line.snapshot_version,
            "release": line.release,
        }
        self.logger.log(level, json.dumps(fields, separators=(",", ":"), ensure_ascii=True))


def argument_shape(arguments: object) -> dict[str, object]:
    """Each top-level key with the size of its value in bytes of JSON; never a value.

    Keys that are not plain names are counted, not written (a refused call's keys may be any
    text a model made up).
    """
    if not isinstance(arguments, Mapping):
        return {"type": type(arguments).__name__}
    sizes: dict[str, int] = {}
    other = 0
    for key, value in arguments.items():
        if isinstance(key, str) and _PLAIN.match(key) and len(sizes) < _MAX_KEYS:
            sizes[key] = _size(value)
        else:
            other += 1
    shape: dict[str, object] = {"keys": sizes}
    if other:
        shape["other_keys"] = other
    return shape


def _size(value: object) -> int:
    try:
        return len(json.dumps(value, separators=(",", ":"), default=str).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        return 0


def plain_name(name: str) -> str:
    """``name`` when it is a plain name (letters, digits, ``_.-``, at most 128), else ``?``:
    a name a model made up may be any text, and logs and spans take names only."""
    return name if _PLAIN.match(name) else "?"
