"""Metrics for a Prometheus scrape: the pool's OpenTelemetry metrics in the text format.

A pull reader collects the meter provider's instruments at each scrape (so observable gauges
read the pool right then), and a collector turns the points into Prometheus families in a
registry of its own (never the process-wide default one: two services in one process, or a
test, must not collide). Names follow the usual translation: dots become underscores, a unit
of seconds adds ``_seconds``, counters end in ``_total``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from opentelemetry.sdk.metrics.export import (
    Gauge,
    Histogram,
    InMemoryMetricReader,
    Metric,
    Sum,
)
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE", "PrometheusBridge"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_INVALID = re.compile(r"[^a-zA-Z0-9_:]")
_UNITS = {"s": "seconds", "By": "bytes"}


class PrometheusBridge:
    """The reader to give a ``MeterProvider``, and ``render()`` for each scrape."""

    def __init__(self) -> None:
        self.reader = InMemoryMetricReader()
        self._registry = CollectorRegistry(auto_describe=False)
        self._registry.register(_Collector(self.reader))
        self._lock = threading.Lock()  # one collection at a time

    def render(self) -> bytes:
        """The metrics now, in the Prometheus text format."""
        with self._lock:
            return generate_latest(self._registry)


class _Collector(Collector):
    def __init__(self, reader: InMemoryMetricReader) -> None:
        self._reader = reader

    def collect(self) -> Iterator[Any]:
        data = self._reader.get_metrics_data()
        if data is None:
            return
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    family = _family(metric)
                    if family is not None:
                        yield family


def _family(metric: Metric) -> Any:
    name = _name(metric.name, metric.unit or "")
    points: Sequence[Any] = metric.data.data_points
    if isinstance(metric.data, Histogram):
        keys = _keys(points)
        histogram = HistogramMetricFamily(
            name, metric.description or metric.name, labels=[_label(key) for key in keys]
        )
        for point in points:
            cumulative = 0
            buckets = []
            for bound, count in zip(point.explicit_bounds, point.bucket_counts, strict=False):
                cumulative += count
                buckets.append((_bound(bound), cumulative))
            buckets.append(("+Inf", point.count))
            histogram.add_metric(_values(point.attributes, keys), buckets, point.sum)
        return histogram
    if isinstance(metric.data, Sum) and metric.data.is_monotonic:
        keys = _keys(points)
        counter = CounterMetricFamily(
            name.removesuffix("_total"),
            metric.description or metric.name,
            labels=[_label(key) for key in keys],
        )
        for point in points:
            counter.add_metric(_values(point.attributes, keys), point.value)
        return counter
    if isinstance(metric.data, Sum | Gauge):
        keys = _keys(points)
        gauge = GaugeMetricFamily(
            name, metric.description or metric.name, labels=[_label(key) for key in keys]
        )
        for point in points:
            gauge.add_metric(_values(point.attributes, keys), point.value)
        return gauge
    return None


def _name(name: str, unit: str) -> str:
    cleaned = _INVALID.sub("_", name)
    suffix = _UNITS.get(unit)
    if suffix and not cleaned.endswith("_" + suffix):
        cleaned += "_" + suffix
    return cleaned


def _label(key: str) -> str:
    cleaned = _INVALID.sub("_", key).replace(":", "_")
    return cleaned if not cleaned[:1].isdigit() else "_" + cleaned


def _keys(points: Sequence[Any]) -> list[str]:
    found: dict[str, None] = {}
    for point in points:
        for key in point.attributes or {}:
            found.setdefault(key, None)
    return list(found)


def _values(attributes: Mapping[str, Any] | None, keys: list[str]) -> list[str]:
    attributes = attributes or {}
    return [str(attributes.get(key, "")) for key in keys]


def _bound(value: float) -> str:
    return repr(float(value))
