"""Telemetry: OpenTelemetry traces and metrics by the MCP conventions, and the call log.

Off unless the caller gives providers (``Telemetry.off()`` is the default everywhere): then
nothing is recorded and the call path pays one branch. ``telemetry_from_settings`` builds
providers and exporters from ``[telemetry]`` (OTLP/HTTP or the console; a Prometheus bridge
for ``/metrics``); only the CLI and the service call it, with the environment they read.
"""

from toolpool.telemetry._call_log import CALL_LOGGER, CallLine, CallLog, argument_shape, plain_name
from toolpool.telemetry._prometheus import CONTENT_TYPE as PROMETHEUS_CONTENT_TYPE
from toolpool.telemetry._prometheus import PrometheusBridge
from toolpool.telemetry._setup import TelemetryRuntime, settings_from_environment, start_telemetry
from toolpool.telemetry._spans import (
    GATES,
    ServerSpan,
    UpstreamSpan,
    call_decided,
    ids_of,
    mark_outcome,
    record_gates,
    traced,
)
from toolpool.telemetry._telemetry import AliasReading, SpanKind, Telemetry, extract, inject

__all__ = [
    "CALL_LOGGER",
    "GATES",
    "PROMETHEUS_CONTENT_TYPE",
    "AliasReading",
    "CallLine",
    "CallLog",
    "PrometheusBridge",
    "ServerSpan",
    "SpanKind",
    "Telemetry",
    "TelemetryRuntime",
    "UpstreamSpan",
    "argument_shape",
    "call_decided",
    "extract",
    "ids_of",
    "inject",
    "mark_outcome",
    "plain_name",
    "record_gates",
    "settings_from_environment",
    "start_telemetry",
    "traced",
]
