"""Gate 10 takes the arguments' size from gate 5's encoding when that encoding tells it, and the
size recorded is the one its own measure (``_size``) gives, whatever the arguments hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import json_values
from tests.test_recording import TIMEOUT, _config
from toolpool import Pool, Ticket
from toolpool.calls._arguments import _ENCODER, ascii_size
from toolpool.calls._recording import _size
from toolpool.store import CallRecord

_AWKWARD = st.text(
    alphabet=st.sampled_from(["a", " ", "\x7f", "\x00", "\n", '"', "\\", "\u00e9", "\U0001f600"])
)
arguments = st.dictionaries(st.text(max_size=8) | _AWKWARD, json_values | _AWKWARD, max_size=5)


@settings(max_examples=2000, deadline=None)
@given(arguments)
def test_gate10_a_size_taken_from_gate5s_encoding_is_the_size_gate10_measures(value: dict[str, Any]) -> None:
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError, RecursionError):
        return
    size = ascii_size(text)
    if size is not None:
        assert size == _size(value), text
    if "\x7f" in text or not text.isascii():
        assert size is None


@pytest.mark.anyio
async def test_gate10_records_the_size_of_ascii_del_and_non_ascii_arguments_as_before(tmp_path: Path) -> None:
    seen: list[CallRecord] = []
    sent = [{"text": "hello"}, {"text": "del\x7fhere"}, {"text": "h\u00e9llo"}, {"text": 'q"uo\\te\n'}]
    async with Pool(_config(tmp_path), on_call=seen.append) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            snapshot, ticket = pool.snapshot(), Ticket.allow("*")
            for value in sent:
                envelope = await pool.call(snapshot, "mcp__demo_alpha__echo", value, ticket=ticket)
                assert envelope.ok, envelope.text
            refused = await pool.call(snapshot, "mcp__demo_alpha__echo", {"text": 5}, ticket=ticket)
            assert refused.code == "invalid_arguments"
    expected = [len(json.dumps(value, separators=(",", ":"))) for value in [*sent, {"text": 5}]]
    assert [record.bytes_in for record in seen] == expected
