r"""The linear-time engine for untrusted regular expressions (DESIGN.md, R4).

A ``pattern`` or ``patternProperties`` key in a published schema is ECMA-262 text written by
a stranger. Python's ``re`` backtracks: ``^(\w+\s?)*$`` against 31 characters holds the
event loop for a minute. Here every such pattern runs on RE2, whose matching time is linear
in the input, and which cannot compile what would need backtracking (lookaround,
backreferences); such a pattern refuses its schema at vetting, with ``PatternRefused``.

ECMA-262 syntax that RE2 spells differently is rewritten first, so that RE2 reads a pattern
as the fast validator (``jsonschema_rs`` on the Rust ``regex`` crate) does: ``\uXXXX`` and
surrogate pairs, ``\u{X}``, ``\cX``, ``[\b]``, and ``\s`` / ``\S`` with ECMAScript's white
space. Left different: ``\b`` is ASCII in RE2 (as in ECMA-262), Unicode in the Rust crate;
and exotic class syntax (a ``[`` inside a class, POSIX classes).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

__all__ = ["PatternRefused", "compile_pattern", "search", "shown"]

# ECMA-262 WhiteSpace and LineTerminator: what ``\s`` means in a JSON Schema pattern.
_SPACES = (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B))
_SPACES += (0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF)
_MAX_CODE_POINT = 0x10FFFF
# Each RE2 object may use this much for its program and lazy DFA; past it RE2 falls back to
# its (still linear) NFA. RE2's default, 8 MiB, let a DFA-hostile pattern keep 2.8 MiB after
# one match: 1,024 of them would hold 3 GiB. At 2 MiB it is 0.7 MiB, and no slower.
_MAX_MEM = 2 << 20
_CACHED = 256  # compiled patterns kept; a schema repeats its few patterns on every call
# Matching costs up to (program size x text length) steps when a pattern defeats the DFA.
# Real patterns stay far below this (a URL pattern: 2,900; ^.{1,1000}$: 9,000); the ReDoS
# pattern ^(\w+\s?){1000}$ needs 26,000.
MAX_PROGRAM = 16_384
_SHOWN = 48  # characters of a value quoted in a message
# Only fixed text from RE2's error codes is shown: what follows the code quotes the pattern.
_REASONS = {
    "invalid perl operator": "it uses lookaround, an atomic group or another backtracking construct",
    "invalid escape sequence": "it uses an escape the engine lacks, such as a backreference (\\1, \\k<name>)",
    "invalid repetition size": "it repeats something more than 1000 times",
    "bad repetition operator": "it uses a possessive or doubled repetition operator",
    "invalid named capture group": "it has a malformed named group",
    "missing )": "its parentheses do not balance",
    "unexpected )": "its parentheses do not balance",
    "missing ]": "a character class is not closed",
    "invalid character class": "it has a malformed character class",
    "invalid character class range": "it has a malformed character class range",
    "pattern too large - compile failed": "it is too large",
    "pattern too large - reverse compile failed": "it is too large",
}
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_BRACED_HEX = re.compile(r"\{([0-9A-Fa-f]{1,6})\}")
_EMPTY_CLASS = re.compile(r"\[\^?\]")


class PatternRefused(ValueError):
    """The linear-time engine cannot compile a pattern; the message is local text (the
    reason), never the pattern itself."""


def _runs(points: tuple[int, ...]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for point in sorted(points):
        if runs and runs[-1][1] == point - 1:
            runs[-1] = (runs[-1][0], point)
        else:
            runs.append((point, point))
    return runs


def _gaps(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of code points between ``runs``."""
    edges = [(-1, -1), *runs, (_MAX_CODE_POINT + 1, _MAX_CODE_POINT + 1)]
    return [
        (left[1] + 1, right[0] - 1) for left, right in itertools.pairwise(edges) if right[0] > left[1] + 1
    ]


def _class_text(runs: list[tuple[int, int]]) -> str:
    return "".join(
        f"\\x{{{start:X}}}-\\x{{{end:X}}}" if end > start else f"\\x{{{start:X}}}" for start, end in runs
    )


