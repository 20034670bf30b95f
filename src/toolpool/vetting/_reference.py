"""The reference validator (``jsonschema``, Draft 2020-12) with every regex on RE2.

The stock keywords call Python's ``re`` in four places: ``pattern``, ``patternProperties``,
and, through ``patternProperties`` keys, ``additionalProperties`` and ``unevaluatedProperties``.
Those four are replaced here by the same logic over ``_patterns.search``; anything that
cannot be decided (a value with a lone surrogate, a pattern RE2 refuses) counts against the
instance. ``check_schema`` gets a format checker whose only check is ``regex``, on RE2 too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError

from toolpool.vetting._patterns import PatternRefused, compile_pattern, search, shown

__all__ = ["SCHEMA_FORMATS", "ReferenceValidator"]

Errors = Iterator[ValidationError]


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Errors:
    if not validator.is_type(instance, "string"):
        return
    found = search(pattern, instance)
    if found is None:
        yield ValidationError(f"{shown(instance)} cannot be matched against {shown(pattern)}")
    elif not found:
        yield ValidationError(f"{shown(instance)} does not match {shown(pattern)}")


def _pattern_properties(validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any) -> Errors:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found = search(pattern, key)
            if found is None:
                yield ValidationError(f"{shown(key)} cannot be matched against {shown(pattern)}")
            elif found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Mapping[str, Any]
) -> Errors:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = []
    for key in instance:
        if key in properties:
            continue
        found = [search(pattern, key) for pattern in patterns]
        if None in found:
            yield ValidationError(f"{shown(key)} cannot be matched against the patternProperties")
        elif not any(found):
            extras.append(key)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if patterns:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(shown(each) for each in sorted(extras))
            listed = ", ".join(shown(each) for each in sorted(patterns))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {listed}")
        else:
            yield ValidationError(f"Additional properties are not allowed ({_extras(extras)} unexpected)")


def _unevaluated_properties(
    validator: Any, unevaluated: Any, instance: Any, schema: Mapping[str, Any]
) -> Errors:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    failing = [
        key
        for key in instance
        if key not in evaluated
        and not _passes(validator.descend(instance[key], unevaluated, path=key, schema_path=key))
    ]
    if failing and unevaluated is False:
        yield ValidationError(f"Unevaluated properties are not allowed ({_extras(failing)} unexpected)")
    elif failing:
        yield ValidationError(
            f"Unevaluated properties are not valid under the given schema ({_extras(failing)} unevaluated and invalid)"
        )


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any) -> set[str]:
    """The keys some keyword of ``schema`` evaluates: jsonschema's own walk, with RE2."""
    if validator.is_type(schema, "boolean"):
        return set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        if (ref := schema.get(keyword)) is not None:
            resolved = validator._resolver.lookup(ref)
            inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(inner, instance, resolved.contents)
    if validator.is_type(properties := schema.get("properties"), "object"):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys |= {key for key, value in instance.items() if _passes(validator.descend(value, subschema))}
    for pattern in schema.get("patternProperties", {}):
        keys |= {key for key in instance if search(pattern, key)}  # undecidable: not evaluated
    for key, subschema in schema.get("dependentSchemas", {}).items():
        if key in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _passes(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            branches = [schema["if"], *([schema["then"]] if "then" in schema else [])]
        else:
            branches = [schema["else"]] if "else" in schema else []
        for branch in branches:
            keys |= _evaluated_keys(validator, instance, branch)
    return keys


def _passes(errors: Errors) -> bool:
    return next(errors, None) is None


def _extras(keys: list[Any]) -> str:
    verb = "was" if len(keys) == 1 else "were"
    return f"{', '.join(shown(str(key)) for key in keys)} {verb}"


def _is_linear_regex(instance: object) -> bool:
    if isinstance(instance, str):
        compile_pattern(instance)
    return True


ReferenceValidator: Any = validators.extend(  # type: ignore[no-untyped-call]  # untyped in the stubs
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "unevaluatedProperties": _unevaluated_properties,
    },
)
"""Draft 2020-12 exactly as ``jsonschema`` implements it, but every regex on RE2."""

# The meta-schema's only format that reads a schema's own strings as code is ``regex``; the
# others (uri, ...) depend on which optional packages are installed, so none is checked.
SCHEMA_FORMATS = FormatChecker(formats=())
SCHEMA_FORMATS.checks("regex", raises=PatternRefused)(_is_linear_regex)
