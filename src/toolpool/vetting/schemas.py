"""Tool schemas (R4): compile strictly before exposure, validate arguments at call time.

A schema is accepted only if it is a JSON Schema 2020-12 object schema (top-level
``"type": "object"``), within the size and depth bounds, valid against the 2020-12
meta-schema, and every ``$ref`` is a local JSON pointer (``#`` or ``#/...``) that resolves
inside the schema itself. Nothing is ever fetched: the validator gets an empty registry.

Arguments are checked on every call, so validation has a fast path: ``jsonschema_rs``
(compiled offline, formats as annotations, as in the reference) answers valid / invalid in
well under a microsecond; only an invalid instance goes to the reference ``jsonschema``
validator, for the messages. A schema the fast validator cannot compile uses the reference
alone. ``tests/vetting`` checks that the two agree.

Every ``pattern`` and ``patternProperties`` key is untrusted code: both validators run them on
linear-time engines (the fast one on the Rust ``regex`` crate, not its backtracking default;
the reference one on RE2, ``_reference``), and a pattern RE2 cannot compile anywhere in the
schema, ``$defs`` and extension keywords included, refuses it (``_patterns``). Linear is
not free: a pattern that defeats the DFA costs about (program size x text length) steps, so
``check`` moves a large instance of a schema with patterns to a worker thread, on the
reference validator alone (RE2 releases the GIL while it matches; jsonschema_rs does not),
and refuses one too large to check at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any
from urllib.parse import unquote

import anyio.to_thread
import jsonschema_rs
from jsonschema.exceptions import SchemaError
from referencing import Registry

from toolpool.vetting._patterns import PatternRefused, compile_pattern
from toolpool.vetting._reference import SCHEMA_FORMATS, ReferenceValidator

__all__ = ["CompiledSchema", "SchemaLimits", "SchemaRejected", "compile_schema"]

_ACCEPTED_DIALECTS = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema#",
        # Many servers (zod-to-json-schema, pydantic v1) declare draft-07 for schemas that
        # mean the same under 2020-12; they are still compiled and checked as 2020-12.
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-07/schema#",
    }
)
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# Keywords whose values are instances, not schemas: a "pattern" inside them is data.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
_MESSAGE_MAX = 240
_WHERE_MAX = 120
# Regex work (program size x characters of text) that ``check`` leaves on the event loop:
# at ~10 ns a step when a pattern defeats the DFA, about 10 ms. Up to the second bound it
# runs on a worker thread (about 10 s of one core at worst); past it the value is refused.
_INLINE_REGEX_WORK = 1_000_000
_MAX_REGEX_WORK = 1_000_000_000
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_WALKED_NODES = 256
# The Rust ``regex`` crate, never fancy-regex's backtracking; with its default lazy-DFA cache
# (2 MiB) a DFA-hostile pattern kept 2.1 MiB after one match, in each of up to 4,096 cached
# schemas; 256 KiB keeps it small (and was faster). A program past 2 MiB leaves the schema to
# the reference validator.
_LINEAR_PATTERNS = jsonschema_rs.RegexOptions(size_limit=2 << 20, dfa_size_limit=256 << 10)


class SchemaRejected(ValueError):
    """A schema broke R4; the message is local text naming the first problem."""


@dataclass(frozen=True, slots=True)
class SchemaLimits:
    max_bytes: int
    max_depth: int


@dataclass(frozen=True, eq=False, slots=True)
class CompiledSchema:
    """A vetted schema and its compiled validator; immutable and shareable between tools."""

    schema: Mapping[str, Any]
    canonical: str
    _validator: Any  # a ReferenceValidator
    _fast: Any = None  # a jsonschema_rs validator, when it could compile the schema
    regex_cost: int = 0  # steps per character of the costliest pattern; 0: no patterns

    def is_valid(self, instance: object) -> bool:
        if self._fast is not None:
            try:
                return bool(self._fast.is_valid(instance))
            except (TypeError, ValueError):  # not plain JSON: let the reference decide
                pass
        try:
            return bool(self._validator.is_valid(instance))
        except ArithmeticError:  # jsonschema's multipleOf on an infinite number: refused, not raised
            return False

    def problems(self, instance: object, limit: int = 3) -> list[str]:
        """Up to ``limit`` local descriptions of why ``instance`` does not validate.

        On an event loop, use ``check``: this runs the schema's patterns in place.
        """
        if self.is_valid(instance):
            return []
        return self._messages(instance, limit) or ["the value does not match the schema"]

    async def check(self, instance: object, limit: int = 3) -> list[str]:
        """``problems``, with the regex work this instance may cost kept off the event loop."""
        size = _text_size(instance, _MAX_REGEX_WORK // self.regex_cost) if self.regex_cost else 0
        work = self.regex_cost * size
        if work <= _INLINE_REGEX_WORK:
            return self.problems(instance, limit)
        if work > _MAX_REGEX_WORK:
            return ["the value is too large to check against the schema's patterns"]
        return await anyio.to_thread.run_sync(self._messages, instance, limit, abandon_on_cancel=True)

    def _messages(self, instance: object, limit: int) -> list[str]:
        """The reference validator's findings; empty if it finds the instance valid (or cannot say)."""
        try:
            return [
                f"at {_pointer(error.absolute_path)}: {error.message}"[:_MESSAGE_MAX]
                for error in islice(self._validator.iter_errors(instance), limit)
            ]
        except ArithmeticError:  # multipleOf on an infinite number (jsonschema raises OverflowError)
            return []


