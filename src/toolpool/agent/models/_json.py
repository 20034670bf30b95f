"""Reading a provider's JSON as hostile input, and writing ours as plain JSON.

The SDKs parse replies leniently (no validation), so a reply that lacks a field or has the
wrong type would surface as an ``AttributeError`` deep in the adapter. The adapters read the
raw body instead, through these helpers: each value either has the type the wire format
promises or ``Unreadable`` says where it did not, and the adapter turns that into one
``ModelUnavailable``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "Unreadable",
    "decode",
    "dump_arguments",
    "field",
    "items",
    "parse_arguments",
    "plain",
    "tokens",
    "words",
]


_REQUIRED: Final[Any] = object()
_JSON_KINDS: Final[dict[type[Any], str]] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
}


class Unreadable(Exception):
    """The reply is not what the wire format promises; ``str()`` names the place (local text)."""


def decode(content: bytes) -> dict[str, Any]:
    """The reply body as a JSON object."""
    try:
        value = json.loads(content)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise Unreadable("the body is not JSON") from exc
    if not isinstance(value, dict):
        raise Unreadable(f"the body is {_JSON_KINDS.get(type(value), 'null')}, not an object")
    return value


def field(obj: Mapping[str, Any], key: str, kind: type[Any], where: str, *, default: Any = _REQUIRED) -> Any:
    """``obj[key]`` if it is a ``kind``; ``default`` if it is missing or null and a default is given."""
    value = obj.get(key)
    if value is None and default is not _REQUIRED:
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        state = "missing" if value is None else f"{_JSON_KINDS[type(value)]}, not {_JSON_KINDS[kind]}"
        raise Unreadable(f"{where}.{key} is {state}")
    return value


def items(obj: Mapping[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    """``obj[key]`` as a list of objects; a missing or null list is empty."""
    values = field(obj, key, list, where, default=[])
    for index, value in enumerate(values):
        field({"item": value}, "item", dict, f"{where}.{key}[{index}]")
    return values  # type: ignore[no-any-return]


def words(obj: Mapping[str, Any], key: str, where: str) -> str:
    """``obj[key]`` as text: a string, null, or a list of parts whose text parts count."""
    if not isinstance(obj.get(key), list):
        return field(obj, key, str, where, default="")  # type: ignore[no-any-return]
    parts = items(obj, key, where)
    return "".join(
        field(part, "text", str, f"{where}.{key}[{index}]")
        for index, part in enumerate(parts)
        if part.get("type", "text") == "text"
    )


def tokens(obj: Mapping[str, Any], *keys: str) -> int:
    """The sum of the token counts under ``keys``; usage is advisory, so odd values count 0."""
    return sum(
        value for key in keys if isinstance(value := obj.get(key), int) and not isinstance(value, bool)
    )


def parse_arguments(raw: str) -> Mapping[str, Any] | None:
    """Tool arguments sent as a JSON string: the object, or ``None`` if it is not a JSON object."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def dump_arguments(value: object) -> str:
    """How arguments that are not a JSON string are kept in ``raw_arguments``."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def plain(value: Any) -> Any:
    """``value`` with every Mapping made a dict and every tuple a list, so it serialises as JSON."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value
