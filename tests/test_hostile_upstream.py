"""Treat upstream as hostile, and prove it: whatever a server sends either parses or becomes
one of toolpool's own errors or Envelope codes, never anything else."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.strategies import json_values
from toolpool import ConnectionRefused, Pool, Ticket, UpstreamError
from toolpool.errors import ENVELOPE_CODES

pytestmark = pytest.mark.anyio

tool_like = st.fixed_dictionaries(
    {"name": st.sampled_from(["t", "t2", "", "bad name"]) | st.text(max_size=10)},
    optional={"inputSchema": json_values, "description": json_values, "annotations": json_values},
)
list_results = st.one_of(
    json_values,
    st.fixed_dictionaries({"tools": st.lists(tool_like, max_size=3)}, optional={"nextCursor": json_values}),
)
FUZZ = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


async def _connect(folder: Path, **spec: Any) -> None:
    path = write_spec(folder, **spec)
    # A garbled answer leaves the listing waiting for its bound: connect_timeout_s.
    server = scripted_server("s", path, {"t": {"action": "t", **READ}}, call_timeout_s=1, connect_timeout_s=2)
    config = write_config(folder, server)
    async with Pool(config) as pool:
        with anyio.fail_after(30):
            await pool.connect("s")


@FUZZ
@given(list_results)
async def test_any_tools_list_result_is_admitted_refused_or_an_upstream_error(result: Any) -> None:
    with tempfile.TemporaryDirectory() as folder, contextlib.suppress(ConnectionRefused, UpstreamError):
        await _connect(Path(folder), raw_list_result=result)


@FUZZ
@given(st.binary(max_size=200).map(lambda b: b.decode("latin-1")) | json_values.map(json.dumps))
async def test_any_line_in_place_of_a_tools_list_answer_is_refused_or_an_upstream_error(line: str) -> None:
    line = line.replace("\n", " ").replace("\r", " ")
    with tempfile.TemporaryDirectory() as folder, contextlib.suppress(ConnectionRefused, UpstreamError):
        await _connect(Path(folder), raw_list_line=line)


@FUZZ
@given(
    json_values
    | st.fixed_dictionaries(
        {"content": json_values}, optional={"isError": json_values, "structuredContent": json_values}
    )
)
async def test_any_tools_call_result_becomes_an_envelope_with_a_known_code(result: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        spec = write_spec(Path(folder), pages=[[tool_def("t")]], raw_call_result=result)
        config = write_config(
            Path(folder), scripted_server("s", spec, {"t": {"action": "t", **READ}}, call_timeout_s=1)
        )
        async with Pool(config) as pool:
            with anyio.fail_after(30):
                await pool.connect("s")
                envelope = await pool.call(pool.snapshot(), "mcp__s__t", {}, ticket=Ticket.allow("*"))
    assert envelope.code in ENVELOPE_CODES
