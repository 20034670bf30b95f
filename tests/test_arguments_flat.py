"""Gate 5's check of what JSON cannot carry takes a short cut for flat arguments (string keys,
no container values); on any arguments it answers as the full walk does."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import json_values
from toolpool.calls._arguments import _TOO_DEEP, MAX_ARGUMENT_DEPTH, _not_plain_json
from toolpool.calls._arguments import _walked as reference

keys = st.text(max_size=6) | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
arguments = st.dictionaries(keys, scalars | json_values | st.tuples(scalars), max_size=5)


@settings(max_examples=3000, deadline=None)
@given(arguments)
def test_gate5_the_flat_short_cut_answers_as_the_full_walk(value: dict[Any, Any]) -> None:
    assert _not_plain_json(value) == reference(value)


def test_gate5_flat_arguments_pass_and_a_key_that_is_not_a_string_is_refused() -> None:
    assert _not_plain_json({"text": "hello", "n": 1, "x": None}) is None
    assert _not_plain_json({1: "one"}) == "argument object keys must be strings"
    assert _not_plain_json({"a": {2: "two"}}) == "argument object keys must be strings"
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(MAX_ARGUMENT_DEPTH):
        inner["a"] = {}
        inner = inner["a"]
    assert _not_plain_json(deep) == _TOO_DEEP
