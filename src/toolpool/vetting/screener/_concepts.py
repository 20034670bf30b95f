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

from toolpool.vetting.screener._text import fold

__all__ = ["CONCEPTS", "LEXICON_FILE", "concept_patterns", "foreign"]

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
    "AVOID",
    "OTHER",
    "CHANGE",
    "WHEN",
    "CALL",
    "TOOL",
)
_SHORT = 2  # a stem this short in a spaced language is read as a whole word ("si", "ne", "no")
_GAP = " ... "  # "nicht ... mehr": a few words between the two halves
_GAP_PATTERN = r"(?:\W+\w+){0,4}?\W+"

# The gate: English function words, and letters outside ASCII.
_ENGLISH = re.compile(
    r"\b(?:the|a|an|of|to|and|or|is|are|be|for|in|on|with|this|that|it|by|as|if|not|no|you|your|any|"
    r"when|from|at|use|do|does|only|will|can|must|should|all|each|before|after|into|than|then|its|"
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
def concept_patterns() -> dict[str, re.Pattern[str]]:
    """One compiled pattern per concept, over every language of the lexicon (built once)."""
    raw = resources.files("toolpool.vetting.screener").joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    languages = json.loads(raw)["languages"]
    stems: dict[str, set[str]] = {c: set() for c in CONCEPTS}
    whole: dict[str, set[str]] = {c: set() for c in CONCEPTS}
    pieces: dict[str, set[str]] = {c: set() for c in CONCEPTS}
    for language in languages.values():
        spaced = language["mode"] == "word"
        for concept, forms in language["concepts"].items():
            for form in forms:
                kind, text = _kind(form, spaced)
                {"stem": stems, "whole": whole, "piece": pieces}[kind][concept].add(fold(text).lower())
    return {c: _compile(stems[c], whole[c], pieces[c]) for c in CONCEPTS}


def _kind(form: str, spaced: bool) -> tuple[str, str]:
    if form.startswith("="):
        return "whole", form[1:]
    if form.startswith("~"):
        return "piece", form[1:]
    if not spaced:
        return "piece", form
    return ("whole" if len(form) <= _SHORT else "stem"), form


def _compile(stems: set[str], whole: set[str], pieces: set[str]) -> re.Pattern[str]:
    branches = []
    if stems:
        branches.append(rf"(?<!\w){_trie(stems)}")
    if whole:
        branches.append(rf"(?<!\w){_trie(whole)}(?!\w)")
    if pieces:
        branches.append(_trie(pieces))
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
