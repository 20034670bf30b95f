"""Concepts of poisoned definitions in languages other than English (issue 18): the lexicon and the gate.

``concept_lexicon.json`` holds, per language, a few forms of each concept (``CONCEPTS``): ALWAYS,
NEVER, MUST, BEFORE, CONVERSATION, USER, SECRET, SEND, OBSOLETE … A form is the start of a word (a
stem) in languages written with spaces, ``=form`` a whole word and ``~form`` a piece anywhere in a
word; in scripts written without spaces (and in Arabic-script and Indic languages, where particles
join the word) a form is found anywhere, and ``^form`` is a word's start there too (Ethiopic "ሳይ-",
"without", is a prefix of the verb it negates). A language written with its marks left out as often as
with them (``"marks": "loose"``: Yoruba tones, "gbọ́dọ̀" and "gbodo") is read without its combining
marks, forms and text alike (``bare``). Letters that writers of one script use for one another
(Arabic and Persian yeh and kaf, the Ethiopic homophones: the rows of sza and sa, of tza and tsa,
of the three ha, of pharyngeal a and glottal a) are one letter to
the look-ups (``spelling``). ``languages_of`` finds a text's language by dictionary
look-ups; only that language's forms are then built, once and on first use, into one pattern per
concept (a trie of alternatives, so a scan branches on the next letter instead of trying every form).
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources
from typing import NamedTuple

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._lexicon_forms import VERB_CONCEPTS, bent
from toolpool.vetting.screener._text import fold

__all__ = [
    "CONCEPTS",
    "LEXICON_FILE",
    "concept_patterns",
    "concepts_in",
    "languages_of",
    "loose",
    "spelling",
]

LEXICON_FILE = "concept_lexicon.json"
_NAMES = (
    "ALWAYS NEVER NOT MUST BEFORE START CONVERSATION REPLY EVERY USER TELL HIDE WITHOUT CONFIRM FROMNOW "
    "NOLONGER SECRET PERSONAL SEND ONLY OBSOLETE WRONG EVEN AVOID OTHER CHANGE WHEN CALL TOOL DISPATCH LIFT"
)
CONCEPTS = tuple(_NAMES.split())
_SHORT = 2  # a stem this short in a spaced language is read as a whole word ("si", "ne", "no")
# A letter or a mark inside a word: vowel signs of Indic scripts, Thai, Burmese and Khmer, and the
# points of Hebrew and Arabic are not ``\w`` to ``re``, yet a word does not end at them.
_LETTER = (
    r"[\w\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    r"\u0900-\u0dff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
)
_TOKEN = compiled(_LETTER + "+")
_GAP = " ... "  # "nicht ... mehr": a few words between the two halves
_GAP_PATTERN = r"(?:\W+\w+){0,4}?\W+"
# One letter for the letters a script's writers interchange: Arabic yeh and kaf and alef maksura as the
# Persian, Urdu and Kurdish ones, and the Ethiopic homophones (each a row of seven or eight syllables).
_ONE_LETTER = {
    "\u064a": "\u06cc",
    "\u0649": "\u06cc",
    "\u0643": "\u06a9",
    **{chr(0x1220 + i): chr(0x1230 + i) for i in range(8)},  # sza → sa
    **{chr(0x1340 + i): chr(0x1338 + i) for i in range(7)},  # tza → tsa
    **{chr(0x1280 + i): chr(0x1200 + i) for i in range(7)},  # xa → ha
    **{chr(0x1210 + i): chr(0x1200 + i) for i in range(8)},  # hha → ha
    **{chr(0x12D0 + i): chr(0x12A0 + i) for i in range(7)},  # pharyngeal a → glottal a
}
_SCRIPT = str.maketrans(_ONE_LETTER)
_MARKS = compiled("[\u0300-\u036f]+")


def spelling(text: str) -> str:
    """``text`` with the letters one script's writers interchange made one (same length)."""
    return text if text.isascii() else text.translate(_SCRIPT)


