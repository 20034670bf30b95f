"""Retries only where safe (issue 15): ``retry = { attempts, backoff_ms }`` tries a *read* call
again after ``mcp_connection_lost`` or ``mcp_timeout``, within the call's deadline; a write is
never retried, and a remote error is an answer, not a fault. The upstream is a scripted stdio
server that fails its first calls (counted in a file across restarts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from toolpool import Pool, Ticket
from toolpool.errors import ConfigError

pytestmark = pytest.mark.anyio

ANY = Ticket.allow("*")
WRITE = {"effect": "write", "enabled": True, "write_approval": {"by": "test", "reason": "retry tests"}}


def _flaky(tmp_path: Path, fail_first: int, fail_as: str = "exit", **spec: Any) -> tuple[Path, Path]:
    count = tmp_path / "calls.count"
    path = write_spec(
        tmp_path,
        pages=[[tool_def("read"), tool_def("write")]],
        call_count_file=str(count),
        fail_first_calls=fail_first,
        fail_as=fail_as,
        **spec,
    )
    return path, count


def _calls(count: Path) -> int:
    return int(count.read_text()) if count.exists() else 0


def _table(spec: Path, *, read: dict[str, Any] | None = None, **fields: Any) -> str:
    tools = {"read": {**READ, "action": "t.read", **(read or {})}, "write": {**WRITE, "action": "t.write"}}
    return scripted_server("flaky", spec, tools, **fields)


async def test_a_read_call_whose_server_died_is_retried_through_a_fresh_admitted_connection(
    tmp_path: Path,
) -> None:
    spec, count = _flaky(tmp_path, fail_first=1)
    events: list[str] = []
    config = write_config(tmp_path, _table(spec, read={"retry": {"attempts": 2, "backoff_ms": 0}}))
    with anyio.fail_after(60):
        async with Pool(config, store=False, on_event=lambda event: events.append(event.kind)) as pool:
            await pool.connect("flaky")
            envelope = await pool.call(pool.snapshot(), "mcp__flaky__read", {}, ticket=ANY)
            assert envelope.code == "ok", envelope.text
            assert _calls(count) == 2
            assert events.count("mcp.connection_lost") == 1  # the first link was dropped and said so
            again = await pool.call(pool.snapshot(), "mcp__flaky__read", {}, ticket=ANY)
            assert again.code == "ok" and _calls(count) == 3


async def test_a_write_call_is_never_retried_even_when_its_server_asks_for_retries(tmp_path: Path) -> None:
    spec, count = _flaky(tmp_path, fail_first=1)
    config = write_config(tmp_path, _table(spec, retry={"attempts": 3, "backoff_ms": 0}))
    with anyio.fail_after(60):
        async with Pool(config, store=False) as pool:
            await pool.connect("flaky")
            envelope = await pool.call(pool.snapshot(), "mcp__flaky__write", {}, ticket=ANY)
            assert envelope.code == "mcp_connection_lost"
            assert _calls(count) == 1


def test_the_configuration_refuses_a_retry_on_a_write_tool(tmp_path: Path) -> None:
    spec, _ = _flaky(tmp_path, fail_first=0)
    table = scripted_server(
        "flaky",
        spec,
        {
            "write": {**WRITE, "action": "t.write", "retry": {"attempts": 1}},
            "read": {**READ, "action": "t.read"},
        },
    )
    with pytest.raises(ConfigError, match="never retried"):
        write_config(tmp_path, table)


async def test_a_read_call_gives_up_after_its_attempts_and_reports_the_last_fault(tmp_path: Path) -> None:
    spec, count = _flaky(tmp_path, fail_first=10)
    config = write_config(
        tmp_path, _table(spec, read={"retry": {"attempts": 2, "backoff_ms": 0}}, lifecycle="per_call")
    )
    with anyio.fail_after(60):
        async with Pool(config, store=False) as pool:
            await pool.connect("flaky")
            envelope = await pool.call(pool.snapshot(), "mcp__flaky__read", {}, ticket=ANY)
            assert envelope.code == "mcp_connection_lost"
            assert _calls(count) == 3  # the first try and two retries
            assert "mcp__flaky__read" not in pool.snapshot()  # the final fault revokes as always


async def test_a_per_call_read_that_timed_out_is_tried_again_on_a_fresh_session(tmp_path: Path) -> None:
    spec, count = _flaky(tmp_path, fail_first=1, fail_as="hang")
    table = _table(
        spec, read={"retry": {"attempts": 1, "backoff_ms": 0}}, lifecycle="per_call", call_timeout_s=1.0
    )
    config = write_config(tmp_path, table)
    with anyio.fail_after(60):
        async with Pool(config, store=False) as pool:
            await pool.connect("flaky")
            envelope = await pool.call(pool.snapshot(), "mcp__flaky__read", {}, ticket=ANY)
            assert envelope.code == "ok", envelope.text
            assert _calls(count) == 2


async def test_no_retry_starts_after_the_calls_deadline(tmp_path: Path) -> None:
    spec, count = _flaky(tmp_path, fail_first=1, fail_as="hang")
    retry = {"attempts": 3, "backoff_ms": 0, "deadline_s": 0.5}
    config = write_config(
        tmp_path, _table(spec, read={"retry": retry}, lifecycle="per_call", call_timeout_s=1.0)
    )
    with anyio.fail_after(60):
        async with Pool(config, store=False) as pool:
            await pool.connect("flaky")
            envelope = await pool.call(pool.snapshot(), "mcp__flaky__read", {}, ticket=ANY)
            assert envelope.code == "mcp_timeout"
            assert _calls(count) == 1


async def test_a_remote_error_is_an_answer_and_is_not_retried(tmp_path: Path) -> None:
    count = tmp_path / "calls.count"
    spec = write_spec(
        tmp_path,
        pages=[[tool_def("read"), tool_def("write")]],
        raw_call_result={"content": [{"type": "text", "text": "no"}], "isError": True},
        log=str(tmp_path / "log.jsonl"),
    )
    config = write_config(tmp_path, _table(spec, read={"retry": {"attempts": 3, "backoff_ms": 0}}))
    with anyio.fail_after(60):
        async with Pool(config, store=False) as pool:
            await pool.connect("flaky")
            envelope = await pool.call(pool.snapshot(), "mcp__flaky__read", {}, ticket=ANY)
            assert envelope.code == "mcp_remote_error"
    calls = [line for line in (tmp_path / "log.jsonl").read_text().splitlines() if '"tools/call"' in line]
    assert len(calls) == 1 and not count.exists()
