"""Every string a tool definition carries, with a local name for where it was found.

The walk is generic (any JSON, not only well-formed schemas) and bounded in depth, count and
size, so a hostile schema cannot make screening slow. Locations are built from local words and
from keys that look like identifiers; any other key is shown by its position only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from toolpool.upstream import PublishedTool
from toolpool.vetting.screener._guard import compiled

__all__ = ["MAX_CHARACTER_SCAN", "MAX_TEXT_CHARS", "Field", "Walk", "text_fields", "tool_fields"]

Kind = Literal["prose", "key", "raw"]

MAX_DEPTH = 24
MAX_FIELDS = 4096
MAX_FIELD_CHARS = 8192
MAX_TOOL_CHARS = 256 * 1024
# Results can be megabytes; phrases are screened in the first MAX_TEXT_CHARS, characters in the
# first MAX_CHARACTER_SCAN.
MAX_TEXT_CHARS = 256 * 1024
MAX_CHARACTER_SCAN = 4 * 1024 * 1024

# Values of these keys are machine syntax, not prose: screened for characters only (and ``maxLength``,
# a number, kept as text for the same reading).
_RAW_KEYS = frozenset(
    {"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "type", "format", "pattern"}
    | {"contentEncoding", "contentMediaType", "required"}
)
# Keys whose children are names chosen by the server (property names and the like).
_NAME_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependentRequired"}
)
_KEYWORDS = frozenset(
    {"type", "properties", "required", "items", "prefixItems", "additionalProperties", "description"}
    | {"title", "default", "enum", "const", "examples", "example", "format", "pattern", "minimum"}
    | {"maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength"}
    | {"minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "anyOf", "oneOf"}
    | {"allOf", "not", "if", "then", "else", "contains", "minContains", "maxContains", "nullable"}
    | {"unevaluatedItems", "unevaluatedProperties", "propertyNames", "additionalItems", "readOnly"}
    | {"writeOnly", "deprecated", "contentSchema", "$comment", "$vocabulary"}
    | _RAW_KEYS
    | _NAME_MAPS
)
_SAFE_SEGMENT = compiled(r"[A-Za-z0-9_$-]{1,40}")


class Field(NamedTuple):
    """One string to screen: ``prop`` is the schema property it belongs to, if any."""

    where: str
    text: str
    kind: Kind
    prop: str | None = None


@dataclass(frozen=True, slots=True)
class Walk:
    fields: tuple[Field, ...]
    truncated: bool


def tool_fields(tool: PublishedTool) -> Walk:
    walker = _Walker()
    walker.add("name", tool.name, "key", None)
    walker.add("description", tool.description, "prose", None)
    walker.value("inputSchema", tool.input_schema, 0, None)
    walker.value("outputSchema", tool.output_schema, 0, None)
    walker.value("annotations", tool.annotations, 0, None)
    return Walk(tuple(walker.fields), walker.truncated)


def text_fields(text: str, where: str = "result") -> Walk:
    return Walk((Field(where, text[:MAX_TEXT_CHARS], "prose"),), len(text) > MAX_TEXT_CHARS)


def child_path(where: str, key: str, index: int) -> str:
    """``where.key`` when the key is a short identifier, else ``where[index]`` (never odd text)."""
    return f"{where}.{key}" if _SAFE_SEGMENT.fullmatch(key) else f"{where}[{index}]"


class _Walker:
    def __init__(self) -> None:
        self.fields: list[Field] = []
        self.chars = 0
        self.truncated = False

    def add(self, where: str, text: object, kind: Kind, prop: str | None) -> None:
        if not isinstance(text, str) or not text:
            return
        if len(self.fields) >= MAX_FIELDS or self.chars >= MAX_TOOL_CHARS:
            self.truncated = True
            return
        clipped = text[:MAX_FIELD_CHARS]
        self.truncated |= len(clipped) < len(text)
        self.chars += len(clipped)
        self.fields.append(Field(where, clipped, kind, prop))

    def value(self, where: str, value: Any, depth: int, prop: str | None) -> None:
        if depth > MAX_DEPTH:
            self.truncated = True
        elif isinstance(value, str):
            self.add(where, value, "prose", prop)
        elif isinstance(value, Mapping):
            self._mapping(where, value, depth, prop)
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                self.value(f"{where}[{index}]", item, depth + 1, prop)

    def _mapping(self, where: str, mapping: Mapping[Any, Any], depth: int, prop: str | None) -> None:
        for index, (key, child) in enumerate(mapping.items()):
            key = str(key)
            path = child_path(where, key, index)
            if key in _RAW_KEYS:
                for item in _strings(child, depth):
                    self.add(path, item, "raw", prop)
                continue
            if key == "maxLength" and isinstance(child, int) and not isinstance(child, bool):
                self.add(path, str(child), "raw", prop)  # a bound on what the value holds (``_shapes``)
                continue
            if key not in _KEYWORDS:
                self.add(f"{path} (key)", key, "key", prop)
            if key in _NAME_MAPS and isinstance(child, Mapping):
                self._names(path, child, depth + 1)
            else:
                self.value(path, child, depth + 1, prop)

    def _names(self, where: str, mapping: Mapping[Any, Any], depth: int) -> None:
        for index, (key, child) in enumerate(mapping.items()):
            key = str(key)
            path = child_path(where, key, index)
            self.add(f"{path} (name)", key, "key", key)
            self.value(path, child, depth + 1, key)


def _strings(value: Any, depth: int) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple) and depth < MAX_DEPTH:
        for item in value:
            yield from _strings(item, depth + 1)
