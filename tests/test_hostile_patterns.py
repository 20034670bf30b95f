"""A hostile ``pattern`` cannot block the event loop (DESIGN.md: untrusted regular expressions
run only on a linear-time engine), whether the model sends the hostile text in the arguments
(gate 5) or the upstream sends it in ``structuredContent`` (gate 9, and never the SDK's own
output validation). Real scripted servers; the loop's lag is measured by a ticker task on the
same loop while the hostile call runs.
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.redos import ATTACK, DFA_HOSTILE, LAG_LIMIT_S, dfa_attack, hostile_schema, loop_lag
from toolpool import Pool, Ticket

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ANY = Ticket.allow("*")


async def test_a_hostile_pattern_argument_is_invalid_at_once_and_the_loop_keeps_ticking(
    tmp_path: Path,
) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("find", hostile_schema()), tool_def("ping")]])
    config = write_config(
        tmp_path,
        scripted_server(
            "s", spec, {"find": {"action": "s.find", **READ}, "ping": {"action": "s.ping", **READ}}
        ),
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            snapshot = pool.snapshot()
            fine = await pool.call(snapshot, "mcp__s__find", {"q": "hello world"}, ticket=ANY)
            concurrent: list[float] = []

            async def other_call() -> None:
                started = time.perf_counter()
                envelope = await pool.call(snapshot, "mcp__s__ping", {}, ticket=ANY)
                concurrent.append(time.perf_counter() - started)
                assert envelope.ok

            async with loop_lag() as lag, anyio.create_task_group() as tasks:
                tasks.start_soon(other_call)
                started = time.perf_counter()
                hostile = await pool.call(snapshot, "mcp__s__find", {"q": ATTACK}, ticket=ANY)
                took = time.perf_counter() - started
    assert fine.ok
    assert hostile.code == "invalid_arguments" and "does not match" in hostile.text
    assert took < LAG_LIMIT_S, f"the hostile call took {took:.3f} s"
    assert lag[0] < LAG_LIMIT_S, f"the loop stalled for {lag[0]:.3f} s"
    assert concurrent[0] < LAG_LIMIT_S, f"a concurrent call took {concurrent[0]:.3f} s"


async def test_a_hostile_output_pattern_is_judged_by_toolpool_at_once_and_never_by_the_sdk(
    tmp_path: Path,
) -> None:
    hostile_tool = tool_def("find") | {"outputSchema": hostile_schema()}
    result = {"content": [{"type": "text", "text": "found"}], "structuredContent": {"q": ATTACK}}
    spec = write_spec(tmp_path, pages=[[hostile_tool]], raw_call_result=result)
    config = write_config(tmp_path, scripted_server("s", spec, {"find": {"action": "s.find", **READ}}))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            snapshot = pool.snapshot()
            async with loop_lag() as lag:
                started = time.perf_counter()
                envelope = await pool.call(snapshot, "mcp__s__find", {}, ticket=ANY)
                took = time.perf_counter() - started
            again = await pool.call(snapshot, "mcp__s__find", {}, ticket=ANY)
    assert envelope.code == "mcp_remote_error" and "output schema" in envelope.text
    assert again.code == "mcp_remote_error"  # a mismatch keeps the connection (remote error)
    assert took < LAG_LIMIT_S, f"the hostile result took {took:.3f} s"
    assert lag[0] < LAG_LIMIT_S, f"the loop stalled for {lag[0]:.3f} s"


async def test_a_per_call_server_with_a_hostile_output_pattern_cannot_block_the_loop(tmp_path: Path) -> None:
    hostile_tool = tool_def("find") | {"outputSchema": hostile_schema()}
    result = {"content": [{"type": "text", "text": "found"}], "structuredContent": {"q": ATTACK}}
    spec = write_spec(tmp_path, pages=[[hostile_tool]], raw_call_result=result)
    config = write_config(
        tmp_path, scripted_server("s", spec, {"find": {"action": "s.find", **READ}}, lifecycle="per_call")
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            async with loop_lag() as lag:
                envelope = await pool.call(pool.snapshot(), "mcp__s__find", {}, ticket=ANY)
    assert envelope.code == "mcp_remote_error" and "output schema" in envelope.text
    assert lag[0] < LAG_LIMIT_S, f"the loop stalled for {lag[0]:.3f} s"


async def test_a_dfa_hostile_pattern_on_a_large_argument_leaves_the_loop_responsive(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": DFA_HOSTILE}}}
    spec = write_spec(tmp_path, pages=[[tool_def("find", schema)]])
    config = write_config(tmp_path, scripted_server("s", spec, {"find": {"action": "s.find", **READ}}))
    attack = dfa_attack(250_000)  # within the default max_argument_bytes (256 KiB)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            async with loop_lag() as lag:
                envelope = await pool.call(pool.snapshot(), "mcp__s__find", {"q": attack}, ticket=ANY)
    assert envelope.code == "invalid_arguments" and "does not match" in envelope.text
    assert lag[0] < LAG_LIMIT_S, f"the loop stalled for {lag[0]:.3f} s"


async def test_a_dfa_hostile_output_pattern_on_a_megabyte_of_structured_content_leaves_the_loop_responsive(
    tmp_path: Path,
) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": DFA_HOSTILE}}}
    result = {
        "content": [{"type": "text", "text": "found"}],
        "structuredContent": {"q": dfa_attack(1_000_000)},
    }
    spec = write_spec(tmp_path, pages=[[tool_def("find") | {"outputSchema": schema}]], raw_call_result=result)
    config = write_config(tmp_path, scripted_server("s", spec, {"find": {"action": "s.find", **READ}}))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
            async with loop_lag() as lag:
                envelope = await pool.call(pool.snapshot(), "mcp__s__find", {}, ticket=ANY)
    assert envelope.code == "mcp_remote_error" and "output schema" in envelope.text
    assert lag[0] < LAG_LIMIT_S, f"the loop stalled for {lag[0]:.3f} s"
