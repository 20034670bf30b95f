"""In-memory OpenTelemetry for tests: a Telemetry whose spans, metrics and call-log lines the
test can read back."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader, NumberDataPoint
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolpool.telemetry import CallLog, Telemetry


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@dataclass
class Recorded:
    """A ``Telemetry`` wired to memory: ``spans()``, ``points(name)``, ``log_lines()``."""

    telemetry: Telemetry
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    handler: _Lines
    providers: list[Any] = field(default_factory=list)

    def spans(self, name_prefix: str = "") -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if s.name.startswith(name_prefix)]

    def points(self, name: str) -> list[NumberDataPoint | HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        found: list[Any] = []
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found

    def log_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.handler.lines]

    def shutdown(self) -> None:
        for provider in self.providers:
            provider.shutdown()


def recorded(name: str = "toolpool.calls.test") -> Iterator[Recorded]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    logger = logging.getLogger(name)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    handler = _Lines()
    logger.addHandler(handler)
    telemetry = Telemetry(
        tracer_provider=tracer_provider, meter_provider=meter_provider, call_log=CallLog(logger)
    )
    found = Recorded(telemetry, exporter, reader, handler, [tracer_provider, meter_provider])
    try:
        yield found
    finally:
        logger.removeHandler(handler)
        found.shutdown()


def every_value(span: ReadableSpan) -> Iterator[str]:
    """Every attribute and event attribute of ``span`` as text (for "no value leaks" checks)."""
    for value in (span.attributes or {}).values():
        yield str(value)
    for event in span.events:
        for value in (event.attributes or {}).values():
            yield str(value)
    yield span.name
