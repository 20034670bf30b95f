"""Finding tools for a query: Okapi BM25 over the tools' names and descriptions.

The query is untrusted model text; the index reads a bounded prefix of it and never raises.
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable

from toolpool.agent._messages import ToolSpec

__all__ = ["DEFAULT_SEARCH_LIMIT", "NAME_WEIGHT", "QUERY_MAX_CHARS", "STOPWORDS", "ToolIndex"]

DEFAULT_SEARCH_LIMIT = 5
# A query is model text: only this much of it is read, however long it is.
QUERY_MAX_CHARS = 500

K1 = 1.2
B = 0.75
NAME_WEIGHT = 2.0
"""A term in a tool's name weighs this many times a term in its description."""

# Dropped from names, descriptions and queries; ``mcp`` starts every local name.
# fmt: off
STOPWORDS = frozenset({
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "for", "from", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "that", "the", "then", "this",
    "to", "was", "what", "when", "which", "will", "with", "you", "your", "mcp",
})
# fmt: on

# Han, kana and hangul are written without spaces: such a run is indexed as overlapping
# character pairs (as Lucene's CJK analyzer does), other runs of letters and digits as words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_HAS_CJK = re.compile(f"[{_CJK}]")
_CJK_OR_NOT = re.compile(f"([{_CJK}]+)|[^{_CJK}]+")
_RUN = re.compile(r"[^\W_]+")  # letters and digits, in any script
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_CACHED_RUN_CHARS = 64  # longer runs are rare and not worth a cache entry


class ToolIndex:
    """BM25 (k1 = 1.2, b = 0.75) over the names and descriptions of a fixed set of tools.

    Text is split into runs of letters and digits (so ``_``, ``-`` and ``.`` separate words),
    runs are split again at camelCase boundaries and lowercased (``getWeather`` gives
    ``getweather``, ``get`` and ``weather``), CJK runs become overlapping character pairs,
    stopwords are dropped (``STOPWORDS``, which holds ``mcp``) and plurals are folded.

    Name and description are two fields, as in BM25F: a term's frequency in each is normalised
    by that field's length (b = 0.75 in both), and the name's counts ``NAME_WEIGHT`` (2) times,
    before Okapi's saturation. Counting name terms twice in one field instead would let a
    4 KB description bury its own tool's name. IDF is ``log(1 + (N - n + 0.5) / (n + 0.5))``,
    which stays positive for a term most tools share.
    """

    __slots__ = ("_postings", "_tools")

    def __init__(self, tools: Iterable[ToolSpec]) -> None:
        """Index ``tools``.

        Raises:
            ValueError: two tools share a name (a model could not tell them apart).
        """
        self._tools = tuple(sorted(tools, key=lambda tool: tool.name))  # as order_tools does
        seen = Counter(tool.name for tool in self._tools)
        repeated = sorted(name for name, count in seen.items() if count > 1)
        if repeated:
            raise ValueError(f"tool names must be unique; repeated: {repeated[:5]!r}")
        names = [Counter(_terms(tool.name)) for tool in self._tools]
        descriptions = [Counter(_terms(tool.description)) for tool in self._tools]
        name_norms, description_norms = _length_norms(names), _length_norms(descriptions)
        weighted: dict[str, list[tuple[int, float]]] = {}
        for doc, (name, description) in enumerate(zip(names, descriptions, strict=True)):
            for term in dict.fromkeys([*description, *name]):
                frequency = (
                    NAME_WEIGHT * name[term] / name_norms[doc] + description[term] / description_norms[doc]
                )
                weighted.setdefault(term, []).append((doc, frequency))
        # What a term adds to a tool's score does not depend on the query: computed once here.
        self._postings: dict[str, tuple[tuple[int, float], ...]] = {}
        for term, found in weighted.items():
            idf = math.log(1 + (len(names) - len(found) + 0.5) / (len(found) + 0.5))
            self._postings[term] = tuple((doc, idf * tf * (K1 + 1) / (tf + K1)) for doc, tf in found)

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """Every indexed tool, sorted by name."""
        return self._tools

    def search(self, query: str, limit: int = DEFAULT_SEARCH_LIMIT) -> tuple[ToolSpec, ...]:
        """At most ``limit`` tools that match ``query``, best first, ties broken by name.

        Only tools sharing a term with the query are returned, so a blank query or one of
        unknown words gives ``()``. Only the first ``QUERY_MAX_CHARS`` characters are read, a
        repeated word counts once, and no query raises: it is untrusted model text.
        """
        if not isinstance(query, str) or limit < 1:
            return ()
        scores: dict[int, float] = {}
        for term in dict.fromkeys(_terms(query[:QUERY_MAX_CHARS])):
            for doc, gain in self._postings.get(term, ()):
                scores[doc] = scores.get(doc, 0.0) + gain
        # Tools are held in name order, so the index breaks ties by name.
        best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
        return tuple(self._tools[doc] for doc, score in best if score > 0)


def _terms(text: str) -> list[str]:
    terms: list[str] = []
    cjk = _HAS_CJK.search(text) is not None
    for run in _RUN.findall(text):
        if cjk and _HAS_CJK.search(run):
            terms += _mixed_terms(run)
        else:
            terms += _run_terms(run) if len(run) <= _CACHED_RUN_CHARS else _split_run(run)
    return terms


def _mixed_terms(run: str) -> list[str]:
    terms: list[str] = []
    for segment in _CJK_OR_NOT.finditer(run):
        part = segment.group()
        if segment.group(1):
            terms += (part[i : i + 2] for i in range(max(1, len(part) - 1)))
        else:
            terms += _split_run(part)
    return terms


def _split_run(run: str) -> tuple[str, ...]:
    """A run's words: the run itself, and its camelCase parts when it has several."""
    lowered = run.lower()
    parts = [lowered] if run == lowered else [part.lower() for part in _CAMEL.split(run)]
    if len(parts) > 1:
        parts.insert(0, lowered)
    return tuple(_singular(part) for part in parts if part not in STOPWORDS)


_run_terms = functools.lru_cache(maxsize=8192)(_split_run)


def _singular(word: str) -> str:
    """Harman's "S" stemmer: ``events`` and ``event`` meet, ``queries`` becomes ``query``."""
    if len(word) < 4:
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def _length_norms(fields: list[Counter[str]]) -> list[float]:
    """BM25's length normalisation of one field: 1 for a field of average length."""
    lengths = [sum(terms.values()) for terms in fields]
    average = sum(lengths) / len(lengths) if lengths else 0.0
    return [1 - B + B * length / average if average else 1.0 for length in lengths]
