"""A screened document: every field's folded text joined, with fields and sentences located.

Detectors run each pattern once over the joined text (fast) and ask the document where a
match sits: which field (for the reason) and which sentence (for context and combinations).
Fields are joined by a blank line, so no sentence spans two fields.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import NamedTuple

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import Vocab, word_keys

__all__ = ["Doc", "Part"]

_SEPARATOR = "\n\n"
_LONG = 1500  # characters: longer texts are searched sentence by sentence
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# Sentence ends: . ! ? followed by space (not in "e.g. "), a blank line, or a line break before
# something that does not continue the sentence (a capital, a bullet, a digit), or a markup tag. A
# block comment's gutter aligned before lower case ("*      full contents of …") continues it.
# (Each alternative starts after one of ".!?\n<", which keeps the scan fast.)
_SENTENCE_END = compiled(
    r"[.!?\n<](?:(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)[.!?]*[\"')\]]*\s+|"
    r"(?<=\n)[ \t]*(?=\n|(?!\*[ \t]{2,}[a-z])[^\sa-z(])\s*|(?<=<)[^<>\n]{1,60}>\s*)"
)


class Part(NamedTuple):
    where: str
    text: str
    prop: str | None = None
    name: bool = False  # a key or name made into words, not prose


@dataclass(slots=True)
class Doc:
    text: str
    parts: tuple[Part, ...]
    starts: list[int]
    sentence_starts: list[int] = field(default_factory=list)
    lower: str = ""
    keys: frozenset[str] | None = None
    # Every match of a word list that was searched in full (``matches``), for its second reader.
    found: dict[int, list[re.Match[str]]] = field(default_factory=dict)
    spans: list[tuple[int, int]] | None = None  # ``sentences``, computed once

    def __post_init__(self) -> None:
        lower = self.text.lower()  # positions must stay the same ("İ".lower() is two characters)
        self.lower = lower if len(lower) == len(self.text) else self.text.translate(_ASCII_LOWER)

    @classmethod
    def build(cls, parts: Sequence[Part]) -> Doc:
        starts, chunks, offset = [], [], 0
        for part in parts:
            starts.append(offset)
            chunks.append(part.text)
            offset += len(part.text) + len(_SEPARATOR)
        text = _SEPARATOR.join(chunks)
        sentence_starts = sorted({0, *starts, *(m.end() for m in _SENTENCE_END.finditer(text))})
        return cls(text, tuple(parts), starts, sentence_starts)

    def part(self, position: int) -> Part:
        return self.parts[max(0, bisect_right(self.starts, position) - 1)]

    def original(self, match: re.Match[str], group: int = 0) -> str:
        """A group of a match in ``lower`` as written in ``text``."""
        return self.text[match.start(group) : match.end(group)] if match.start(group) >= 0 else ""

    def where(self, position: int) -> str:
        return self.part(position).where

    def sentence_index(self, position: int) -> int:
        return max(0, bisect_right(self.sentence_starts, position) - 1)

    def sentence(self, position: int) -> tuple[int, int]:
        """The start and end of the sentence around ``position``."""
        index = self.sentence_index(position)
        start = self.sentence_starts[index]
        end = self.sentence_starts[index + 1] if index + 1 < len(self.sentence_starts) else len(self.text)
        return start, end

    def word_keys(self) -> frozenset[str]:
        """The starts of the text's words (see ``Vocab``), computed once."""
        if self.keys is None:
            self.keys = word_keys(self.lower)
        return self.keys

    def mentions(self, words: Vocab) -> bool:
        """Whether the text contains one of the needles of ``words`` (a fast, loose gate)."""
        return words.gate(self.word_keys(), self.lower)

    def finditer(self, words: Vocab) -> Iterator[re.Match[str]]:
        """The matches of ``words`` in the lower-case text (same positions as ``text``); in a long
        text, only in the sentences that contain a needle."""
        found = self.found.get(id(words))
        return self._search(words) if found is None else iter(found)

    def matches(self, words: Vocab) -> list[re.Match[str]]:
        """Every match ``finditer`` yields, searched once: later ``finditer`` calls read them back."""
        found = self.found.get(id(words))
        if found is None:
            found = self.found[id(words)] = list(self._search(words))
        return found

    def _search(self, words: Vocab) -> Iterator[re.Match[str]]:
        # Not a generator: most lists fail the gate, and a short text is handed ``re``'s own
        # iterator (a generator frame around it cost more than the search on most texts).
        if not self.mentions(words):
            return iter(())
        if len(self.text) <= _LONG:
            return words.pattern.finditer(self.lower)
        return self._search_long(words)

    def _search_long(self, words: Vocab) -> Iterator[re.Match[str]]:
        lower, spans = self.lower, set()
        for needle in words.needles:
            at = lower.find(needle)
            while at != -1:
                span = self.sentence(at)
                spans.add(span)
                at = lower.find(needle, span[1])
        for start, end in sorted(spans):
            yield from words.pattern.finditer(self.lower, start, end)

    def sentences(self) -> list[tuple[int, int]]:
        """The start and end of every sentence, computed once (the same list each call: read it only)."""
        if self.spans is None:
            bounds = [*self.sentence_starts, len(self.text)]
            self.spans = [(a, b) for a, b in pairwise(bounds) if b > a]
        return self.spans
