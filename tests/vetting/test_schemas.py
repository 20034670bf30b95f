"""R4: strict schema compilation, and argument validation with local messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import json_values
from toolpool.vetting import SchemaLimits, SchemaRejected, compile_schema

LIMITS = SchemaLimits(max_bytes=64 * 1024, max_depth=32)

schema_keywords = st.sampled_from(
    [
        "type",
        "properties",
        "required",
        "$ref",
        "$defs",
        "items",
        "enum",
        "additionalProperties",
        "$id",
        "minimum",
    ]
)
schema_like = st.dictionaries(schema_keywords, json_values, max_size=5).map(lambda d: {"type": "object", **d})


@given(st.one_of(json_values, schema_like))
def test_any_json_either_compiles_or_is_rejected_with_a_schema_rejected(value: Any) -> None:
    try:
        compiled = compile_schema(value, LIMITS)
    except SchemaRejected:
        return
    compiled.problems({})  # a compiled schema can always validate


def test_an_object_schema_with_local_refs_compiles_and_validates() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"key": {"type": "string", "minLength": 1}},
        "properties": {"key": {"$ref": "#/$defs/key"}},
        "required": ["key"],
    }
    compiled = compile_schema(schema, LIMITS)
    assert compiled.problems({"key": "a"}) == []
    assert compiled.problems({"key": ""}) != []
    assert compiled.problems({}) == ["at /: 'key' is a required property"]


def test_draft_07_declarations_compile_as_2020_12() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "integer"}},
    }
    assert compile_schema(schema, LIMITS).problems({"a": "x"})


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ([], "not a JSON object"),
        ({"type": ["object", "null"]}, '"type": "object"'),
        ({"properties": {}}, '"type": "object"'),
        ({"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"}, "dialect"),
        ({"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}, "local JSON pointer"),
        ({"type": "object", "properties": {"a": {"$ref": "#anchor"}}}, "local JSON pointer"),
        ({"type": "object", "properties": {"a": {"$dynamicRef": "https://x/"}}}, "local JSON pointer"),
        ({"type": "object", "properties": {"a": {"$ref": "#/properties/b"}}}, "points at nothing"),
        ({"type": "object", "minProperties": -1}, "not a valid 2020-12 schema"),
    ],
)
def test_schemas_that_break_r4_are_rejected(schema: object, problem: str) -> None:
    with pytest.raises(SchemaRejected, match=problem.replace("$", r"\$")):
        compile_schema(schema, LIMITS)


def test_size_and_depth_are_bounded() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(20):
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(SchemaRejected, match="deeper than 10"):
        compile_schema(deep, SchemaLimits(max_bytes=64 * 1024, max_depth=10))
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(100)}}
    size = len(json.dumps(wide, separators=(",", ":")))
    with pytest.raises(SchemaRejected, match="larger than"):
        compile_schema(wide, SchemaLimits(max_bytes=size - 10, max_depth=32))


def test_a_self_referencing_schema_compiles_and_terminates() -> None:
    schema = {"type": "object", "properties": {"child": {"$ref": "#"}}}
    compiled = compile_schema(schema, LIMITS)
    assert compiled.problems({"child": {"child": {}}}) == []
    assert compiled.problems({"child": 3})


AGREEMENT_SCHEMAS = [
    {"type": "object", "properties": {"key": {"type": "string", "maxLength": 5}}, "required": ["key"]},
    {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
    {
        "type": "object",
        "properties": {"n": {"type": "number", "multipleOf": 0.5}, "e": {"enum": [1, "a", None]}},
    },
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]+$", "format": "email"}}},
    {
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"type": "boolean"}, "uniqueItems": True}},
    },
    {
        "type": "object",
        "$defs": {"n": {"type": ["integer", "null"]}},
        "properties": {"a": {"$ref": "#/$defs/n"}},
    },
    {"type": "object", "properties": {"c": {"$ref": "#"}}, "minProperties": 1, "maxProperties": 2},
    {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "not": {"required": ["c"]}},
    {"type": "object", "propertyNames": {"maxLength": 3}, "dependentRequired": {"a": ["b"]}},
]


@pytest.mark.parametrize("schema", AGREEMENT_SCHEMAS)
@given(
    instance=st.dictionaries(st.sampled_from(["key", "a", "b", "c", "e", "l", "n", "s", "long"]), json_values)
)
def test_the_fast_validator_agrees_with_the_reference(schema: dict[str, Any], instance: Any) -> None:
    compiled = compile_schema(schema, LIMITS)
    assert compiled._fast is not None
    try:
        reference = compiled._validator.is_valid(instance)
    except ArithmeticError:  # jsonschema cannot take multipleOf of infinity: toolpool refuses the value
        reference = False
    assert compiled.is_valid(instance) == reference


def test_an_infinite_number_against_multiple_of_is_refused_with_a_message_not_an_exception() -> None:
    # Found by the agreement property: jsonschema raises OverflowError for multipleOf on infinity.
    compiled = compile_schema(
        {"type": "object", "properties": {"n": {"type": "number", "multipleOf": 0.5}}}, LIMITS
    )
    assert compiled.problems({"n": 2.5}) == []
    assert compiled.problems({"n": 0.3}) != []
    problems = compiled.problems({"n": float("inf")})
    assert all(isinstance(problem, str) for problem in problems)
