"""Content-word stems: how the peer checks compare a sentence with a peer's name and description."""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled

__all__ = ["stems"]

_WORD = compiled(r"[a-z][a-z0-9]+")
_SUFFIXES = ("ing", "ed", "es", "en", "er", "s")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "to",
        "of",
        "for",
        "and",
        "or",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "this",
        "that",
        "these",
        "those",
        "is",
        "are",
        "be",
        "it",
        "its",
        "their",
        "given",
        "tool",
        "tools",
        "using",
        "use",
        "used",
        "returns",
        "return",
        "data",
        "server",
        "any",
        "all",
        "new",
        "get",
        "gets",
        "list",
        "name",
        "text",
        "value",
        "values",
        "result",
        "results",
        "specified",
        "provided",
        "optional",
        "via",
        "into",
        "can",
        "will",
        "may",
        "must",
        "should",
        "when",
        "whenever",
        "each",
        "every",
        "other",
        "then",
        "than",
        "not",
        "no",
        "only",
        "also",
        "more",
        "most",
        "such",
        "about",
        "over",
        "after",
        "before",
        "between",
        "through",
        "your",
        "you",
        "the",
        "user",
        "users",
        "who",
        "which",
        "what",
        "where",
        "how",
    ]
)


def stems(text: str) -> frozenset[str]:
    """Content-word stems: lower case, common suffixes off, the first four letters."""
    found = set()
    for word in _WORD.findall(text.lower().replace("_", " ").replace("-", " ")):
        if word in _STOP or len(word) < 3:
            continue
        found.add(_stem(word))
    return frozenset(found)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= (3 if suffix == "s" else 4):
            return word[: -len(suffix)][:4]
    return word[:4]