_SPACE_CLASS = _class_text(_runs(_SPACES))
_NOT_SPACE_CLASS = _class_text(_gaps(_runs(_SPACES)))


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print the (untrusted) pattern on stderr
    options.max_mem = _MAX_MEM
    return options


_OPTIONS = _options()


@lru_cache(maxsize=_CACHED)
def compile_pattern(pattern: str) -> Any:
    """The RE2 program for an ECMA-262 ``pattern``.

    Raises:
        PatternRefused: the pattern needs backtracking, or is malformed, or too large.
    """
    try:
        program = re2.compile(to_re2(pattern), _OPTIONS)
    except re2.error as exc:
        raise PatternRefused(_reason(exc)) from None
    except UnicodeEncodeError:
        raise PatternRefused("it contains a lone surrogate") from None
    if program.programsize > MAX_PROGRAM:
        raise PatternRefused(f"it compiles to more than {MAX_PROGRAM} steps per character")
    return program


def search(pattern: str, text: object) -> bool | None:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema's unanchored search);
    None when it cannot be decided: the pattern does not compile, or ``text`` is not a
    string or not valid Unicode (a lone surrogate). Callers treat None as a failure."""
    if not isinstance(text, str):
        return None
    try:
        return compile_pattern(pattern).search(text) is not None
    except (PatternRefused, UnicodeEncodeError):
        return None


def shown(value: object) -> str:
    """``value`` quoted for a message, cut: a long value would push the reason out."""
    text = value if isinstance(value, str) else repr(value)
    return repr(text) if len(text) <= _SHOWN else repr(text[:_SHOWN]) + "\u2026"


def _reason(exc: Exception) -> str:
    raw = exc.args[0] if exc.args else b""
    message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code = message.partition(": ")[0]
    return _REASONS.get(code, "it uses syntax the engine does not support")


def to_re2(pattern: str) -> str:
    """``pattern`` (ECMA-262) in RE2's syntax, where the two differ; see the module docstring.

    Raises:
        PatternRefused: an empty class (``[]``, ``[^]``, which RE2 would misread) or a lone
            surrogate escape (UTF-8 text never contains one).
    """
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            piece, index = _escape(pattern, index + 1, in_class)
            out.append(piece)
            continue
        if char == "[" and not in_class:
            if _EMPTY_CLASS.match(pattern, index):
                raise PatternRefused("it has an empty character class")
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(char)
        index += 1
    return "".join(out)


def _escape(pattern: str, at: int, in_class: bool) -> tuple[str, int]:
    """The RE2 text for the escape whose letter is at ``at``, and the index after it."""
    letter = pattern[at]
    if letter == "u":
        return _unicode_escape(pattern, at + 1)
    if letter == "c" and at + 1 < len(pattern) and pattern[at + 1].isascii() and pattern[at + 1].isalpha():
        return f"\\x{{{ord(pattern[at + 1]) % 32:02X}}}", at + 2
    if letter == "b" and in_class:
        return "\\x{08}", at + 1
    if letter in "sS":
        members = _SPACE_CLASS if letter == "s" else _NOT_SPACE_CLASS
        return (members if in_class else f"[{members}]"), at + 1
    return "\\" + letter, at + 1


def _unicode_escape(pattern: str, at: int) -> tuple[str, int]:
    braced = _BRACED_HEX.match(pattern, at)
    if braced is not None:
        return _code_point(int(braced.group(1), 16)), braced.end()
    if not _HEX4.match(pattern, at):
        return "\\u", at  # not an escape RE2 knows: it refuses the pattern, as it should
    unit = int(pattern[at : at + 4], 16)
    low_at = at + 6
    if 0xD800 <= unit < 0xDC00 and pattern[at + 4 : low_at] == "\\u" and _HEX4.match(pattern, low_at):
        low = int(pattern[low_at : low_at + 4], 16)
        if 0xDC00 <= low < 0xE000:
            return _code_point(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)), low_at + 4
    return _code_point(unit), at + 4


def _code_point(point: int) -> str:
    if 0xD800 <= point < 0xE000 or point > _MAX_CODE_POINT:
        raise PatternRefused("it escapes a lone surrogate or a value beyond Unicode")
    return f"\\x{{{point:X}}}"
