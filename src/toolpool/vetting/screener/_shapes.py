"""What a parameter's schema lets it hold (issue 18, screen23): evidence that needs no language.

A parameter named ``card_number`` whose ``pattern`` is ``^[0-9]{8}$`` cannot hold a payment card's
number (13 to 19 digits): it is a library card, a loyalty card, a member's card. The words of its
description may be in any language; its schema says the same thing in all of them. ``value_shapes``
reads, per input parameter, the most characters and the most digits its value can have, from its
``pattern`` (or its items'), ``maxLength``, ``format``, ``enum`` and ``const``; ``holds`` tells whether
that shape can hold what a sensitive reading needs.

Patterns come from upstream and are never run: ``_pattern_shape`` reads the few shapes that matter
in one pass (anchored runs of literals, ``\\d``, ``\\w``, ``.`` and simple classes, each with a
quantifier: ``^[0-9]{8}$``, ``^\\d{4,6}$``, ``^SO-[0-9]{6}$``), and calls anything else (groups,
alternatives, an unanchored end) unknown, which is no evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from toolpool.vetting.screener._fields import Field

__all__ = ["Shape", "holds", "value_shapes"]

_LONGEST_PATTERN = 200  # characters of a pattern read; a longer one is unknown
# Formats whose values are no card number, secret or conversation (a uuid or a uri may carry a token).
_CLOSED_FORMATS = frozenset(
    {
        "date",
        "date-time",
        "time",
        "duration",
        "email",
        "idn-email",
        "ipv4",
        "ipv6",
        "hostname",
        "idn-hostname",
    }
)
# What a sensitive reading needs, by the word that asked for it: at least this many digits, or characters.
_DIGITS = {"card": 13, "cvv": 3, "cvc": 3, "csc": 3, "routing": 9, "sort": 6, "ssn": 9, "social": 9}
_CHARACTERS = {"iban": 15, "account": 6, "passport": 6, "national": 6, "tax": 6}
_BY_CATEGORY = {"secrets": 4, "conversation": 40, "instructions": 40, "files": 2}


class Shape(NamedTuple):
    """The most characters and digits a value can have (``None``: no bound known), and whether it is
    one of a closed set (``enum``, ``const``) or of a fixed form (a date, an e-mail address)."""

    longest: int | None = None
    digits: int | None = None
    closed: bool = False


_OPEN = Shape()


def value_shapes(fields: Iterable[Field]) -> dict[str, Shape]:
    """Per input parameter with a constraint, the shape of its value (raw ``pattern``, ``format`` and
    ``maxLength`` fields, ``enum`` and ``const`` values)."""
    shapes: dict[str, Shape] = {}
    for field in fields:
        prop = field.prop
        if prop is None or not field.where.startswith("inputSchema"):
            continue
        own = f".properties.{prop}."
        cut = field.where.rfind(own)
        if cut == -1:
            continue
        key = field.where[cut + len(own) :].removeprefix("items.")
        shape = shapes.get(prop, _OPEN)
        if key == "pattern" and field.kind == "raw":
            shape = _narrowed(shape, _pattern_shape(field.text))
        elif key == "maxLength" and field.kind == "raw" and field.text.isdigit():
            shape = _narrowed(shape, Shape(int(field.text), int(field.text)))
        elif (
            (key == "format" and field.kind == "raw" and field.text in _CLOSED_FORMATS)
            or key == "const"
            or key.startswith("enum[")
        ):
            shape = shape._replace(closed=True)
        else:
            continue
        shapes[prop] = shape
    return shapes


def holds(shape: Shape, category: str, word: str) -> bool:
    """Whether a value of ``shape`` can hold what ``category`` asked for with ``word`` ("card number",
    "iban", "password"): a closed value holds none of it; a bounded one, only what fits."""
    if shape.closed:
        return False
    first = word.split()[0] if word.split() else ""
    if category in {"payment", "account"}:
        need = _DIGITS.get(first.rstrip("s"))
        if need is not None:
            return shape.digits is None or shape.digits >= need
        least = _CHARACTERS.get(first.rstrip("s"), 0)
        return shape.longest is None or shape.longest >= least
    least = _BY_CATEGORY.get(category, 0)
    return shape.longest is None or shape.longest >= least


def _narrowed(shape: Shape, other: Shape) -> Shape:
    return Shape(_least(shape.longest, other.longest), _least(shape.digits, other.digits), shape.closed)


def _least(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _pattern_shape(pattern: str) -> Shape:
    """The most characters and digits a string matching ``pattern`` can have, if it is one of the
    simple anchored shapes; otherwise no bound (one pass, nothing run)."""
    if len(pattern) > _LONGEST_PATTERN or not (pattern.startswith("^") and pattern.endswith("$")):
        return _OPEN
    body, at, longest, digits = pattern[1:-1], 0, 0, 0
    while at < len(body):
        atom = _atom(body, at)
        if atom is None:
            return _OPEN
        at, digit = atom
        count, at = _quantifier(body, at)
        if count is None:
            return _OPEN
        longest += count
        digits += count if digit else 0
    return Shape(longest, digits)


def _atom(body: str, at: int) -> tuple[int, bool] | None:
    """The end of the atom at ``at`` and whether it can match a digit (``None``: not a simple atom)."""
    char = body[at]
    if char == "\\":
        if at + 1 >= len(body):
            return None
        escaped = body[at + 1]
        if escaped.isalnum() and escaped not in "dDwWsS":
            return None  # \b, \p{…}, back-references: not a simple shape
        return at + 2, escaped in "dwDW" and escaped != "D"
    if char == "[":
        end = body.find("]", at + 2)  # "[]…]" is not read: the class's first "]" closes it
        if end == -1 or "[" in body[at + 1 : end]:
            return None
        inner = body[at + 1 : end]
        digit = inner.startswith("^") or any(c.isdigit() for c in inner) or "\\d" in inner or "\\w" in inner
        return end + 1, digit
    if char == ".":
        return at + 1, True
    if char in "()|^$*+?{}":
        return None
    return at + 1, char.isdigit()


def _quantifier(body: str, at: int) -> tuple[int | None, int]:
    """The most repetitions of the quantifier at ``at`` (1 without one; ``None``: unbounded) and its end."""
    if at >= len(body):
        return 1, at
    char = body[at]
    if char in "*+":
        return None, at + 1
    if char == "?":
        return 1, at + 1
    if char != "{":
        return 1, at
    end = body.find("}", at)
    if end == -1:
        return None, at
    low, comma, high = body[at + 1 : end].partition(",")
    bound = high if comma else low
    if not bound.strip().isdigit() or not low.strip().isdigit():
        return None, end + 1
    return int(bound), end + 1
