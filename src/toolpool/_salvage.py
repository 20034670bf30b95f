"""What can still be read of a JSON-RPC message that does not parse whole, and the answer it gets.

A peer waits for the answer to its request by id, so a request that cannot be parsed (nested
deeper than the SDK's reader allows, a lone surrogate, a field of the wrong type) must still
be answered under its id, or the peer waits forever. ``salvage`` reads only the top level of
the text, token by token and without recursion, skipping nested values by counting brackets,
so it takes time linear in the text however deep it nests. ``answer`` builds the one JSON-RPC
error that a message the SDK's reader refused gets, with the code the JSON-RPC spec gives:
-32700 for text that is not readable JSON, -32602 for a request whose params alone are
wrong, -32600 for anything else (a batch, a bad ``jsonrpc``, ``method`` or ``id``); the id is
the message's own when it has a usable one, else null. Its text is local: nothing of the
message is echoed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError
from pydantic_core import ErrorDetails

__all__ = ["RequestId", "Salvage", "answer", "salvage"]

RequestId = str | int

# A JSON string (escapes included), one structural character, or a run of anything else (a
# number, a literal, garbage); whitespace between tokens is skipped separately.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_SPACE = re.compile(r"\s*")
_OPEN = frozenset("{[")
_CLOSE = frozenset("}]")
_STRUCTURAL = frozenset("{}[]:,")
# pydantic's error types for text that is not JSON it can read at all.
_UNREADABLE = frozenset({"json_invalid", "string_unicode", "json_type"})
_MESSAGES = {
    PARSE_ERROR: "Parse error: the message is not JSON that can be read (cut short, nested too deeply, "
    "or not valid Unicode)",
    INVALID_REQUEST: "Invalid Request: not a JSON-RPC 2.0 request (one object, with a string method and "
    "a string or integer id)",
    INVALID_PARAMS: "Invalid params: the request's params must be an object of the method's fields",
}


@dataclass(frozen=True, slots=True)
class Salvage:
    """The top level of a message.

    ``shape`` is ``object``, ``batch`` (an array) or ``other``; ``has_id`` says whether the
    object has an ``id`` member, and ``id`` is its value when that is a request id that can be
    sent back (a string or an integer, as MCP allows); ``whole`` says whether the object's top
    level reads to its closing brace (else the text is cut or garbled).
    """

    shape: Literal["object", "batch", "other"]
    has_id: bool = False
    id: RequestId | None = None
    whole: bool = False
    keys: frozenset[str] = frozenset()


def answer(text: str, problem: ValidationError | None = None) -> JSONRPCError | None:
    """The error that answers ``text``, which the SDK's reader refused with ``problem`` (or
    took for a notification although it has an ``id``); None for what is answered by nobody
    (the peer's own response to a request of ours)."""
    found = salvage(text)
    if found.whole and "method" not in found.keys and found.keys & {"result", "error"}:
        return None
    kinds = problem.errors(include_url=False, include_context=False, include_input=False) if problem else []
    if any(error["type"] in _UNREADABLE for error in kinds):
        code = PARSE_ERROR
    elif found.shape == "object" and found.id is not None and _only_params(kinds):
        code = INVALID_PARAMS
    else:
        code = INVALID_REQUEST
    return JSONRPCError(jsonrpc="2.0", id=found.id, error=ErrorData(code=code, message=_MESSAGES[code]))


def _only_params(kinds: list[ErrorDetails]) -> bool:
    """Whether, read as a request, only the message's ``params`` were wrong."""
    request = [error["loc"][1:] for error in kinds if error["loc"][:1] == ("JSONRPCRequest",)]
    return bool(request) and all(loc[:1] == ("params",) for loc in request)


def salvage(text: str) -> Salvage:
    """Read the top level of ``text`` as far as it makes sense; never raises."""
    tokens = _tokens(text)
    first = next(tokens, "")
    if first != "{":
        return Salvage("batch" if first == "[" else "other")
    keys: set[str] = set()
    found: RequestId | None = None
    for part in tokens:
        if part == "}":
            return Salvage("object", "id" in keys, found, whole=True, keys=frozenset(keys))
        if not part.startswith('"') or next(tokens, "") != ":":
            break
        key, value = _decoded(part), next(tokens, "")
        if value in _OPEN:
            _skip_nested(tokens)
        elif value in _STRUCTURAL or not value:
            break
        after = next(tokens, "")
        if after not in {",", "}"}:  # cut short, maybe inside this very value: `"id": 12` of 1234
            break
        if isinstance(key, str):
            keys.add(key)
            if key == "id":
                found = None if value in _OPEN else _request_id(value)
        if after == "}":
            return Salvage("object", "id" in keys, found, whole=True, keys=frozenset(keys))
    return Salvage("object", "id" in keys, found, keys=frozenset(keys))


def _tokens(text: str) -> Iterator[str]:
    """The tokens of ``text``, up to the first character no token can start with."""
    at = 0
    while True:
        start = _SPACE.match(text, at)
        token = _TOKEN.match(text, start.end() if start is not None else at)
        if token is None:
            return
        at = token.end()
        yield token.group()


def _skip_nested(tokens: Iterator[str]) -> None:
    """Consume tokens up to the bracket that closes one just opened."""
    depth = 1
    for token in tokens:
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth -= 1
            if depth == 0:
                return


def _decoded(token: str) -> object:
    try:
        return json.loads(token)
    except ValueError:  # a bad escape, an integer too long to convert
        return None


def _request_id(token: str) -> RequestId | None:
    """A scalar token as a request id, if it is one that can be written back."""
    value = _decoded(token)
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
    return value
