"""End to end: ``toolpool serve --http`` sends one trace, client -> toolpool -> upstream, to an
OTLP/HTTP receiver on 127.0.0.1, and answers Prometheus scrapes for its own token only."""

from __future__ import annotations

import gzip
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.serve.gateway_helpers import WAIT_S, bearer, http_client, new_token, served, text_of

pytestmark = pytest.mark.anyio

CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c"
HEADER_SPAN = "b7ad6b7169203331"
METRICS_TOKEN = "metrics-" + secrets.token_hex(16)


class _Receiver(BaseHTTPRequestHandler):
    bodies: list[tuple[str, bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        self.bodies.append((self.path, body))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    bodies: list[tuple[str, bytes]] = []
    handler = type("Receiver", (_Receiver,), {"bodies": bodies})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=WAIT_S)


def _spans(bodies: list[tuple[str, bytes]]) -> list[object]:
    found = []
    for path, body in bodies:
        if path == "/v1/traces":
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    found.extend(scope.spans)
    return found


def _metric_names(bodies: list[tuple[str, bytes]]) -> set[str]:
    found = set()
    for path, body in bodies:
        if path == "/v1/metrics":
            request = ExportMetricsServiceRequest()
            request.ParseFromString(body)
            for resource in request.resource_metrics:
                for scope in resource.scope_metrics:
                    found.update(metric.name for metric in scope.metrics)
    return found


def _config(tmp_path: Path) -> Path:
    spec = write_spec(tmp_path, pages=[[tool_def("get")]], echo_meta=True)
    write_config(tmp_path, scripted_server("store", spec, {"get": {"action": "store.get", **READ}}))
    return tmp_path / "toolpool.toml"


async def test_one_trace_runs_from_the_client_through_the_gateway_to_the_upstream(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = new_token(config, "ana", "--allow", "*")
    traceparent = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"
    with otlp_receiver() as (endpoint, bodies):
        env = {
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_METRICS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
            "OTEL_SERVICE_NAME": "gw-test",
        }
        async with served(config, "--http", "127.0.0.1:0", env=env) as gateway:
            with anyio.fail_after(WAIT_S):
                async with http_client(gateway.url, token, "2026-07-28") as client:
                    result = await client.call_tool("mcp__store__get", {}, meta={"traceparent": traceparent})
                # A client that sends its context as the HTTP header only.
                header = f"00-{HEADER_TRACE}-{HEADER_SPAN}-01"
                async with (
                    bearer(token, traceparent=header) as http,
                    Client(streamable_http_client(gateway.url, http_client=http), mode="2026-07-28") as plain,
                ):
                    await plain.call_tool("mcp__store__get", {})
        spans = _spans(bodies)  # the gateway sent its last batch as it stopped
        metrics = _metric_names(bodies)
    echoed = text_of(result)
    by_name = {span.name: span for span in spans if span.trace_id.hex() == CLIENT_TRACE}  # type: ignore[attr-defined]
    server, call, client_span = (
        by_name["tools/call mcp__store__get"],
        by_name["toolpool.call get"],
        by_name["tools/call get"],
    )
    assert server.parent_span_id.hex() == CLIENT_SPAN  # type: ignore[attr-defined]
    assert call.parent_span_id == server.span_id  # type: ignore[attr-defined]
    assert client_span.parent_span_id == call.span_id  # type: ignore[attr-defined]
    # The upstream received the client span's context as its parent.
    assert f"traceparent=00-{CLIENT_TRACE}-{client_span.span_id.hex()}-" in echoed  # type: ignore[attr-defined]
    attributes = {kv.key: kv.value for kv in server.attributes}  # type: ignore[attr-defined]
    assert attributes["mcp.method.name"].string_value == "tools/call"
    assert attributes["gen_ai.tool.name"].string_value == "mcp__store__get"
    assert attributes["mcp.protocol.version"].string_value == "2026-07-28"
    assert attributes["toolpool.principal"].string_value == "token:ana"
    assert attributes["toolpool.alias"].string_value == "store"
    assert attributes["toolpool.snapshot.version"].int_value >= 1
    assert attributes["toolpool.release"].int_value >= 1
    assert "jsonrpc.request.id" in attributes
    from_header = [
        s for s in spans if s.trace_id.hex() == HEADER_TRACE and s.name == "tools/call mcp__store__get"
    ]  # type: ignore[attr-defined]
    assert [s.parent_span_id.hex() for s in from_header] == [HEADER_SPAN]  # type: ignore[attr-defined]
    assert {"mcp.server.operation.duration", "mcp.client.operation.duration", "toolpool.calls"} <= metrics


async def test_metrics_are_scraped_with_their_own_token_and_move_by_the_calls_made(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = new_token(config, "ana", "--allow", "*")
    env = {"TOOLPOOL_METRICS_TOKEN": METRICS_TOKEN}
    async with served(config, "--http", "127.0.0.1:0", env=env) as gateway:
        base = gateway.url.removesuffix("/mcp")
        with anyio.fail_after(WAIT_S):
            async with bearer(METRICS_TOKEN) as scraper, bearer(token) as holder, bearer(None) as nobody:
                before = _families((await scraper.get(f"{base}/metrics")).text)
                async with http_client(gateway.url, token, "2026-07-28") as client:
                    for _ in range(2):
                        await client.call_tool("mcp__store__get", {})
                after = _families((await scraper.get(f"{base}/metrics")).text)
                assert (await nobody.get(f"{base}/metrics")).status_code == 401
                assert (
                    await holder.get(f"{base}/metrics")
                ).status_code == 401  # a client token is not enough
    labels = {"toolpool_alias": "store", "gen_ai_tool_name": "get", "toolpool_code": "ok"}
    assert (
        _value(after, "toolpool_calls_total", **labels) - _value(before, "toolpool_calls_total", **labels)
        == 2
    )
    served_calls = _value(after, "mcp_server_operation_duration_seconds_count", mcp_method_name="tools/call")
    assert (
        served_calls
        - _value(before, "mcp_server_operation_duration_seconds_count", mcp_method_name="tools/call")
        == 2
    )
    assert _value(after, "toolpool_tools_exposed", toolpool_alias="store") == 1
    assert _value(after, "toolpool_connections_open", toolpool_alias="store") == 1


async def test_without_a_metrics_token_the_metrics_path_is_not_served(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = new_token(config, "ana", "--allow", "*")
    async with served(config, "--http", "127.0.0.1:0") as gateway:
        base = gateway.url.removesuffix("/mcp")
        with anyio.fail_after(WAIT_S):
            async with bearer(token) as holder, bearer(None) as nobody:
                assert (await nobody.get(f"{base}/metrics")).status_code == 401
                assert "toolpool_calls" not in (await holder.get(f"{base}/metrics")).text


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _families(text: str) -> Samples:
    """Every sample of a scrape, parsed by the Prometheus client's own parser."""
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def _value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 when there is none)."""
    wanted = set(labels.items())
    return sum(value for (found, have), value in samples.items() if found == name and wanted <= have)
