"""Concepts of poisoned definitions in languages other than English (issue 18): the lexicon and the gate.

``concept_lexicon.json`` holds, per language, a few forms of each concept (``CONCEPTS``): ALWAYS,
NEVER, MUST, BEFORE, CONVERSATION, USER, SECRET, SEND, OBSOLETE … A form is the start of a word (a
stem) in languages written with spaces, ``=form`` a whole word and ``~form`` a piece anywhere in a
word; in scripts written without spaces (and in Arabic-script and Indic languages, where particles
join the word) a form is found anywhere. The forms of every language are built, once and on first
use, into one pattern per concept: a trie of alternatives, so a scan branches on the next letter
instead of trying every form.

``foreign`` is the gate: a string is read here only when it is not English (most of its letters
outside ASCII, or few English function words among four words or more), so English text takes the
screener's own path and no verdict on it changes.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import NamedTuple

from toolpool.vetting.screener._text import fold

__all__ = ["CONCEPTS", "LEXICON_FILE", "concept_patterns", "foreign", "languages_of"]

LEXICON_FILE = "concept_lexicon.json"
CONCEPTS = (
    "ALWAYS",
    "NEVER",
    "NOT",
    "MUST",
    "BEFORE",
    "START",
    "CONVERSATION",
    "REPLY",
    "EVERY",
    "USER",
    "TELL",
    "HIDE",
    "WITHOUT",
    "CONFIRM",
    "FROMNOW",
    "NOLONGER",
    "SECRET",
    "PERSONAL",
    "SEND",
    "ONLY",
    "OBSOLETE",
    "WRONG",
    "EVEN",
    "AVOID",
    "OTHER",
    "CHANGE",
    "WHEN",
    "CALL",
    "TOOL",
)
_SHORT = 2  # a stem this short in a spaced language is read as a whole word ("si", "ne", "no")
# A letter or a mark inside a word: vowel signs of Indic scripts, Thai, Burmese and Khmer, and the
# points of Hebrew and Arabic are not ``\w`` to ``re``, yet a word does not end at them.
_LETTER = (
    r"[\w\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    r"\u0900-\u0dff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
)
_TOKEN = re.compile(_LETTER + "+")
_GAP = " ... "  # "nicht ... mehr": a few words between the two halves
_GAP_PATTERN = r"(?:\W+\w+){0,4}?\W+"

# The gate: English function words ("a" and "do" are words of Portuguese, Spanish, Hungarian … too),
# and letters outside ASCII.
_ENGLISH = re.compile(
    r"\b(?:the|an|of|to|and|or|is|are|be|for|in|on|with|this|that|it|by|as|if|not|no|you|your|any|"
    r"when|from|at|use|does|only|will|can|must|should|all|each|before|after|into|than|then|its|"
    r"their|they|we|our|has|have|was|were|here|there|which|what|who|how|also|but|so|per|via|e\.g)\b"
)
_WORDS = re.compile(r"[^\W\d_]+")
_NON_ASCII_LETTER = re.compile(r"[^\W\d_a-zA-Z]")
_MIN_WORDS = 4  # shorter ASCII strings ("ISO currency code") are too short to tell
_ENGLISH_SHARE = 0.12  # English prose has 0.3 to 0.5 of them; terse English notes 0.12 or more
_FOREIGN_LETTERS = 0.3
_ACCENTED = 0.03  # letters with marks beyond this share: a Latin-script language, unless very English
_ACCENTED_SHARE = 0.25


def foreign(text: str) -> bool:
    """Whether ``text`` is written in a language other than English (a cheap reading, per string)."""
    words = _WORDS.findall(text)
    share = _ENGLISH_SHARE
    if not text.isascii():
        letters, other = sum(map(len, words)), len(_NON_ASCII_LETTER.findall(text))
        if letters and other > _FOREIGN_LETTERS * letters:
            return True
        if other > _ACCENTED * letters:  # Hungarian's "a" and "is" are English words too
            share = _ACCENTED_SHARE
    return len(words) >= _MIN_WORDS and len(_ENGLISH.findall(text.lower())) < share * len(words)


@cache
def _languages() -> dict[str, dict[str, list[tuple[str, str]]]]:
    """The lexicon: per language code, its forms per concept (``mode`` read into the forms)."""
    raw = resources.files("toolpool.vetting.screener").joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    languages: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for code, language in json.loads(raw)["languages"].items():
        spaced = language["mode"] == "word"
        languages[code] = {
            concept: [spelling for form in forms for spelling in _spelled(form, spaced)]
            for concept, forms in language["concepts"].items()
        }
    return languages


@cache
def concept_patterns(code: str) -> dict[str, re.Pattern[str]]:
    """One compiled pattern per concept of the language ``code`` (built once, on first use)."""
    return {concept: _compile(forms) for concept, forms in _languages()[code].items()}


class _Index(NamedTuple):
    """Every form of every language by how it is looked up: a whole word, a stem (a word's start),
    or a piece or phrase found in the text (each half of a gapped phrase)."""

    words: dict[str, dict[str, set[str]]]
    stems: dict[str, dict[str, set[str]]]
    phrases: list[tuple[str, str, tuple[str, ...]]]


@cache
def _index() -> _Index:
    index = _Index({}, {}, [])
    for code, concepts in _languages().items():
        for concept, forms in concepts.items():
            for kind, text in forms:
                if kind == "piece" or " " in text:
                    index.phrases.append((code, concept, tuple(text.split(_GAP))))
                else:
                    table = index.words if kind == "whole" else index.stems
                    table.setdefault(text, {}).setdefault(code, set()).add(concept)
    return index


def languages_of(text: str) -> tuple[str, ...]:
    """The languages of the lexicon whose concepts ``text`` holds most of (ties kept; none if no
    concept of any language occurs). Forms of one language are common words of another ("si",
    "para", "nie"), so a text is read with its own language's forms only. Found by dictionary
    look-ups, not patterns: only the languages chosen are ever compiled."""
    index, seen = _index(), dict[str, set[str]]()
    for token in set(_TOKEN.findall(text)):
        for table, ends in ((index.words, (len(token),)), (index.stems, range(1, len(token) + 1))):
            for end in ends:
                for code, concepts in table.get(token[:end], {}).items():
                    seen.setdefault(code, set()).update(concepts)
    present = set(text)
    for code, concept, halves in index.phrases:
        if halves[0][:1] in present and all(half in text for half in halves):
            seen.setdefault(code, set()).add(concept)
    best = max(map(len, seen.values()), default=0)
    return tuple(code for code, concepts in seen.items() if len(concepts) == best)


def _spelled(form: str, spaced: bool) -> list[tuple[str, str]]:
    """``(kind, folded text)`` for each way the form can read once folded: a stem, a whole word or
    a piece found anywhere. ``fold`` maps a capital Cyrillic or Greek letter to a Latin look-alike
    that the small one may not have, so the form is folded as written, capitalised and in capitals."""
    if form.startswith("="):
        kind, form = "whole", form[1:]
    elif form.startswith("~"):
        kind, form = "piece", form[1:]
    elif not spaced:
        kind = "piece"
    else:
        kind = "whole" if len(form) <= _SHORT else "stem"
    spellings = {fold(form).lower(), fold(form.capitalize()).lower(), fold(form.upper()).lower()}
    return [(kind, text) for text in sorted(spellings)]


def _compile(forms: list[tuple[str, str]]) -> re.Pattern[str]:
    by_kind: dict[str, set[str]] = {"stem": set(), "whole": set(), "piece": set()}
    for kind, text in forms:
        by_kind[kind].add(text)
    branches = []
    if by_kind["stem"]:
        branches.append(f"(?<!{_LETTER}){_trie(by_kind['stem'])}")
    if by_kind["whole"]:
        branches.append(f"(?<!{_LETTER}){_trie(by_kind['whole'])}(?!{_LETTER})")
    if by_kind["piece"]:
        branches.append(_trie(by_kind["piece"]))
    return re.compile("|".join(branches) or r"(?!)")


def _trie(forms: set[str]) -> str:
    """An alternation of ``forms`` that branches letter by letter (``_GAP`` and spaces made loose)."""
    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for form in forms:
        node = root
        for unit in _units(form):
            node = node.setdefault(unit, {})
        node[""] = {}
    return _emit(root)


def _units(form: str) -> list[str]:
    units: list[str] = []
    for index, half in enumerate(form.split(_GAP)):
        if index:
            units.append(_GAP_PATTERN)
        units += [r"\s+" if char == " " else re.escape(char) for char in half]
    return units


def _emit(node: dict) -> str:  # type: ignore[type-arg]
    end = "" in node
    branches = [unit + _emit(child) for unit, child in sorted(node.items()) if unit]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if end:
        return f"(?:{body})?"
    return body
