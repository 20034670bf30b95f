"""``[telemetry]`` and the ``OTEL_*`` variables: what they turn on, and one clear line for what
toolpool cannot use."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from toolpool import ConfigError, Pool, Ticket, load_config
from toolpool.config import TelemetrySettings
from toolpool.errors import UsageError
from toolpool.telemetry import CALL_LOGGER, settings_from_environment, start_telemetry

TIMEOUT = 60


def test_the_standard_variables_override_the_file() -> None:
    file = TelemetrySettings(traces="console", service_name="from-file", call_log="off")
    merged = settings_from_environment(
        file,
        {
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_METRICS_EXPORTER": "console",
            "OTEL_SERVICE_NAME": "from-env",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
            "OTEL_METRIC_EXPORT_INTERVAL": "5000",
            "TOOLPOOL_CALL_LOG": "stderr",
            "TOOLPOOL_CALL_LOG_LEVEL": "WARNING",
        },
    )
    assert (merged.traces, merged.metrics, merged.service_name) == ("otlp", "console", "from-env")
    assert (merged.metric_export_interval_s, merged.call_log, merged.call_log_level) == (
        5.0,
        "stderr",
        "warning",
    )
    assert settings_from_environment(file, {}) is file
    disabled = settings_from_environment(merged, {"OTEL_SDK_DISABLED": "true"})
    assert (disabled.traces, disabled.metrics) == ("none", "none")


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"OTEL_TRACES_EXPORTER": "jaeger"}, "$OTEL_TRACES_EXPORTER"),
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "$OTEL_EXPORTER_OTLP_PROTOCOL"),
        ({"OTEL_METRIC_EXPORT_INTERVAL": "soon"}, "$OTEL_METRIC_EXPORT_INTERVAL"),
        ({"TOOLPOOL_CALL_LOG_LEVEL": "loud"}, "call_log_level"),
    ],
)
def test_a_variable_toolpool_cannot_use_is_named_in_one_line(environ: dict[str, str], named: str) -> None:
    with pytest.raises(UsageError) as raised:
        settings_from_environment(TelemetrySettings(), environ)
    assert named in str(raised.value) and "\n" not in str(raised.value)


def test_everything_off_starts_nothing() -> None:
    runtime = start_telemetry(TelemetrySettings())
    try:
        assert not runtime.telemetry.active and runtime.prometheus is None
    finally:
        runtime.close()
        runtime.close()  # idempotent


def test_the_config_rejects_an_unknown_telemetry_key_and_a_bad_value(tmp_path: Path) -> None:
    path = tmp_path / "toolpool.toml"
    path.write_text('[telemetry]\ntraces = "otlp"\ntracez = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="tracez"):
        load_config(path)
    path.write_text("[telemetry]\ntools_grew_factor = 0.5\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="tools_grew_factor"):
        load_config(path)
    path.write_text('[telemetry]\ntraces = "otlp"\ncall_log = "calls.log"\n', encoding="utf-8")
    assert load_config(path).telemetry.traces == "otlp"


@pytest.mark.anyio
async def test_a_call_log_file_gets_one_line_per_call_and_is_detached_on_close(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("get")]])
    config = write_config(tmp_path, scripted_server("store", spec, {"get": {"action": "store.get", **READ}}))
    log = tmp_path / "calls.log"
    runtime = start_telemetry(TelemetrySettings(call_log=str(log)))
    try:
        async with Pool(config, store=False, telemetry=runtime.telemetry) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("store")
                await pool.call(pool.snapshot(), "mcp__store__get", {}, ticket=Ticket.allow("*"))
                await pool.call(pool.snapshot(), "mcp__store__get", {}, ticket=Ticket.allow("other"))
    finally:
        runtime.close()
    assert logging.getLogger(CALL_LOGGER).handlers == []
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(line["tool"], line["code"]) for line in lines] == [("get", "ok"), ("get", "denied")]


def test_the_cli_writes_the_call_log_named_by_toolpool_call_log(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("get")]])
    write_config(tmp_path, scripted_server("store", spec, {"get": {"action": "store.get", **READ}}))
    log = tmp_path / "calls.log"
    environment = {**os.environ, "TOOLPOOL_CALL_LOG": str(log), "NO_COLOR": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolpool",
            "call",
            "store",
            "get",
            "--config",
            str(tmp_path / "toolpool.toml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()]
    assert (line["alias"], line["tool"], line["code"]) == ("store", "get", "ok")


def test_the_cli_refuses_an_exporter_it_cannot_use_with_one_line(tmp_path: Path) -> None:
    write_config(tmp_path)
    environment = {**os.environ, "OTEL_TRACES_EXPORTER": "zipkin", "NO_COLOR": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolpool",
            "serve",
            "--http",
            "127.0.0.1:0",
            "--config",
            str(tmp_path / "toolpool.toml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        "toolpool: error: $OTEL_TRACES_EXPORTER='zipkin': toolpool exports to otlp, console or none"
    ]