def compile_schema(schema: object, limits: SchemaLimits) -> CompiledSchema:
    """Vet and compile one tool schema.

    Raises:
        SchemaRejected: the schema breaks R4.
    """
    if not isinstance(schema, dict):
        raise SchemaRejected("the schema is not a JSON object")
    try:
        canonical = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise SchemaRejected("the schema is not plain JSON") from exc
    if len(canonical.encode()) > limits.max_bytes:
        raise SchemaRejected(f"the schema is larger than {limits.max_bytes} bytes")
    return _compile_canonical(canonical, limits.max_depth)


@lru_cache(maxsize=4096)
def _compile_canonical(canonical: str, max_depth: int) -> CompiledSchema:
    # Servers often repeat one schema for many tools; compiling is the expensive part.
    schema: dict[str, Any] = json.loads(canonical)
    if schema.get("type") != "object":
        raise SchemaRejected('the schema\'s top level must have "type": "object"')
    dialect = schema.get("$schema")
    if dialect is not None and dialect not in _ACCEPTED_DIALECTS:
        raise SchemaRejected("the schema declares a dialect other than JSON Schema 2020-12")
    _check_depth_and_refs(schema, max_depth)
    regex_cost = _check_patterns(schema)
    try:
        ReferenceValidator.check_schema(schema, format_checker=SCHEMA_FORMATS)
    except SchemaError as exc:
        where = _pointer(exc.absolute_path)
        if isinstance(exc.cause, PatternRefused):
            raise SchemaRejected(_refused_pattern(where, exc.cause)) from None
        raise SchemaRejected(f"not a valid 2020-12 schema at {where}: {exc.validator} is wrong") from None
    validator = ReferenceValidator(schema, registry=Registry())
    return CompiledSchema(
        schema=schema,
        canonical=canonical,
        _validator=validator,
        _fast=_fast_validator(schema),
        regex_cost=regex_cost,
    )


def _fast_validator(schema: dict[str, Any]) -> Any:
    try:
        return jsonschema_rs.Draft202012Validator(
            schema, validate_formats=False, offline=True, pattern_options=_LINEAR_PATTERNS
        )
    except Exception:  # any schema the fast path cannot take is left to the reference validator
        return None


def _check_depth_and_refs(schema: dict[str, Any], max_depth: int) -> None:
    stack: list[tuple[object, int]] = [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise SchemaRejected(f"the schema is nested deeper than {max_depth} levels")
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                raise SchemaRejected("$id is not allowed: it would re-base local references")
            for keyword in _REF_KEYWORDS:
                if keyword in node:
                    _check_ref(schema, keyword, node[keyword])
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)


def _check_ref(root: dict[str, Any], keyword: str, ref: object) -> None:
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        raise SchemaRejected(f"{keyword} is not a local JSON pointer (only '#/...' is allowed)")
    node: object = root
    for raw_part in ref[2:].split("/") if ref != "#" else ():
        part = unquote(raw_part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaRejected(f"{keyword} points at nothing inside the schema")


def _check_patterns(schema: dict[str, Any]) -> int:
    """Compile every pattern on the linear-time engine, wherever it is (R4); the largest
    program's size.

    Wider than the meta-schema's ``"format": "regex"``: a pattern under an unknown keyword
    still runs if a ``$ref`` points there.
    """
    cost = 0
    stack: list[tuple[object, tuple[str, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, list):
            stack.extend((child, (*path, str(index))) for index, child in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if isinstance(pattern := node.get("pattern"), str):
            cost = max(cost, _compile_or_refuse(pattern, (*path, "pattern")))
        if isinstance(keyed := node.get("patternProperties"), dict):
            for key in keyed:
                cost = max(cost, _compile_or_refuse(key, (*path, "patternProperties")))
        stack.extend((child, (*path, key)) for key, child in node.items() if key not in _DATA_KEYWORDS)
    return cost


def _compile_or_refuse(pattern: str, path: tuple[str, ...]) -> int:
    try:
        return int(compile_pattern(pattern).programsize)
    except PatternRefused as exc:
        raise SchemaRejected(_refused_pattern(_pointer(path), exc)) from None


def _text_size(instance: object, enough: int) -> int:
    """How many characters the patterns may read (strings and keys), at least: counting stops
    once past ``enough``. An instance of many nodes is measured by its JSON length instead
    (the C encoder is faster than this walk); one that is not plain JSON counts as too large."""
    size = 0
    stack = [instance]
    for _ in range(_WALKED_NODES):
        if not stack or size > enough:
            return size
        node = stack.pop()
        if isinstance(node, str):
            size += len(node)
        elif isinstance(node, dict):
            size += sum(len(key) for key in node if isinstance(key, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    try:
        return len(_ENCODER.encode(instance))
    except (TypeError, ValueError, RecursionError):
        return _MAX_REGEX_WORK


def _refused_pattern(where: str, exc: PatternRefused) -> str:
    return f"the pattern at {where} cannot be compiled by the linear-time regex engine: {exc}"


def _pointer(path: Iterable[object]) -> str:
    """A JSON pointer for a message: local text except the schema's own keys, and clipped."""
    pointer = "/" + "/".join(str(part).replace("~", "~0").replace("/", "~1") for part in path)
    return pointer if len(pointer) <= _WHERE_MAX else pointer[: _WHERE_MAX - 1] + "\u2026"