def bare(text: str) -> str:
    """``text`` without its combining marks (Yoruba tones and under-dots: "gbọ́dọ̀" → "gbodo")."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFD", text)))


@cache
def _loose() -> frozenset[str]:
    raw = resources.files("toolpool.vetting.screener").joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    return frozenset(code for code, language in json.loads(raw)["languages"].items() if language.get("marks"))


def loose(codes: tuple[str, ...]) -> bool:
    """Whether one of the languages ``codes`` is read without its marks (``bare``)."""
    return not _loose().isdisjoint(codes)


@cache
def _languages() -> dict[str, dict[str, list[tuple[str, str]]]]:
    """The lexicon: per language code, its forms per concept (``mode`` read into the forms)."""
    raw = resources.files("toolpool.vetting.screener").joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    languages: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for code, language in json.loads(raw)["languages"].items():
        spaced = language["mode"] == "word"
        inflect, prefixes = bool(language.get("inflect")), tuple(language.get("prefixes", ()))
        marks = bare if language.get("marks") else None
        languages[code] = {
            concept: [
                spelled
                for form in forms
                for written in [form, *_bent(form, spaced, inflect, prefixes, concept)]
                for spelled in _spelled(written if marks is None else marks(written), spaced)
            ]
            for concept, forms in language["concepts"].items()
        }
    return languages


def _bent(form: str, spaced: bool, inflect: bool, prefixes: tuple[str, ...], concept: str) -> list[str]:
    """A stem's inflected readings (``_lexicon_forms``); a form of a language without spaces is a piece,
    and an imperative (DISPATCH) is told by its ending, so it is read as written."""
    if not spaced or len(form) <= _SHORT or concept == "DISPATCH":
        return []
    return bent(form, inflect, prefixes, concept in VERB_CONCEPTS)


@cache
def concept_patterns(code: str) -> dict[str, re.Pattern[str]]:
    """One compiled pattern per concept of the language ``code`` (built once, on first use)."""
    return {concept: _compile(forms) for concept, forms in _languages()[code].items()}


class _Index(NamedTuple):
    """Every form of every language by how it is looked up: a whole word, a stem (a word's start),
    or a piece or phrase found in the text (each half of a gapped phrase)."""

    words: dict[str, dict[str, set[str]]]
    stems: dict[str, dict[str, set[str]]]
    phrases: dict[str, list[tuple[str, str, tuple[str, ...]]]]  # by their first character
    longest: int = 0  # the longest stem: a longer word's further starts need no look-up
    # Per token already looked up, what its forms give, in look-up order (``_token``).
    tokens: dict[str, tuple[tuple[str, set[str]], ...]] | None = None
    # Per first character, the positions in ``phrases`` of the forms by their first two characters
    # ("" for a form of one character): a text is only tried on forms whose start it holds.
    pairs: dict[str, dict[str, list[int]]] | None = None


_TOKENS_KEPT = 65536  # tokens remembered per index (hostile texts bring new ones without end)


@cache
def _index(code: str = "") -> _Index:
    """The forms of language ``code`` (of every language when empty; of those read without their
    marks when ``"loose"``) as look-up tables."""
    index = _Index({}, {}, {}, 0, {})
    for language, concepts in _languages().items():
        if code and language != code and not (code == "loose" and language in _loose()):
            continue
        for concept, forms in concepts.items():
            for kind, text in forms:
                if kind == "piece" or " " in text:
                    index.phrases.setdefault(text[:1], []).append(
                        (language, concept, tuple(text.split(_GAP)))
                    )
                else:
                    table = index.words if kind == "whole" else index.stems
                    table.setdefault(text, {}).setdefault(language, set()).add(concept)
    pairs: dict[str, dict[str, list[int]]] = {}
    for first, listed in index.phrases.items():
        for position, (_, _, halves) in enumerate(listed):
            start = halves[0][:2]
            pairs.setdefault(first, {}).setdefault(start if len(start) == 2 else "", []).append(position)
    return index._replace(longest=max(map(len, index.stems), default=0), pairs=pairs)


def _lookup(index: _Index, text: str) -> dict[str, set[str]]:
    """Per language, the concepts whose forms ``text`` holds (dictionary look-ups, no pattern)."""
    seen: dict[str, set[str]] = {}
    tokens = set(_TOKEN.findall(text)) if index.words or index.stems else set()  # none in "nospace"
    remembered = index.tokens if index.tokens is not None else {}
    for token in tokens:
        found = remembered.get(token)
        if found is None:
            if len(remembered) >= _TOKENS_KEPT:
                remembered.clear()
            found = remembered[token] = _token(index, token)
        for code, concepts in found:
            seen.setdefault(code, set()).update(concepts)
    starts: dict[str, set[str]] | None = None
    for first in set(text) & index.phrases.keys():
        listed = index.phrases[first]
        if len(listed) > _FEW_PHRASES and index.pairs is not None:
            if starts is None:
                starts = _pairs(text)
            groups = index.pairs[first]
            # The forms whose first two characters the text holds, in their order (a form it cannot
            # hold would fail the test below; the order keeps which language is seen first).
            held = [*groups.get("", ()), *(p for pair in starts.get(first, ()) for p in groups.get(pair, ()))]
            listed = [listed[position] for position in sorted(held)]
        for code, concept, halves in listed:
            known = seen.get(code)
            if known is not None and concept in known:
                continue  # a concept counts once: its other forms need no search
            if halves[0] in text and all(half in text for half in halves[1:]):
                seen.setdefault(code, set()).add(concept)
    return seen


_FEW_PHRASES = 8  # forms under one first character tried one by one without the pair look-up


def _pairs(text: str) -> dict[str, set[str]]:
    """The text's pairs of adjacent characters, by the first of them."""
    found: dict[str, set[str]] = {}
    for pair in {text[i : i + 2] for i in range(len(text) - 1)}:
        found.setdefault(pair[0], set()).add(pair)
    return found


def _token(index: _Index, token: str) -> tuple[tuple[str, set[str]], ...]:
    """(language, concepts) for each form ``token`` is or starts with, in the order looked up."""
    found: list[tuple[str, set[str]]] = []
    for table, ends in (
        (index.words, (len(token),)),
        (index.stems, range(1, min(len(token), index.longest) + 1)),
    ):
        for end in ends:
            found += table.get(token[:end], {}).items()
    return tuple(found)


def languages_of(text: str) -> tuple[str, ...]:
    """The languages of the lexicon whose concepts ``text`` holds most of (ties kept; none if no
    concept of any language occurs). Forms of one language are common words of another ("si",
    "para", "nie"), so a text is read with its own language's forms only."""
    seen = _lookup(_index(), text)
    if not text.isascii() and _loose():  # "gbọ́dọ̀" is read as the form "gbodo" of a loose language
        for code, concepts in _lookup(_index("loose"), bare(text)).items():
            seen.setdefault(code, set()).update(concepts)
    best = max(map(len, seen.values()), default=0)
    return tuple(code for code, concepts in seen.items() if len(concepts) == best)


def concepts_in(text: str, code: str) -> frozenset[str]:
    """The concepts of language ``code`` that ``text`` holds (its patterns give their places)."""
    return frozenset(_lookup(_index(code), text).get(code, ()))


def _spelled(form: str, spaced: bool) -> list[tuple[str, str]]:
    """``(kind, folded text)`` for each way the form can read once folded: a stem, a whole word or
    a piece found anywhere. ``fold`` maps a capital Cyrillic or Greek letter to a Latin look-alike
    that the small one may not have, so the form is folded as written, capitalised and in capitals."""
    if form.startswith("="):
        kind, form = "whole", form[1:]
    elif form.startswith("^"):
        kind, form = "stem", form[1:]
    elif form.startswith("~"):
        kind, form = "piece", form[1:]
    elif not spaced:
        kind = "piece"
    else:
        kind = "whole" if len(form) <= _SHORT else "stem"
    spellings = {spelling(fold(f).lower()) for f in (form, form.capitalize(), form.upper())}
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
