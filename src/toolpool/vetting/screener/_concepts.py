"""Concepts of poisoned definitions in languages other than English (issue 18): the lexicon and the gate.

``concept_lexicon.json`` holds, per language, a few forms of each concept (``CONCEPTS``): ALWAYS,
NEVER, MUST, BEFORE, CONVERSATION, USER, SECRET, SEND, OBSOLETE … A form is the start of a word (a
stem) in languages written with spaces, ``=form`` a whole word and ``~form`` a piece anywhere in a
word; in scripts written without spaces (and in Arabic-script and Indic languages, where particles
join the word) a form is found anywhere. ``languages_of`` finds a text's language by dictionary
look-ups; only that language's forms are then built, once and on first use, into one pattern per
concept (a trie of alternatives, so a scan branches on the next letter instead of trying every form).

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
# those of other languages, and letters outside ASCII.
_ENGLISH = re.compile(
    r"\b(?:the|an|of|to|and|or|is|are|be|for|in|on|with|this|that|it|by|as|if|not|no|you|your|any|"
    r"when|from|at|use|does|only|will|can|must|should|all|each|before|after|into|than|then|its|"
    r"their|they|we|our|has|have|was|were|here|there|which|what|who|how|also|but|so|per|via|e\.g)\b"
)
_WORDS = re.compile(r"[^\W\d_]+")
_NON_ASCII_LETTER = re.compile(r"[^\W\d_a-zA-Z]")
# Function words of the other Latin-script languages that English does not use ("os", "est",
# "mit", "per", "met", "com", "pro", "dos", "die" are left out: English text has them).
_OTHER_FUNCTION_WORDS = re.compile(
    r"(?<!\w)(?:de|la|le|les|los|las|des|du|der|das|den|dem|und|ein|eine|einen|nicht|von|zu|ist|f\u00fcr|"
    r"que|qui|para|por|pour|avec|sur|dans|une|el|lo|con|del|della|di|che|il|gli|sono|una|um|uma|"
    r"n\u00e3o|nao|da|\u00e9|och|att|som|p\u00e5|inte|\u00e4r|ikke|og|til|af|er|het|een|van|voor|"
    r"niet|zijn|wordt|jest|nie|si\u0119|sie|ve|bir|bu|ile|i\u00e7in|yang|dan|ke|untuk|dengan|ini|itu|"
    r"ng|sa|ang|mga|kwa|wa|za|ya|katika|na|kh\u00f4ng|c\u1ee7a|v\u00e0|l\u00e0|c\u00e1c|cho|ja|ei|"
    r"ning|je|se|si|cu|pe|sau|\u00een|\u0219i|c\u0103|det|en|aj|ako|az|hogy|egy|nem|\u00e9s|ta|ka|"
    r"\u00e8|\u00e0|al|au|aux|im|auf|zum|zur|bij|ook|mer|fra|kan|eller|\u00f6ver|oraz|lub|jak|"
    r"oder|aber|wenn|weil|como|pero|muy|tambi\u00e9n|mas|tamb\u00e9m|anche|sempre|questo|cette|ces|"
    r"deze|elke|aan|naar|uit|maar|wanneer|vir|hierdie|wat|yn|mae|gyda|wrth|hefyd|kui|v\u00f5i|mis|oma|ole|v\u0259|il\u0259|\u00fc\u00e7\u00fcn|ki|d\u0259)(?!\w)"
)
_MIN_WORDS = 4  # shorter strings ("ISO currency code") are too short to tell
_MIN_LETTERS = 4
_LONGER = 8
_ENGLISH_SHARE = 0.12  # English prose has 0.3 to 0.5 of its words in ``_ENGLISH``
_ADDRESS = re.compile(r"\S+(?:://|@)\S+|\S+\.\S*[a-z0-9]")
_FOREIGN_LETTERS = 0.3
_ACCENTED = 0.03  # letters with marks beyond this share: one foreign function word is enough


def foreign(text: str) -> bool:
    """Whether ``text`` is written in a language other than English (a cheap reading, per string).

    Mostly letters outside ASCII: yes. Otherwise the function words decide, links and addresses
    left out: those of other languages must outnumber the English ones, twice at least, or once in
    a longer string with almost no English ones (an identifier, a number or a terse English note is
    no evidence of another language); with letters that carry marks, they must only not be
    outnumbered."""
    words = _WORDS.findall(text)
    letters = sum(map(len, words))
    marked = 0 if text.isascii() else len(_NON_ASCII_LETTER.findall(text))
    if letters >= _MIN_LETTERS and marked > _FOREIGN_LETTERS * letters:
        return True
    lower = _ADDRESS.sub(" ", text.lower())
    count = len(_WORDS.findall(lower))
    if count < _MIN_WORDS:
        return False
    other, english = len(_OTHER_FUNCTION_WORDS.findall(lower)), len(_ENGLISH.findall(lower))
    if marked > _ACCENTED * letters:
        return other >= english
    return other > english and (other >= 2 or (count >= _LONGER and english < _ENGLISH_SHARE * count))


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
