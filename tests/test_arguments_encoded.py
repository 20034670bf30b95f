"""Gate 5 encodes arguments with a C scanner built once; it writes the very text the reference
encoder writes, or fails the same way (a cycle, real depth, NaN, a value JSON has no form for)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import json_values
from toolpool.calls._arguments import _ENCODER, encoded

keys = st.text(max_size=6) | st.integers() | st.booleans() | st.none() | st.floats()
odd = st.floats() | st.sampled_from([object(), b"bytes", {1, 2}, "\ud800", 10**400, -0.0])
arguments = st.dictionaries(keys, json_values | odd | st.lists(odd, max_size=3), max_size=5)


def outcome(function: Any, value: object) -> tuple[str, str]:
    try:
        return "text", function(value)
    except Exception as exc:  # the kind of failure is what must agree
        return "raised", type(exc).__name__


@settings(max_examples=3000, deadline=None)
@given(arguments)
def test_gate5_the_prebuilt_scanner_writes_what_the_reference_writes(value: dict[Any, Any]) -> None:
    assert outcome(encoded, value) == outcome(_ENCODER.encode, value)


def test_gate5_a_cycle_and_real_depth_fail_as_with_the_reference() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    assert outcome(encoded, cycle) == outcome(_ENCODER.encode, cycle) == ("raised", "ValueError")
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(100_000):
        inner["a"] = {}
        inner = inner["a"]
    assert outcome(encoded, deep) == outcome(_ENCODER.encode, deep) == ("raised", "RecursionError")
    assert encoded({"text": "hello", "n": [1, 2.5, None, True]}) == '{"text":"hello","n":[1,2.5,null,true]}'
