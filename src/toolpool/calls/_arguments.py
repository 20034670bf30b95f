"""Gates 4 and 5 on the arguments themselves: the resource a call acts on, and whether the
arguments are small, plain JSON that the tool's schema accepts (bad arguments never leave).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, cast

from toolpool.config import PoolSettings
from toolpool.vetting import ExposedTool

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "argument_problems",
    "ascii_size",
    "encoded",
    "missing_resource_keys",
    "render_resource",
    "sized_argument_problems",
]

MAX_ARGUMENT_DEPTH = 64
"""Arguments nested deeper than this many objects and arrays are ``invalid_arguments``: no tool
needs more, and an SDK server cannot even parse a message about four times as deep."""
_TOO_DEEP = f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
_NOT_UNICODE = "arguments hold a lone surrogate, which is not Unicode text"
_CONTAINERS = (dict, list, tuple)
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
# One encoder for every size check: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# ``_ENCODER``'s C scanner, built once (``encode`` builds it again on every call, half its cost
# for small arguments); without the cycle check, which ``encoded`` leaves to ``_ENCODER``.
_SCAN = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, False)
)


async def argument_problems(tool: ExposedTool, arguments: object, settings: PoolSettings) -> list[str]:
    """Gate 5: local descriptions of what is wrong with ``arguments`` (none: they may go)."""
    problems, _ = await sized_argument_problems(tool, arguments, settings)
    return problems


async def sized_argument_problems(
    tool: ExposedTool, arguments: object, settings: PoolSettings
) -> tuple[list[str], int | None]:
    """``argument_problems``, and the arguments' size as gate 10 records it (``ascii_size``)
    when the one encoding gate 5 makes tells it, else None."""
    if not isinstance(arguments, Mapping):
        return ["arguments must be a JSON object"], None
    # The C encoder first: it sizes the arguments fast and fails fast on the hopeless
    # (too deep to encode, lone surrogates, values JSON has no form for).
    try:
        text = encoded(arguments)
        size = len(text.encode())
    except RecursionError:
        return [_TOO_DEEP], None
    except UnicodeEncodeError:
        return [_NOT_UNICODE], None
    except (TypeError, ValueError):
        return ["arguments must be plain JSON"], None
    limit = tool.policy.max_argument_bytes or settings.max_argument_bytes
    if size > limit:
        return [f"arguments are larger than {limit} bytes"], None
    problem = _not_plain_json(arguments)
    problems = [problem] if problem is not None else await tool.input.check(arguments)
    return problems, ascii_size(text)


def encoded(arguments: Mapping[Any, Any]) -> str:
    """``_ENCODER.encode(arguments)``: the same text, or the same exception."""
    if _SCAN is None or type(arguments) is not dict:
        return _ENCODER.encode(arguments)
    try:
        return "".join(_SCAN(arguments, 0))
    except RecursionError:  # a cycle (no check here) or real depth: the reference tells which
        return _ENCODER.encode(arguments)


def ascii_size(text: str) -> int | None:
    """The length of the JSON text with every non-ASCII character escaped (``ensure_ascii``,
    gate 10's measure), from ``text`` as ``_ENCODER`` wrote it — when that is printable ASCII,
    the two texts are the same; otherwise None (DEL, say, is escaped by one and not the other)."""
    return len(text) if text.isascii() and text.isprintable() else None


def render_resource(template: str, arguments: object) -> str | None:
    """Fill ``{name}`` placeholders from the arguments; None if one is missing."""
    if not isinstance(arguments, Mapping):
        return None
    missing = False

    def fill(match: re.Match[str]) -> str:
        nonlocal missing
        value = arguments.get(match.group(1))
        if value is None:
            missing = True
            return ""
        if isinstance(value, str):
            return value
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):  # no JSON form: gate 5 would refuse it too
            missing = True
            return ""

    rendered = _PLACEHOLDER.sub(fill, template)
    return None if missing else rendered


def missing_resource_keys(template: str, arguments: object) -> tuple[str, ...]:
    """The placeholders of a resource ``template`` that the arguments leave out (or give as
    null): the caller's mistake, unlike a value that cannot be rendered."""
    if not isinstance(arguments, Mapping):
        return ()
    names = dict.fromkeys(match.group(1) for match in _PLACEHOLDER.finditer(template))
    return tuple(name for name in names if arguments.get(name) is None)


def _not_plain_json(arguments: Mapping[Any, Any]) -> str | None:
    """What makes encodable arguments more than JSON can carry: nesting deeper than
    ``MAX_ARGUMENT_DEPTH``, or an object key that is not a string (the encoder would quietly
    turn ``1`` into ``"1"``). Iterative: the depth is the caller's to choose. The encoder took
    the arguments, so every container in them is a dict, a list or a tuple."""
    if type(arguments) is dict and _flat(arguments):
        return None  # one level, string keys: nothing deep, nothing to coerce
    return _walked(arguments)


def _walked(arguments: object) -> str | None:
    """``_not_plain_json`` without its short cut: every container visited."""
    stack: list[tuple[object, int]] = [(arguments, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return _TOO_DEEP
        children: Iterable[object]
        if isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                return "argument object keys must be strings"
            children = value.values()
        else:
            children = cast(list[object], value)
        stack.extend((child, depth + 1) for child in children if isinstance(child, _CONTAINERS))
    return None


def _flat(arguments: dict[Any, Any]) -> bool:
    """Whether every key is a ``str`` and no value is a container (most tools' arguments)."""
    for key, value in arguments.items():
        if type(key) is not str or isinstance(value, _CONTAINERS):
            return False
    return True
