"""Read TOML for the configuration: ``locate_key`` finds a key's line (``tomllib`` keeps no
positions), ``read_toml`` parses with nesting bounded, and ``validated`` checks a table against
a pydantic model, turning its first error into a ``ConfigError`` that names file, line and key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from toolpool.errors import ConfigError

__all__ = ["config_error", "locate_key", "missing_beside_unknown", "read_toml", "validated"]

_Model = TypeVar("_Model", bound=BaseModel)

_HEADER = re.compile(r"^\s*\[\[?\s*(?P<path>[^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY_LINE = re.compile(
    r"""^\s*(?P<key>(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)
_PART = re.compile(r"""\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[A-Za-z0-9_-]+))\s*""")


def locate_key(text: str, key: tuple[str, ...]) -> int | None:
    """Return the 1-based line of ``key`` (or of its deepest found ancestor), or None."""
    best_line: int | None = None
    best_depth = 0
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            table = _split(header.group("path"))
            path = table
        else:
            key_line = _KEY_LINE.match(line)
            if not key_line:
                continue
            path = table + _split(key_line.group("key"))
        depth = _common_prefix(path, key)
        if depth == len(path) and depth > best_depth:
            best_line, best_depth = number, depth
            if depth == len(key):
                return number
    return best_line


def _split(dotted: str) -> tuple[str, ...]:
    parts: list[str] = []
    for match in _PART.finditer(dotted):
        value = match.group("dq") if match.group("dq") is not None else match.group("sq")
        parts.append(value if value is not None else match.group("bare"))
    return tuple(parts)


def _common_prefix(path: tuple[str, ...], key: tuple[str, ...]) -> int:
    depth = 0
    for mine, wanted in zip(path, key, strict=False):
        if mine != wanted:
            break
        depth += 1
    return depth


_MAX_KEY_PARTS = 64
"""A dotted key or table header with more parts than this is refused before parsing (a real
configuration has a handful); so is a line that merely looks like one, inside a string."""
_DOTTED_RUN = re.compile(
    r"""(?:(?:[A-Za-z0-9_-]+|"[^"\\\n]*"|'[^'\n]*')[ \t]*\.[ \t]*)""" + f"{{{_MAX_KEY_PARTS}}}"
)


def read_toml(text: str, source: Path) -> dict[str, Any]:
    """``tomllib.loads``, with nesting bounded: tomllib reads nested values by recursion, and
    dotted keys and table headers in time quadratic in their length."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.count(".") >= _MAX_KEY_PARTS and _DOTTED_RUN.search(line):
            raise ConfigError(
                str(source), "", f"a key is nested deeper than {_MAX_KEY_PARTS} levels", line=number
            )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(source), "", f"not valid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(str(source), "", "values are nested too deeply to read") from None


def validated(text: str, source: Path, prefix: tuple[str, ...], model: type[_Model], data: object) -> _Model:
    if not isinstance(data, dict):
        raise config_error(text, source, prefix, "must be a table")
    try:
        return model.model_validate(_tomlish(data))
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        loc = tuple(str(part) for part in first["loc"] if not _is_union_tag(part))
        if first["type"] == "missing":
            unknown = [error for error in errors if error["type"] == "extra_forbidden"]
            if unknown:  # most likely the required key, misspelled: name both
                stray = tuple(str(part) for part in unknown[0]["loc"] if not _is_union_tag(part))
                raise missing_beside_unknown(text, source, prefix + loc, prefix + stray) from None
        raise config_error(text, source, prefix + loc, _problem(first)) from None


def missing_beside_unknown(
    text: str, source: Path, missing: tuple[str, ...], unknown: tuple[str, ...], why: str = "is required"
) -> ConfigError:
    """A required key is missing and an unknown one stands beside it: a misspelling, said at
    the unknown key's line, naming both."""
    return config_error(text, source, unknown, f"unknown key, and {'.'.join(missing)} {why} (misspelled?)")


def _tomlish(data: dict[str, Any]) -> dict[str, Any]:
    """Strict pydantic wants tuples for tuple fields and Paths for Path fields."""
    converted = dict(data)
    for key in ("cwd", "tls_ca"):
        if isinstance(converted.get(key), str):
            converted[key] = Path(converted[key])
    return converted


def _is_union_tag(part: object) -> bool:
    # pydantic names the union member it tried ("str", "literal[False]", "SecretRef") in `loc`.
    return isinstance(part, str) and (
        part in {"str", "SecretRef", "function-after[_action_is_a_name(), str]"}
        or part.startswith(("literal[", "function-", "constrained-"))
    )


def _problem(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "is required"
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def config_error(text: str, source: Path, key: tuple[str, ...], problem: str) -> ConfigError:
    return ConfigError(str(source), ".".join(key), problem, line=locate_key(text, key))
