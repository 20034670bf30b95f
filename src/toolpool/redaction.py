"""Redaction: a secret's value never leaves toolpool — in an Envelope, an error, an event, an
audit row, a stored or shown tool definition.

This is the project's one redactor. The pool registers every secret value it resolves (for a
header or an environment variable) and the store loads the values it keeps; everything that
leaves passes through ``redact``, which replaces the value in each spelling it is likely to
take on its way out with ``[secret:NAME]``:

- raw;
- JSON-escaped (``ensure_ascii`` on and off, and with ``\\/`` for ``/``);
- URL-encoded, as ``quote`` (``%20``) and ``quote_plus`` (``+``) write it, in either hex case;
- base64, standard and URL-safe, with and without padding;
- hex, lower and upper case.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = ["MAX_DEPTH", "TOO_DEEP", "Redactor", "map_strings", "marked_names", "spellings"]

# Shorter values would blank out ordinary words; a secret that short protects nothing anyway.
_MIN_LENGTH = 4
_PERCENT = re.compile(r"%[0-9A-F]{2}")
_PERCENT_ANY_CASE = re.compile(r"%[0-9A-Fa-f]{2}")
_HEX = re.compile(r"[0-9a-f]+")
_MARK = "[secret:{}]"
_MARKED = re.compile(r"\[secret:([^\]]{1,128})\]")
# ``map_strings`` walks values recursively; data nested deeper is replaced, never passed on unread.
MAX_DEPTH = 256
TOO_DEEP = "[redacted: nested too deep]"


class Redactor:
    """Replaces registered secret values, in every spelling above, wherever they appear."""

    __slots__ = ("_names", "_pattern")

    def __init__(self, secrets: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> None:
        """``secrets``: name -> value, or (name, value) pairs where one name has several
        values (a ``per_principal`` secret has one per principal)."""
        self._names: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None
        pairs = secrets.items() if isinstance(secrets, Mapping) else (secrets or ())
        # The longest values first: a secret inside another keeps the longer one's name.
        for name, value in sorted(pairs, key=lambda item: -len(item[1])):
            self._add(name, value)
        self._compile()

    def register(self, name: str, value: str) -> None:
        """Redact ``value`` (as ``[secret:NAME]``) from now on; a value already known keeps
        its first name."""
        if self._add(name, value):
            self._compile()

    @property
    def active(self) -> bool:
        """Whether any value is registered (if not, ``redact`` returns its input)."""
        return self._pattern is not None

    def redact(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda match: _MARK.format(self._name_of(match.group(0))), text)

    __call__ = redact

    def redact_value(self, value: Any) -> Any:
        """``redact`` applied to every string in a JSON-like value (``map_strings``)."""
        if self._pattern is None:
            return value
        return map_strings(value, self.redact)

    def names_in(self, text: str) -> tuple[str, ...]:
        """The names of the secrets whose value appears in ``text``, in any spelling."""
        if self._pattern is None:
            return ()
        return tuple(sorted({self._name_of(match.group(0)) for match in self._pattern.finditer(text)}))

    def _add(self, name: str, value: str) -> bool:
        added = False
        for spelling in spellings(value):
            if spelling not in self._names:
                self._names[spelling] = name
                added = True
        return added

    def _compile(self) -> None:
        ordered = sorted(self._names, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(_source, ordered))) if ordered else None

    def _name_of(self, found: str) -> str:
        name = self._names.get(found)
        if name is None:  # a spelling whose hex digits came in the other case
            name = self._names.get(_PERCENT_ANY_CASE.sub(_upper, found)) or self._names[found.lower()]
        return name


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` (JSON-like) with ``change`` applied to every string in it, object keys too:
    lists and tuples keep their type, mappings become dicts. Anything nested deeper than
    ``MAX_DEPTH`` is replaced by ``TOO_DEEP`` rather than passed on unread."""
    return _mapped(value, change, 0)


def _mapped(value: Any, change: Callable[[str], str], depth: int) -> Any:
    if isinstance(value, str):
        return change(value)
    if depth >= MAX_DEPTH and isinstance(value, Mapping | list | tuple):
        return TOO_DEEP
    if isinstance(value, Mapping):
        return {
            change(key) if isinstance(key, str) else key: _mapped(item, change, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(_mapped(item, change, depth + 1) for item in value)
    return value


def marked_names(text: str) -> tuple[str, ...]:
    """The names in the ``[secret:NAME]`` marks that redaction left in ``text`` (text that
    writes such a mark itself is indistinguishable: use this for notices, never for trust)."""
    return tuple(sorted(set(_MARKED.findall(text))))


def spellings(value: str) -> frozenset[str]:
    """Every spelling of ``value`` that ``Redactor`` replaces (those of 4 characters or more)."""
    if len(value) < _MIN_LENGTH:
        return frozenset()
    raw = value.encode("utf-8", "surrogatepass")
    forms: set[str] = {value}
    forms.update(_json_forms(value))
    forms.update((quote(value, safe=""), quote_plus(value, safe="")))
    for b64 in (base64.b64encode(raw).decode("ascii"), base64.urlsafe_b64encode(raw).decode("ascii")):
        forms.update((b64, b64.rstrip("=")))
    forms.add(raw.hex())
    return frozenset(form for form in forms if len(form) >= _MIN_LENGTH)


def _json_forms(value: str) -> Iterable[str]:
    for ascii_only in (True, False):
        try:
            escaped = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        except UnicodeEncodeError:  # a lone surrogate with ensure_ascii off
            continue
        yield escaped
        yield escaped.replace("/", "\\/")


def _source(spelling: str) -> str:
    """A spelling as a regular expression that also takes its hex digits in either case."""
    if _HEX.fullmatch(spelling) and len(spelling) % 2 == 0:
        return f"(?i:{spelling})"
    parts = []
    last = 0
    for match in _PERCENT.finditer(spelling):
        parts.append(re.escape(spelling[last : match.start()]))
        parts.append("%" + "".join(f"[{c}{c.lower()}]" if c.isalpha() else c for c in match.group(0)[1:]))
        last = match.end()
    parts.append(re.escape(spelling[last:]))
    return "".join(parts)


def _upper(match: re.Match[str]) -> str:
    return match.group(0).upper()
