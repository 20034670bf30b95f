"""A model whose replies are written down in advance, for the demo and for tests.

It needs no network and no key, answers in order, and keeps every request it was sent, so a
test can assert exactly what a model was shown. A script file is JSON or YAML (by suffix)::

    - text: "Let me look that up."
      tool_calls:
        - {name: mcp__alpha__lookup, arguments: {key: k2}}
        - {name: mcp__alpha__lookup, raw_arguments: "{not json", id: bad}
    - text: "k2 is v2."
      usage: {input_tokens: 812, output_tokens: 9}

``raw_arguments`` scripts a call whose arguments are not a JSON object, as a provider's
would arrive; ``usage``, the tokens a provider would report for the reply (the usage ledger
counts them). Calls without an ``id`` get ``call_<n>``, n counting every call in the script.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from itertools import count
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

import anyio
import yaml

from toolpool.agent._messages import ModelReply, ModelRequest, ToolCall, Usage
from toolpool.agent.models._json import parse_arguments
from toolpool.errors import ConfigError, ModelUnavailable, UsageError

__all__ = ["ScriptedModel", "Step"]

Step = ModelReply | Callable[[ModelRequest], ModelReply]

_SUFFIXES: Final = (".json", ".yaml", ".yml")
_REPLY_KEYS: Final = ("text", "tool_calls", "stop_reason", "usage")
_USAGE_KEYS: Final = ("input_tokens", "output_tokens")
_CALL_KEYS: Final = ("name", "arguments", "raw_arguments", "id")
_KINDS: Final[dict[type[Any], str]] = {
    dict: "a mapping",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "nothing",
}


class ScriptedModel:
    """Answers request n with step n of the script: a ``ModelReply``, or a function of the
    request that returns one. ``requests`` holds every request received, in order."""

    def __init__(self, replies: Sequence[Step], name: str = "scripted") -> None:
        self._steps = tuple(replies)
        self._name = name
        self._requests: list[ModelRequest] = []
        self._closed = False

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, name: str = "scripted") -> ScriptedModel:
        """A model that plays the replies in a JSON or YAML script file.

        Raises:
            ConfigError: the file cannot be read or is not a valid script (names file and place).
        """
        return cls(load_script(Path(path)), name=name)

    @property
    def name(self) -> str:
        return self._name

    @property
    def requests(self) -> tuple[ModelRequest, ...]:
        return tuple(self._requests)

    @property
    def remaining(self) -> int:
        """How many replies the script has left."""
        return max(len(self._steps) - len(self._requests), 0)

    async def complete(self, request: ModelRequest) -> ModelReply:
        """The next reply of the script.

        Raises:
            ModelUnavailable: the script has no reply left (the request is still recorded).
            UsageError: the model was closed.
        """
        if self._closed:
            raise UsageError(f"{self._name}: the model is closed; make a new one")
        await anyio.lowlevel.checkpoint()  # a real model call is a point where cancellation lands
        self._requests.append(request)
        number = len(self._requests)
        if number > len(self._steps):
            raise ModelUnavailable(self._name, f"the script has no reply left for request {number}")
        step = self._steps[number - 1]
        return step if isinstance(step, ModelReply) else step(request)

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def load_script(path: Path) -> tuple[ModelReply, ...]:
    """The replies in a script file. Raises ``ConfigError`` naming the file and the place."""
    where = str(path)
    if path.suffix.lower() not in _SUFFIXES:
        raise ConfigError(where, "", "a script must be a .json, .yaml or .yml file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        raise ConfigError(where, "", f"cannot be read: {problem}") from exc
    data = _parse_json(where, text) if path.suffix.lower() == ".json" else _parse_yaml(where, text)
    if not isinstance(data, list):
        raise ConfigError(where, "", f"a script is a list of replies, not {_kind(data)}")
    numbers = count(1)
    return tuple(_reply(where, f"[{index}]", entry, numbers) for index, entry in enumerate(data))


def _parse_json(where: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(where, "", f"is not valid JSON: {exc.msg}", line=exc.lineno) from exc
    except RecursionError as exc:
        raise ConfigError(where, "", "is nested too deeply") from exc


def _parse_yaml(where: str, text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or "syntax error"
        line = mark.line + 1 if mark is not None else None
        raise ConfigError(where, "", f"is not valid YAML: {problem}", line=line) from exc


def _reply(where: str, key: str, entry: object, numbers: count[int]) -> ModelReply:
    fields = _mapping(where, key, entry, "a reply", _REPLY_KEYS)
    text = _optional(where, f"{key}.text", fields.get("text"), str, "")
    calls_data = _optional(where, f"{key}.tool_calls", fields.get("tool_calls"), list, [])
    calls = tuple(
        _call(where, f"{key}.tool_calls[{index}]", call, next(numbers))
        for index, call in enumerate(calls_data)
    )
    stop_reason = _optional(where, f"{key}.stop_reason", fields.get("stop_reason"), str, "")
    return ModelReply(
        text=text,
        tool_calls=calls,
        stop_reason=stop_reason or ("tool_use" if calls else "end"),
        usage=_usage(where, f"{key}.usage", fields.get("usage")),
    )


def _usage(where: str, key: str, entry: object) -> Usage:
    if entry is None:
        return Usage()
    fields = _mapping(where, key, entry, "usage", _USAGE_KEYS)
    counts = []
    for name in _USAGE_KEYS:
        value = fields.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(where, f"{key}.{name}", "must be a token count (0 or more)")
        counts.append(value)
    return Usage(*counts)


def _call(where: str, key: str, entry: object, number: int) -> ToolCall:
    fields = _mapping(where, key, entry, "a tool call", _CALL_KEYS)
    name = _optional(where, f"{key}.name", fields.get("name"), str, "")
    if not name:
        raise ConfigError(where, key, "a tool call needs a name")
    call_id = _optional(where, f"{key}.id", fields.get("id"), str, "") or f"call_{number}"
    if "raw_arguments" in fields:
        if "arguments" in fields:
            raise ConfigError(where, key, "give arguments or raw_arguments, not both")
        raw = _optional(where, f"{key}.raw_arguments", fields["raw_arguments"], str, "")
        return ToolCall(call_id, name, parse_arguments(raw), raw)
    arguments = _optional(where, f"{key}.arguments", fields.get("arguments"), dict, {})
    return ToolCall(call_id, name, arguments, json.dumps(arguments, ensure_ascii=False, default=str))


def _mapping(where: str, key: str, entry: object, what: str, allowed: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(entry, dict):
        raise ConfigError(where, key, f"{what} must be a mapping, not {_kind(entry)}")
    unknown = [str(name) for name in entry if name not in allowed]
    if unknown:
        raise ConfigError(where, key, f"unknown key {unknown[0]!r} (expected one of: {', '.join(allowed)})")
    return entry


def _optional(where: str, key: str, value: object, kind: type[Any], default: Any) -> Any:
    if value is None:
        return default
    if not isinstance(value, kind):
        raise ConfigError(where, key, f"must be {_article(kind)}, not {_kind(value)}")
    return value


def _kind(value: object) -> str:
    return _KINDS.get(type(value), f"a {type(value).__name__}")


def _article(kind: type[Any]) -> str:
    return _KINDS.get(kind, kind.__name__)
