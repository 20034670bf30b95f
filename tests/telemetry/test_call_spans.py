"""Every call leaves a span by the MCP conventions, metrics and one call-log line; never a value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest
from opentelemetry.trace import SpanKind, StatusCode, format_span_id, format_trace_id

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.telemetry.otel_helpers import Recorded, every_value, recorded
from toolpool import Config, ConfigEnablement, Pool, Ticket
from toolpool.telemetry import GATES, Telemetry

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ANY = Ticket.allow("*")
SECRET_ARGUMENT = "hunter2-argument-value"
KEY_SCHEMA = {
    "type": "object",
    "properties": {"key": {"type": "string", "maxLength": 40}},
    "required": ["key"],
    "additionalProperties": False,
}
TOOLS = {
    "get": {"action": "store.get", "resource": "items/{key}", **READ},
    "put": {
        "action": "store.put",
        "effect": "write",
        "enabled": True,
        "write_approval": {"by": "tests", "reason": "scripted"},
    },
}


@pytest.fixture
def otel() -> Iterator[Recorded]:
    yield from recorded()


def _config(tmp_path: Path, **spec: object) -> tuple[Config, Path]:
    log = tmp_path / "requests.jsonl"
    path = write_spec(
        tmp_path, pages=[[tool_def("get", KEY_SCHEMA), tool_def("put", KEY_SCHEMA)]], log=str(log), **spec
    )
    return write_config(tmp_path, scripted_server("store", path, TOOLS)), log


def _gate_events(span: object) -> list[tuple[int, str, bool]]:
    """The gates as the span's events say: each passed one, then the failed one (if any)."""
    found: list[tuple[int, str, bool]] = []
    for event in span.events:  # type: ignore[attr-defined]
        if event.name == "toolpool.gates.passed":
            found += [(n, name, True) for n, name in enumerate(event.attributes["toolpool.gates"], start=1)]
        elif event.name == "toolpool.gate.failed":
            found.append(
                (event.attributes["toolpool.gate.number"], event.attributes["toolpool.gate.name"], False)
            )
    return found


async def test_an_ok_call_has_a_call_span_with_every_gate_passed_and_a_client_span_whose_context_goes_upstream(
    tmp_path: Path, otel: Recorded
) -> None:
    config, log = _config(tmp_path, echo_meta=True)
    async with Pool(config, telemetry=otel.telemetry) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("store")
            session = pool.session("ana", ANY)
            version = session.snapshot().version
            envelope = await session.call(session.snapshot(), "mcp__store__get", {"key": SECRET_ARGUMENT})
    assert envelope.code == "ok"
    (call,) = otel.spans("toolpool.call")
    (client,) = otel.spans("tools/call")
    assert call.name == "toolpool.call get" and call.kind is SpanKind.INTERNAL
    assert call.attributes is not None
    assert call.attributes["gen_ai.tool.name"] == "get"
    assert call.attributes["toolpool.alias"] == "store"
    assert call.attributes["toolpool.principal"] == "ana"
    assert call.attributes["toolpool.session.id"] == session.id
    assert call.attributes["toolpool.snapshot.version"] == version
    assert call.attributes["toolpool.release"] == session.release_number
    assert "error.type" not in call.attributes
    assert _gate_events(call) == [(n, GATES[n - 1], True) for n in range(1, len(GATES) + 1)]
    assert client.kind is SpanKind.CLIENT and client.name == "tools/call get"
    assert client.attributes is not None
    assert client.attributes["mcp.method.name"] == "tools/call"
    assert client.attributes["gen_ai.operation.name"] == "execute_tool"
    assert client.parent is not None and client.parent.span_id == call.context.span_id
    # The upstream received our client span's context in params._meta, and echoed it.
    expected = f"00-{format_trace_id(client.context.trace_id)}-{format_span_id(client.context.span_id)}-"
    assert f"traceparent={expected}" in envelope.text
    sent = [json.loads(line) for line in log.read_text().splitlines() if '"tools/call"' in line]
    assert sent[0]["params"]["_meta"]["traceparent"].startswith(expected)
    for span in otel.spans():
        assert not any(SECRET_ARGUMENT in value for value in every_value(span))


