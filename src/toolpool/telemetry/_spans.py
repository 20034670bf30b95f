"""The spans toolpool makes, one function per kind, each a no-op unless tracing is on.

- ``toolpool.call <tool>`` (internal): the call pipeline's decision, its gates as span events;
- ``tools/call <tool>`` (client): one upstream request, whose context goes upstream in
  ``params._meta`` (``traceparent``);
- ``tools/call <tool>`` / ``tools/list`` (server): one request to the gateway's front, parented
  by the client's ``traceparent`` from ``params._meta`` or the HTTP header;
- ``connect <alias>`` (internal) around start + list + vet, with ``tools/list`` (client) inside;
- ``chat <model>`` (client) per model request and ``execute_tool <tool>`` (internal) per tool
  call of the agent runtime.

No argument value, result text or secret is ever an attribute: names, codes, counts and sizes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry.trace import (
    INVALID_SPAN,
    Span,
    SpanKind,
    Status,
    StatusCode,
    format_span_id,
    format_trace_id,
)

from toolpool.telemetry import _names as n
from toolpool.telemetry._call_log import CallLine
from toolpool.telemetry._telemetry import Telemetry, extract, inject

__all__ = [
    "GATES",
    "ServerSpan",
    "UpstreamSpan",
    "call_decided",
    "ids_of",
    "mark_outcome",
    "record_gates",
    "traced",
]

# In the pipeline's order; approval and limits sit between gates 6 and 7 of DESIGN.md, so a
# gate's number here is its position in this tuple.
GATES = (
    "snapshot",
    "connection",
    "enabled",
    "ticket",
    "arguments",
    "taint",
    "approval",
    "limits",
    "breaker",
    "upstream",
    "result",
)
_POSITION = {name: number for number, name in enumerate(GATES, start=1)}
_PASSED = "toolpool.gates.passed"
_FAILED = "toolpool.gate.failed"


def traced(
    telemetry: Telemetry,
    name: str,
    kind: SpanKind,
    attributes: Mapping[str, Any] | None = None,
    parent: otel_context.Context | None = None,
) -> Any:
    """A current span for the ``with`` block (or a null context when tracing is off)."""
    if not telemetry.tracing:
        return nullcontext(INVALID_SPAN)
    return telemetry.tracer.start_as_current_span(
        name,
        context=parent,
        kind=kind,
        attributes=dict(attributes or {}),
        record_exception=False,
        set_status_on_exception=True,
    )


def mark_outcome(span: Span, code: str) -> None:
    """``error.type`` and an error status for any code but ``ok``."""
    if code != "ok" and span.is_recording():
        span.set_attribute(n.ERROR_TYPE, code)
        span.set_status(Status(StatusCode.ERROR))


def record_gates(span: Span, last: str, passed: bool) -> None:
    """The gates as span events: ``toolpool.gates.passed`` names every gate the call passed, in
    order, and ``toolpool.gate.failed`` the one (``last``, a name in ``GATES``) that refused it
    (if one did). Two events at most: each event costs the span an attribute check."""
    if not span.is_recording():
        return
    number = _POSITION[last]
    through = number if passed else number - 1
    if through:
        span.add_event(_PASSED, {"toolpool.gates": GATES[:through]})
    if not passed:
        span.add_event(_FAILED, {"toolpool.gate.number": number, "toolpool.gate.name": last})


def call_decided(telemetry: Telemetry, span: Span, line: CallLine, gate: str) -> None:
    """What one call decision leaves besides its records: the gates as events on ``span``,
    ``error.type``, the ``toolpool.calls`` count and the call-log line (with the span's ids)."""
    ok = line.code == "ok"
    record_gates(span, gate, ok)
    mark_outcome(span, line.code)
    if telemetry.metering:
        telemetry.calls.add(1, {n.ALIAS: line.alias, n.TOOL_NAME: line.tool, "toolpool.code": line.code})
    if telemetry.call_log is not None:
        trace_id, span_id = ids_of(span)
        telemetry.call_log.write(replace(line, trace_id=trace_id, span_id=span_id))


def ids_of(span: Span) -> tuple[str, str]:
    """The span's trace and span id as hex, or empty strings when it is not a real span."""
    found = span.get_span_context()
    if not found.is_valid:
        return "", ""
    return format_trace_id(found.trace_id), format_span_id(found.span_id)


class UpstreamSpan:
    """The client span of one upstream ``tools/call`` (and its duration metric).

    ``meta`` is what to send as the request's ``params._meta``: our ``traceparent`` when tracing,
    else None (the request then carries no ``_meta`` of ours).
    """

    def __init__(self, telemetry: Telemetry, alias: str, remote_name: str) -> None:
        self._telemetry = telemetry
        self._attributes = {
            n.MCP_METHOD: "tools/call",
            n.TOOL_NAME: remote_name,
            n.OPERATION: "execute_tool",
            n.ALIAS: alias,
        }
        self._scope: Any = None
        self.span: Span = INVALID_SPAN
        self.meta: dict[str, Any] | None = None
        self._started = 0.0

    def __enter__(self) -> UpstreamSpan:
        self._started = time.perf_counter()
        if self._telemetry.tracing:
            self._scope = traced(
                self._telemetry,
                f"tools/call {self._attributes[n.TOOL_NAME]}",
                SpanKind.CLIENT,
                self._attributes,
            )
            self.span = self._scope.__enter__()
            self.meta = {}
            inject(self.meta)
        return self

    def finish(self, code: str) -> None:
        mark_outcome(self.span, code)
        if self._telemetry.metering:
            attributes = dict(self._attributes)
            if code != "ok":
                attributes[n.ERROR_TYPE] = code
            self._telemetry.client_duration.record(time.perf_counter() - self._started, attributes)

    def __exit__(self, *exc: object) -> None:
        if self._scope is not None:
            self._scope.__exit__(*exc)


class ServerSpan:
    """The server span of one request to the gateway's front, and its duration metric; the
    client's ``traceparent`` comes from ``params._meta`` first, then the HTTP header."""

    def __init__(
        self,
        telemetry: Telemetry,
        method: str,
        target: str | None,
        *,
        meta: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        attributes: Mapping[str, Any],
    ) -> None:
        self._telemetry = telemetry
        self._name = f"{method} {target}" if target else method
        self._values: dict[str, Any] = {n.MCP_METHOD: method, **attributes}
        if target is not None and method == "tools/call":
            self._values[n.TOOL_NAME] = target
            self._values[n.OPERATION] = "execute_tool"
        self._carriers = (meta, headers)
        self._scope: Any = None
        self.span: Span = INVALID_SPAN
        self._code = "ok"
        self._started = 0.0

    def __enter__(self) -> ServerSpan:
        self._started = time.perf_counter()
        if self._telemetry.tracing:
            parent = extract(self._carriers)
            self._scope = traced(self._telemetry, self._name, SpanKind.SERVER, self._values, parent)
            self.span = self._scope.__enter__()
        return self

    def annotate(self, attributes: Mapping[str, Any]) -> None:
        """More attributes, once known (the principal, the session, the release)."""
        if self.span.is_recording():
            self.span.set_attributes({key: value for key, value in attributes.items() if value is not None})

    def finish(self, code: str) -> None:
        self._code = code
        mark_outcome(self.span, code)

    def __exit__(self, *exc: object) -> None:
        try:
            if self._telemetry.metering:
                keys = (n.MCP_METHOD, n.TOOL_NAME, n.MCP_PROTOCOL_VERSION)
                metric = {key: self._values[key] for key in keys if key in self._values}
                if self._code != "ok" or exc[0] is not None:
                    metric[n.ERROR_TYPE] = self._code if self._code != "ok" else "error"
                self._telemetry.server_duration.record(time.perf_counter() - self._started, metric)
        finally:
            if self._scope is not None:
                self._scope.__exit__(*exc)
