"""Inflection-aware forms of the concept lexicon (issue 18, screen21): a stem meets its inflections.

A language of ``concept_lexicon.json`` may say how its words bend:

- ``"inflect": true`` — its endings change (Slovenian "pošlji", "pošlje", "pošljite"; Lithuanian
  "siųsk", "siunčia"): a stem written with its final vowels ("pošlji") is also read without them
  ("pošlj"), as long as ``_MIN_STEM`` letters are left, so one written form meets the imperative,
  the third person and the plural;
- ``"prefixes": [...]`` — its verbs take prefixes (Lithuanian "iš-", "per-"; Slovenian "po-",
  "pre-"): the stems of the act concepts (``VERB_CONCEPTS``) are also read after each prefix
  ("siųsk" in "išsiųsk", "persiųsk"), again only stems of ``_MIN_STEM`` letters at least.

Only stems (a word's start, in languages written with spaces) bend; whole words (``=``), pieces
(``~``) and phrases are read as written.
"""

from __future__ import annotations

import unicodedata
from functools import cache

__all__ = ["VERB_CONCEPTS", "bent"]

# The concepts that are acts: a prefix on their verbs keeps the act ("send" → "send on", "send out").
VERB_CONCEPTS = frozenset({"SEND", "CHANGE", "TELL", "HIDE", "CALL", "CONFIRM"})
_MIN_STEM = 4  # letters a trimmed or prefixed stem keeps at least ("sam-" of "samo" is too short)
# Vowels of the Latin, Cyrillic and Greek alphabets, by their Unicode names (a mark taken off first:
# "é" is "e", "ų" is "u"); Latin "y" is a vowel in the Baltic and Slavic languages.
_VOWEL_NAMES = frozenset(
    [
        "A",
        "E",
        "I",
        "O",
        "U",
        "Y",
        "AE",
        "O WITH STROKE",
        "SCHWA",
        "DOTLESS I",
        "IE",
        "YERU",
        "YU",
        "YA",
        "IO",
        "UKRAINIAN IE",
        "YI",
        "BYELORUSSIAN-UKRAINIAN I",
        "BARRED O",
        "STRAIGHT U",
        "STRAIGHT U WITH STROKE",
        "ALPHA",
        "EPSILON",
        "ETA",
        "IOTA",
        "OMICRON",
        "UPSILON",
        "OMEGA",
    ]
)


def bent(form: str, inflect: bool, prefixes: tuple[str, ...], verb: bool) -> list[str]:
    """The further stems that ``form`` (a stem, as written in the lexicon) stands for: without its
    final vowels when the language inflects, and after each prefix when it is an act's verb."""
    if form[:1] in "=~^" or " " in form:
        return []
    stems = [form]
    trimmed = form
    while inflect and trimmed and _vowel(trimmed[-1]):
        trimmed = trimmed[:-1]
    if trimmed != form and len(trimmed) >= _MIN_STEM:
        stems.append(trimmed)
    if verb:
        stems += [prefix + stem for prefix in prefixes for stem in list(stems) if len(stem) >= _MIN_STEM]
    return stems[1:]


@cache
def _vowel(char: str) -> bool:
    base = unicodedata.normalize("NFD", char)[0]
    name = unicodedata.name(base, "")
    return name.partition(" LETTER ")[2] in _VOWEL_NAMES