async def test_each_refusal_names_its_code_as_error_type_and_the_gate_that_refused(
    tmp_path: Path, otel: Recorded
) -> None:
    config, _ = _config(tmp_path)
    enablement = ConfigEnablement(config)
    now = datetime(2026, 12, 3, tzinfo=UTC)
    expired = Ticket("ana", ("*",), expires_at=now - timedelta(seconds=1))
    async with Pool(config, enablement=enablement, clock=lambda: now, telemetry=otel.telemetry) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("store")
            snapshot = pool.snapshot()
            session = pool.session("ana", ANY)
            untrusted = "untrusted-result-text-0123456789"
            await session.call(session.snapshot(), "mcp__store__get", {"key": untrusted})
            codes = [
                (await pool.call(snapshot, "mcp__store__nope", {}, ticket=ANY)).code,
                (await pool.call(snapshot, "mcp__store__get", {"key": "a"}, ticket=Ticket.allow("x"))).code,
                (await pool.call(snapshot, "mcp__store__get", {"key": "a"}, ticket=expired)).code,
                (await pool.call(snapshot, "mcp__store__get", {"key": 5}, ticket=ANY)).code,
                (await session.call(session.snapshot(), "mcp__store__put", {"key": untrusted})).code,
            ]
            enablement.disable("store", "get")
            codes.append((await pool.call(snapshot, "mcp__store__get", {"key": "a"}, ticket=ANY)).code)
    assert codes == [
        "unknown_tool",
        "denied",
        "ticket_expired",
        "invalid_arguments",
        "tainted_argument",
        "tool_disabled",
    ]
    calls = otel.spans("toolpool.call")
    refused = {span.attributes["error.type"]: span for span in calls if "error.type" in span.attributes}  # type: ignore[index, operator]
    assert sorted(refused) == sorted(codes)
    expected_gate = {
        "unknown_tool": 1,
        "tool_disabled": 3,
        "denied": 4,
        "ticket_expired": 4,
        "invalid_arguments": 5,
        "tainted_argument": 6,
    }
    for code, span in refused.items():
        events = _gate_events(span)
        gate = expected_gate[code]
        assert events[-1] == (gate, GATES[gate - 1], False), code
        assert all(passed for _, _, passed in events[:-1]), code
        assert span.status.status_code is StatusCode.ERROR
    # Refusals never went upstream, so they have no client span; the two ok calls did.
    assert len(otel.spans("tools/call")) == 1


async def test_calls_are_counted_by_alias_tool_and_code_and_upstream_time_is_a_histogram(
    tmp_path: Path, otel: Recorded
) -> None:
    config, _ = _config(tmp_path)
    async with Pool(config, telemetry=otel.telemetry) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("store")
            snapshot = pool.snapshot()
            for key in ("a", "b", "c"):
                await pool.call(snapshot, "mcp__store__get", {"key": key}, ticket=ANY)
            await pool.call(snapshot, "mcp__store__get", {"key": "a"}, ticket=Ticket.allow("x"))
        counts = {
            (
                p.attributes["toolpool.alias"],
                p.attributes["gen_ai.tool.name"],
                p.attributes["toolpool.code"],
            ): p.value  # type: ignore[union-attr]
            for p in otel.points("toolpool.calls")
        }
        assert counts == {("store", "get", "ok"): 3, ("store", "get", "denied"): 1}
        durations = {
            p.attributes["mcp.method.name"]: p.count for p in otel.points("mcp.client.operation.duration")
        }  # type: ignore[index, union-attr]
        assert durations == {"tools/call": 3, "tools/list": 1}  # type: ignore[union-attr]
        exposed = {p.attributes["toolpool.alias"]: p.value for p in otel.points("toolpool.tools.exposed")}  # type: ignore[index]
        assert exposed == {"store": 2}
        tokens = {p.attributes["toolpool.alias"]: p.value for p in otel.points("toolpool.tool_list.tokens")}  # type: ignore[index]
        assert tokens["store"] == pool.snapshot().list_tokens > 0
        assert [p.value for p in otel.points("toolpool.connections.open")] == [1]
        assert [p.value for p in otel.points("toolpool.breaker.state")] == [0]
    # The pool wrote its call records and audit events on closing at the latest: timed.
    writes = otel.points("toolpool.store.operation.duration")
    assert sum(p.count for p in writes) >= 1  # type: ignore[union-attr]


async def test_each_call_decision_writes_one_json_log_line_with_the_argument_shape_never_a_value(
    tmp_path: Path, otel: Recorded
) -> None:
    config, _ = _config(tmp_path)
    async with Pool(config, telemetry=otel.telemetry) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("store")
            session = pool.session("ana", ANY)
            ok = await session.call(session.snapshot(), "mcp__store__get", {"key": SECRET_ARGUMENT})
            await session.call(session.snapshot(), "mcp__store__get", {"key": 5})
    lines = otel.log_lines()
    assert [line["code"] for line in lines] == ["ok", "invalid_arguments"]
    first = lines[0]
    (call_span, _) = otel.spans("toolpool.call")
    assert first["trace_id"] == format_trace_id(call_span.context.trace_id)
    assert first["span_id"] == format_span_id(call_span.context.span_id)
    assert (first["session"], first["principal"], first["alias"], first["tool"]) == (
        session.id,
        "ana",
        "store",
        "get",
    )
    assert first["arguments"] == {"keys": {"key": len(json.dumps(SECRET_ARGUMENT))}}
    assert first["result_bytes"] == len(ok.text.encode())
    assert first["suspicious"] is False and first["duration_ms"] >= 0
    assert all(SECRET_ARGUMENT not in text for text in otel.handler.lines)


async def test_telemetry_that_is_off_records_nothing_and_sends_no_trace_context_upstream(
    tmp_path: Path,
) -> None:
    config, log = _config(tmp_path)
    telemetry = Telemetry.off()
    assert not telemetry.active
    async with Pool(config, telemetry=telemetry) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("store")
            envelope = await pool.call(pool.snapshot(), "mcp__store__get", {"key": "a"}, ticket=ANY)
    assert envelope.code == "ok"
    sent = [json.loads(line) for line in log.read_text().splitlines() if '"tools/call"' in line]
    assert "traceparent" not in (sent[0]["params"].get("_meta") or {})
