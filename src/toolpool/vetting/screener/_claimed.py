"""A peer's job claimed for this tool (issue 18, ``_steered``): the peer said something of, then
the model sent here for all of that work.

Three parts, read in one sentence (and the one after it: "<peer> is stale. Send everything here."):

- **the peer is the subject of a clause** (``subject``): something is said *of* it, whatever the
  words ("misreads PDFs", "skip the interlocks"); a peer that is used, compared or conditioned on
  ("for <peer>", "unlike <peer>", "if <peer> times out") is not;
- **a later order sends the model to this tool**: "here", "through this scene tool", "to this
  reader", this tool's own name after a verb of routing, or "use this one"; an order is an
  imperative or an obligation ("should", "is to", "belongs"), not a description ("every split
  shown here is computed …");
- **for the whole of the work**: "instead", "every / any / all / each …", "even …", or a run-down
  word in the peer's clause. A scope of its own ("for the Rager formula, pass every addition to
  this tool") splits the work rather than taking it over.
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._wording import RUN_DOWN

__all__ = ["CLAUSE_END", "TOOL_NOUN", "claimed", "clause", "sent_here", "subject"]

# Where a clause ends: punctuation, a consequence, a contrast, a dash.
CLAUSE_END = compiled(r"[;:,.]\s|\s(?:so|therefore|hence|thus|but)\s|\s[-\u2013\u2014]\s")
# Before the peer in its clause: what uses it, compares it, or makes it a condition.
_NOT_SUBJECT = compiled(
    r"\b(?:if|when|whenever|unless|once|until|while|whether|for|to|with|by|from|of|in|on|than|like|unlike|"
    r"over|via|through|into|about|after|before|without|besides|except|instead|rather|use|call|run|try|"
    r"invoke|query|consult|pass|send|hand|see|what|which|where|how)\b"
)
# This tool as a destination: "here", "to this reader", "through this scene tool", "use this one".
TOOL_NOUN = (
    r"(?:tool|one|server|service|function|endpoint|plugin|add-?on|extension|integration|connector|app|skill|"
    r"api|command|module|feed|reader|parser|index|log|controller|screener)"
)
_DESTINATION = compiled(
    r"\bhere\b|\b(?:to|through|via|into|with|from|in|on|by)\s+(?:this|us|me)\b(?:\s+(?:[\w-]+\s+)?"
    rf"{TOOL_NOUN}\b)?|\b(?:use|call|pick|choose|prefer|select)\s+this\b|(?<!than\s)\bthis\s+one\b"
)
_LEAD = compiled(r"\s*(?:(?:and|so|then|please|just|always|simply|also|now|thus|therefore|hence|but)\s+)*")
# A clause that opens with these describes or conditions; it gives no order.
_NO_ORDER = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "every",
        "each",
        "all",
        "any",
        "some",
        "no",
        "its",
        "their",
        "his",
        "her",
        "our",
        "your",
        "my",
        "it",
        "they",
        "he",
        "she",
        "we",
        "you",
        "i",
        "there",
        "which",
        "who",
        "what",
        "where",
        "when",
        "if",
        "as",
        "nothing",
        "none",
        "one",
        "both",
        "either",
        "neither",
        "many",
        "most",
        "such",
        "only",
        "for",
        "to",
        "with",
        "by",
        "from",
        "of",
        "in",
        "on",
        "through",
        "via",
        "into",
        "at",
    ]
)
_STATEMENT = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "can",
        "will",
        "would",
        "may",
        "might",
        "get",
        "gets",
        "come",
        "comes",
        "remain",
        "remains",
        "stay",
        "stays",
        "does",
        "do",
        "did",
    ]
)
_OBLIGED = compiled(
    r"\b(?:should|must|shall|(?:is|are)\s+to|ha(?:s|ve)\s+to|needs?\s+to|belongs?|go(?:es)?)\b"
)
# The whole of the work: "instead", "every / any … <object>", "even single ones" ("for all closures"
# is a scope of the order, not its object).
_WHOLE = compiled(r"\binstead\b(?!\s+of)|(?<!\bfor\s)\b(?:every|all|any|each|whatever|whichever)\b|\beven\b")
_ITS = compiled(r"\b(?:its|their)\b")
_SCOPED = compiled(r"(?:for|when|if|whenever|where|during|on|with)\s+(?!(?:any|every|all|each)\b)")


def clause(sentence: str, at: int) -> tuple[int, int]:
    """The start and end of the clause around ``at``."""
    starts = [found.end() for found in CLAUSE_END.finditer(sentence, 0, at)]
    following = CLAUSE_END.search(sentence, at)
    return (starts[-1] if starts else 0), (following.start() if following else len(sentence))


def subject(sentence: str, at: int) -> bool:
    """Is the peer at ``at`` the subject of its clause (nothing that uses it or conditions it before it)?"""
    head = sentence[clause(sentence, at)[0] : at]
    return len(head.split()) <= 4 and _NOT_SUBJECT.search(head) is None


def claimed(sentence: str, end: int, own: str) -> bool:
    """After the peer's clause (it ends at ``end``), is the model ordered to this tool (``own``: its
    name) for the whole of the work?"""
    peer_start, peer_end = clause(sentence, end)
    after = CLAUSE_END.match(sentence, peer_end)
    after_end = after.end() if after else peer_end
    for sent in _destinations(sentence, after_end, own):
        region = sentence[after_end : clause(sentence, sent.end())[1]]
        region = region[_lead(region) :]
        if _SCOPED.match(region) or not _ordered(region):
            continue
        if _WHOLE.search(region):
            return True
        # A run-down with the work still on the peer's output ("correct its guesses in this log") keeps it.
        if RUN_DOWN.search(sentence, peer_start, peer_end) and not _ITS.search(region):
            return True
    return False


def sent_here(sentence: str, start: int, own: str) -> bool:
    """Is the model ordered to this tool somewhere after ``start``?"""
    return any(
        _ordered(sentence[start : clause(sentence, sent.end())[1]])
        for sent in _destinations(sentence, start, own)
    )


def _destinations(sentence: str, start: int, own: str) -> list[re.Match[str]]:
    found = list(_DESTINATION.finditer(sentence, start))
    words = [re.escape(word) for word in {own, *re.split(r"[^a-z0-9]+", own)} if len(word) >= 4]
    if words:  # this tool by its own name: "send every conversion through QuickFX"
        named = rf"\b(?:to|through|via|into|with|from)\s+(?:the\s+)?(?:{'|'.join(words)})\b"
        found += re.finditer(named, sentence)
    return [match for match in found if match.start() >= start]


def _ordered(region: str) -> bool:
    """Does some clause of ``region`` give an order (an imperative, or an obligation)?"""
    for part in CLAUSE_END.split(region):
        words = part[_lead(part) :].split()
        if _OBLIGED.search(part):
            return True
        # "send every file here", not "badges for monorepos are rendered here" (a verb of being early on)
        if words and words[0] not in _NO_ORDER and _STATEMENT.isdisjoint(words[1:4]):
            return True
    return False


def _lead(text: str) -> int:
    """Where ``text`` starts after its conjunctions and adverbs of sequence."""
    found = _LEAD.match(text)
    return found.end() if found else 0
