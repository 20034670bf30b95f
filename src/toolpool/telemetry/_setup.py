"""From ``[telemetry]`` and the environment to a working ``Telemetry``, and back down.

The CLI and the service call these with the environment they read (library code never reads
it). The standard variables override the file: ``OTEL_SDK_DISABLED``, ``OTEL_SERVICE_NAME``,
``OTEL_TRACES_EXPORTER``, ``OTEL_METRICS_EXPORTER`` (``otlp``, ``console`` or ``none``),
``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_PROTOCOL`` (``http/protobuf`` only) and
``OTEL_METRIC_EXPORT_INTERVAL`` (ms); ours are ``TOOLPOOL_CALL_LOG`` and
``TOOLPOOL_CALL_LOG_LEVEL``. OTLP export needs the ``otlp`` extra
(``pip install 'toolpool[otlp]'``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import Any, Literal, cast

from pydantic import ValidationError

from toolpool.config import TelemetrySettings
from toolpool.errors import UsageError
from toolpool.telemetry._call_log import CALL_LOGGER, CallLog
from toolpool.telemetry._prometheus import PrometheusBridge
from toolpool.telemetry._telemetry import Telemetry

__all__ = ["TelemetryRuntime", "settings_from_environment", "start_telemetry"]

_EXPORTERS = ("otlp", "console", "none")
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}
# Spans are sent in batches this often; closing sends what is left.
_BATCH_DELAY_MS = 1000


def settings_from_environment(settings: TelemetrySettings, environ: Mapping[str, str]) -> TelemetrySettings:
    """``settings`` with the standard ``OTEL_*`` (and ``TOOLPOOL_CALL_LOG*``) variables applied.

    Raises:
        UsageError: a variable holds a value toolpool cannot use (named in the message).
    """
    changes: dict[str, Any] = {}
    if environ.get("OTEL_SERVICE_NAME"):
        changes["service_name"] = environ["OTEL_SERVICE_NAME"]
    for variable, key in (("OTEL_TRACES_EXPORTER", "traces"), ("OTEL_METRICS_EXPORTER", "metrics")):
        value = environ.get(variable, "").strip().lower()
        if value:
            if value not in _EXPORTERS and not (key == "metrics" and value == "prometheus"):
                raise UsageError(f"${variable}={value!r}: toolpool exports to otlp, console or none")
            changes[key] = "none" if value == "prometheus" else value  # /metrics is always there to scrape
    protocol = environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip()
    if protocol and protocol != "http/protobuf":
        raise UsageError(f"$OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: toolpool sends http/protobuf only")
    if environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        changes["otlp_endpoint"] = environ["OTEL_EXPORTER_OTLP_ENDPOINT"].strip()
    interval = environ.get("OTEL_METRIC_EXPORT_INTERVAL", "").strip()
    if interval:
        try:
            changes["metric_export_interval_s"] = float(interval) / 1000
        except ValueError:
            raise UsageError(
                f"$OTEL_METRIC_EXPORT_INTERVAL={interval!r} is not a number of milliseconds"
            ) from None
    if environ.get("TOOLPOOL_CALL_LOG"):
        changes["call_log"] = environ["TOOLPOOL_CALL_LOG"]
    if environ.get("TOOLPOOL_CALL_LOG_LEVEL"):
        changes["call_log_level"] = environ["TOOLPOOL_CALL_LOG_LEVEL"].strip().lower()
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        changes.update(traces="none", metrics="none")
    if not changes:
        return settings
    try:
        return TelemetrySettings.model_validate({**settings.model_dump(), **changes})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise UsageError(f"telemetry setting {first['loc'][0]}: {first['msg']}") from None


class TelemetryRuntime:
    """A started ``Telemetry`` and what must be flushed and closed with it.

    ``prometheus`` is the bridge a ``/metrics`` endpoint renders (when asked for).
    """

    def __init__(
        self,
        telemetry: Telemetry,
        providers: list[Any],
        handler: logging.Handler | None,
        prometheus: PrometheusBridge | None,
    ) -> None:
        self.telemetry = telemetry
        self.prometheus = prometheus
        self._providers = providers
        self._handler = handler
        self._closed = False

    def close(self) -> None:
        """Send what is buffered, stop the exporters, detach the call log; idempotent."""
        if self._closed:
            return
        self._closed = True
        for provider in self._providers:
            provider.shutdown()
        if self._handler is not None:
            logging.getLogger(CALL_LOGGER).removeHandler(self._handler)
            self._handler.close()


def start_telemetry(settings: TelemetrySettings, *, prometheus: bool = False) -> TelemetryRuntime:
    """Providers, exporters and the call log for ``settings``; ``prometheus`` adds a pull reader
    for ``/metrics``. With everything off this is ``Telemetry.off()`` and nothing is imported.

    Raises:
        UsageError: OTLP was asked for without the ``otlp`` extra, or the call log's file
            cannot be opened.
    """
    handler = _call_log_handler(settings)
    call_log = CallLog() if handler is not None else None
    providers: list[Any] = []
    tracer_provider = meter_provider = None
    bridge = PrometheusBridge() if prometheus else None
    if settings.traces != "none" or settings.metrics != "none" or bridge is not None:
        from opentelemetry.sdk.resources import Resource

        resource = Resource({"service.name": settings.service_name})
        if settings.traces != "none":
            tracer_provider = _tracer_provider(settings, resource)
            providers.append(tracer_provider)
        readers = [] if bridge is None else [bridge.reader]
        if settings.metrics != "none":
            readers.append(_metric_reader(settings))
        if readers:
            from opentelemetry.sdk.metrics import MeterProvider

            meter_provider = MeterProvider(metric_readers=readers, resource=resource)
            providers.append(meter_provider)
    telemetry = Telemetry(tracer_provider=tracer_provider, meter_provider=meter_provider, call_log=call_log)
    return TelemetryRuntime(telemetry, providers, handler, bridge)


def _tracer_provider(settings: TelemetrySettings, resource: Any) -> Any:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    provider = TracerProvider(resource=resource)
    exporter: Any
    if settings.traces == "otlp":
        exporter = _otlp("trace_exporter", "OTLPSpanExporter")(endpoint=_endpoint(settings, "traces"))
    else:
        exporter = ConsoleSpanExporter(out=sys.stderr)
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=_BATCH_DELAY_MS))
    return provider


def _metric_reader(settings: TelemetrySettings) -> Any:
    from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader

    exporter: Any
    if settings.metrics == "otlp":
        exporter = _otlp("metric_exporter", "OTLPMetricExporter")(endpoint=_endpoint(settings, "metrics"))
    else:
        exporter = ConsoleMetricExporter(out=sys.stderr)
    interval = int(settings.metric_export_interval_s * 1000)
    return PeriodicExportingMetricReader(exporter, export_interval_millis=interval)


def _otlp(module: str, name: str) -> Any:
    try:
        imported = __import__(f"opentelemetry.exporter.otlp.proto.http.{module}", fromlist=[name])
    except ImportError:
        raise UsageError("OTLP export needs the otlp extra: pip install 'toolpool[otlp]'") from None
    return getattr(imported, name)


def _endpoint(settings: TelemetrySettings, signal: Literal["traces", "metrics"]) -> str:
    return settings.otlp_endpoint.rstrip("/") + f"/v1/{signal}"


def _call_log_handler(settings: TelemetrySettings) -> logging.Handler | None:
    where = settings.call_log.strip()
    if where == "off":
        return None
    handler: logging.Handler
    if where in ("stderr", "stdout"):
        handler = logging.StreamHandler(sys.stderr if where == "stderr" else sys.stdout)
    else:
        try:
            handler = logging.FileHandler(where, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot open the call log {where}: {exc.strerror or exc}") from None
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger(CALL_LOGGER)
    logger.addHandler(handler)
    logger.setLevel(_LEVELS[cast(str, settings.call_log_level)])
    logger.propagate = False
    return handler
