"""``Telemetry``: one pool's tracer, meter and call log, or nothing at all.

Built from providers the caller made (the CLI and the service make them from ``[telemetry]``
and the ``OTEL_*`` environment; see ``_setup``). Without providers every span and instrument is
the OpenTelemetry API's no-op, and the call path checks one boolean before touching any of it,
so telemetry that is off costs a branch per call. toolpool never installs a global provider: an
application's own OpenTelemetry set-up, and the MCP SDK's spans that follow it, stay its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.metrics import CallbackOptions, MeterProvider, NoOpMeterProvider, Observation
from opentelemetry.trace import NoOpTracerProvider, SpanKind, TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from toolpool.telemetry import _names as n
from toolpool.telemetry._call_log import CallLog

__all__ = ["AliasReading", "SpanKind", "Telemetry", "extract", "inject"]

_VERSION = "0.1.0"
_PROPAGATOR = TraceContextTextMapPropagator()
_BREAKER_LEVEL = {"closed": 0, "half_open": 1, "open": 2}


@dataclass(frozen=True, slots=True)
class AliasReading:
    """One alias as a scrape sees it: connected or not, its tools, their cost, its breaker."""

    alias: str
    connected: bool
    tools: int
    list_tokens: int
    breaker: str


class Telemetry:
    """Spans, metrics and the call log of one or more pools.

    Args:
        tracer_provider: where spans go; None records none.
        meter_provider: where metrics go; None records none.
        call_log: one JSON line per call decision; None writes none.
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        call_log: CallLog | None = None,
    ) -> None:
        self.tracing = tracer_provider is not None
        self.metering = meter_provider is not None
        self.call_log = call_log
        self.active = self.tracing or self.metering or call_log is not None
        self.tracer = (tracer_provider or NoOpTracerProvider()).get_tracer("toolpool", _VERSION)
        meter = (meter_provider or NoOpMeterProvider()).get_meter("toolpool", _VERSION)
        buckets = list(n.DURATION_BUCKETS)
        self.server_duration = meter.create_histogram(
            n.SERVER_DURATION,
            unit="s",
            description="MCP request duration as observed on the receiver (the gateway's front)",
            explicit_bucket_boundaries_advisory=buckets,
        )
        self.client_duration = meter.create_histogram(
            n.CLIENT_DURATION,
            unit="s",
            description="MCP request duration as observed on the sender (toolpool calling upstream)",
            explicit_bucket_boundaries_advisory=buckets,
        )
        self.calls = meter.create_counter(
            n.CALLS, unit="{call}", description="Call decisions by alias, tool and code"
        )
        self.tools_grew = meter.create_counter(
            n.TOOLS_GREW, unit="{event}", description="Published tool lists that grew past what was approved"
        )
        self.store_duration = meter.create_histogram(
            n.STORE_DURATION, unit="s", description="Store operations (batched call records, audit events)"
        )
        self._sources: dict[int, Callable[[], Iterable[AliasReading]]] = {}
        self._lock = threading.Lock()
        meter.create_observable_gauge(
            n.CONNECTIONS_OPEN,
            [self._connections],
            unit="{connection}",
            description="Live upstream connections",
        )
        meter.create_observable_gauge(
            n.TOOLS_EXPOSED, [self._tools], unit="{tool}", description="Tools exposed per alias"
        )
        meter.create_observable_gauge(
            n.TOOL_LIST_TOKENS,
            [self._tokens],
            unit="{token}",
            description="Estimated model tokens of each alias's exposed tool list",
        )
        meter.create_observable_gauge(
            n.BREAKER_STATE,
            [self._breakers],
            description="Circuit breaker per alias: 0 closed, 1 half open, 2 open",
        )

    @classmethod
    def off(cls) -> Telemetry:
        """No spans, no metrics, no call log."""
        return cls()

    def watch(self, source: Callable[[], Iterable[AliasReading]]) -> Callable[[], None]:
        """Report ``source``'s aliases in the gauges until the returned function is called."""
        key = id(source)
        with self._lock:
            self._sources[key] = source
        return lambda: self._forget(key)

    def _forget(self, key: int) -> None:
        with self._lock:
            self._sources.pop(key, None)

    def _readings(self) -> Iterator[AliasReading]:
        # Gauges are read on the exporter's thread or a scrape: a pool changing meanwhile may
        # make one reading fail, never the scrape.
        with self._lock:
            sources = list(self._sources.values())
        for source in sources:
            try:
                yield from list(source())
            except RuntimeError:
                continue

    def _connections(self, _: CallbackOptions) -> Iterable[Observation]:
        return [Observation(1 if r.connected else 0, {n.ALIAS: r.alias}) for r in self._readings()]

    def _tools(self, _: CallbackOptions) -> Iterable[Observation]:
        return [Observation(r.tools, {n.ALIAS: r.alias}) for r in self._readings()]

    def _tokens(self, _: CallbackOptions) -> Iterable[Observation]:
        return [Observation(r.list_tokens, {n.ALIAS: r.alias}) for r in self._readings()]

    def _breakers(self, _: CallbackOptions) -> Iterable[Observation]:
        return [Observation(_BREAKER_LEVEL.get(r.breaker, 2), {n.ALIAS: r.alias}) for r in self._readings()]


def inject(carrier: dict[str, Any]) -> None:
    """Put the current span's ``traceparent`` (and ``tracestate``) into ``carrier``."""
    _PROPAGATOR.inject(carrier)


def extract(carriers: Iterable[Mapping[str, Any] | None]) -> otel_context.Context | None:
    """The first valid trace context among ``carriers`` (``params._meta``, then HTTP headers);
    None when none carries one, so spans nest under whatever is current instead."""
    for carrier in carriers:
        if not carrier:
            continue
        parent = carrier.get("traceparent")
        if not isinstance(parent, str) or len(parent) > 256:
            continue
        found = _PROPAGATOR.extract({"traceparent": parent, **_state(carrier)})
        if trace.get_current_span(found).get_span_context().is_valid:
            return found
    return None


def _state(carrier: Mapping[str, Any]) -> dict[str, str]:
    state = carrier.get("tracestate")
    return {"tracestate": state} if isinstance(state, str) and len(state) <= 512 else {}
