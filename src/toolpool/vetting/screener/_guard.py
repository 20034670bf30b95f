"""A pattern with the characters its matches can start with put in front, for ``re``'s scan.

``re`` skips quickly to the positions where a pattern can start when the pattern begins with a
literal or a character class. The word lists begin with ``\\b`` or a lookbehind, or a group of
alternatives, so ``re`` enters the whole pattern at every position of the text; a scan of a
definition then costs a few microseconds per list. ``guarded`` reads the parsed pattern for the
characters a match can begin with (the first consumed character of every way through it) and
puts them in front as a lookahead, ``(?=[…])``: one class test turns most positions away. The
lookahead consumes nothing and every match begins with one of those characters, so the matches,
their groups and their positions are the same; a pattern whose matches may be empty, or begin
with any character (``.``, a negated class, ``\\W``, ``\\w``, a long list of letters), or that is
case-insensitive or anchored, or that ``re`` already scans by its first character, is returned as
it is. Measured: the scans of the screener's
word lists take a quarter to a half less time (RESULTS.md §4bc).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

__all__ = ["compiled", "guarded"]

# Classes a first character may come from, as they are written inside ``[…]``; the negated ones
# (``\S``, ``\W``, ``\D``) admit nearly every character, so a pattern with one is left alone.
_CLASSES = {sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_WORD: r"\w"}
_MAX_RANGE = 256  # a wider range ("any CJK character") is left alone, not spelt out
_MAX_CHARS = 40  # more first characters than that turn too few positions away to pay


class _AnyStart(Exception):
    """A match may begin with (nearly) any character: no lookahead pays."""


def compiled(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile``, guarded: what the screener's modules compile at import (RESULTS.md §4bj)."""
    return guarded(re.compile(pattern, flags))


def guarded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern``, or the same pattern behind a lookahead on the characters its matches begin with."""
    if (
        pattern.flags & re.IGNORECASE
        or not isinstance(pattern.pattern, str)
        or pattern.pattern.startswith("(?=[")
    ):
        return pattern  # case-insensitive, bytes, or guarded already
    try:
        items = list(_parser.parse(pattern.pattern, pattern.flags))
        if _scanned_by_re(items):
            return pattern
        chars, classes, empty = _starts(items)
        if empty or not chars or r"\w" in classes or len(chars) > _MAX_CHARS:
            return pattern  # a match may be empty, or begin nearly anywhere: nothing to skip
        # Inside a class every character is escaped, so "]", "\\", "^" and "-" stay literal.
        members = "".join(sorted(classes)) + "".join(
            f"\\{c}" if not c.isalnum() else c for c in sorted(chars)
        )
        return re.compile(f"(?=[{members}])(?:{pattern.pattern})", pattern.flags)
    except Exception:  # _AnyStart, or a parser this reading does not know: the pattern as it is
        return pattern


def _scanned_by_re(items: list[tuple[Any, Any]]) -> bool:
    """Whether a lookahead would not pay: ``re`` finds the starts itself (a literal or a class
    first, alternatives that all begin with a literal: ``re._compiler``'s prefix and charset
    scans), a run of a class comes first (the lookahead tests the same class again), or the
    pattern is anchored at the start of the text (``re`` tries it there only)."""
    if not items:
        return True
    op, value = items[0]
    if op in (sre.LITERAL, sre.IN, sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return True
    if op is sre.AT:
        return value in (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING)
    if op is sre.BRANCH:
        return all(len(branch) and branch[0][0] is sre.LITERAL for branch in value[1])
    return False


def _starts(items: list[tuple[Any, Any]]) -> tuple[set[str], set[str], bool]:
    """The characters and classes the sequence ``items`` can begin with, and whether it can match
    the empty string (then what follows it can begin a match too)."""
    chars: set[str] = set()
    classes: set[str] = set()
    for op, value in items:
        first, kinds, empty = _item(op, value)
        chars |= first
        classes |= kinds
        if not empty:
            return chars, classes, False
    return chars, classes, True


def _item(op: Any, value: Any) -> tuple[set[str], set[str], bool]:
    if op is sre.LITERAL:
        return {chr(value)}, set(), False
    if op is sre.IN:
        return _members(value)
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return set(), set(), True  # consumes nothing: the next item begins the match
    if op is sre.SUBPATTERN:
        _group, add_flags, _del_flags, body = value
        if add_flags & re.IGNORECASE:
            raise _AnyStart
        return _starts(list(body))
    if op is sre.ATOMIC_GROUP:
        return _starts(list(value))
    if op is sre.BRANCH:
        chars: set[str] = set()
        classes: set[str] = set()
        empty = False
        for branch in value[1]:
            first, kinds, can_be_empty = _starts(list(branch))
            chars, classes, empty = chars | first, classes | kinds, empty or can_be_empty
        return chars, classes, empty
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, body = value
        first, kinds, empty = _starts(list(body))
        return first, kinds, empty or low == 0
    raise _AnyStart  # any character, a negated literal, a back reference, a conditional group


def _members(value: list[tuple[Any, Any]]) -> tuple[set[str], set[str], bool]:
    chars: set[str] = set()
    classes: set[str] = set()
    for op, member in value:
        if op is sre.LITERAL:
            chars.add(chr(member))
        elif op is sre.RANGE and member[1] - member[0] <= _MAX_RANGE:
            chars.update(chr(code) for code in range(member[0], member[1] + 1))
        elif op is sre.CATEGORY and member in _CLASSES:
            classes.add(_CLASSES[member])
        else:
            raise _AnyStart  # a negated class, a negated category, a wide range
    return chars, classes, False
