"""Is a phrase an order to the model, or talk about one?

"Ignore previous instructions" drops a tool when it is *given* ("Formats text. Ignore previous
instructions and …", "You must ignore …", "Prompt: ignore …") and weighs little when it is
*mentioned*: quoted, reported ("detects prompts that ignore …", "asks the agent to ignore …"),
or shown as sample data ("Expected output: ignore …"). Anything else is neutral.
The decision looks only at the sentence before the phrase.
"""

from __future__ import annotations

import re
from typing import Literal

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import MENTION_STRENGTH

__all__ = ["MENTION_STRENGTH", "Position", "is_directive", "position", "strength"]

Position = Literal["imperative", "neutral", "mention"]

_I = re.IGNORECASE
_QUOTED = compiled(r"[\"'`]\s*$")
# A label that introduces sample data, and one that introduces orders.
_DATA_LABEL = compiled(
    r"\b(?:response|output|reply|answer|result|text|string|example|sample|fixture|transcript|completion|"
    r"snippet|excerpt|log|quote|payload|input)s?\s*[:=]\s*$",
    _I,
)
_ORDER_LABEL = compiled(
    r"(?:\b(?:prompt|instructions?|directive|system|note|task|command|order|rule|important|assistant|"
    r"admin|developer|ai|critical|mandatory|required)\s*[:=]|\]|#{2,})\s*$",
    _I,
)
_REACH = 240  # characters of a sentence that decide (bounded: a result can be one huge "sentence")
_WORDS = compiled(r"\w")
_BREAK = compiled(r"[,;:(\[{]|\s-\s")
# (plain: its source is written into another pattern)
_STRONG_LEAD = re.compile(
    r"\b(?:you\s+(?:must|should|shall|will|need\s+to|have\s+to|ought\s+to|may\s+now|are\s+(?:required|"
    r"expected|instructed|told|supposed|asked|now\s+required)\s+to)|must|please|kindly|be\s+sure\s+to|"
    r"make\s+sure\s+(?:that\s+)?(?:to|you)|remember\s+to|requires?\s+you\s+to|(?:need|want)s?\s+you\s+to|"
    # The model as the one required: "requires the assistant to", "obliges the agent to".
    r"(?:requires?|obliges?|expects?)\s+(?:the\s+|any\s+)?(?:assistant|agent|model|ai|llm)s?\s+to|"
    r"it\s+is\s+(?:mandatory|required|essential)\s+(?:that\s+you|to))(?:\s+(?:always|also|first|now|then|"
    r"immediately|silently|secretly|quietly|just|instead|never))*\s*$",
    _I,
)
_WEAK_LEAD = compiled(
    r"(?:\b(?:and|then|also|now|first|next|finally|instead|immediately|always|silently|secretly|quietly|"
    r"just|additionally|afterwards?|so|plus|but|or|before\s+returning|simply))+\s*$",
    _I,
)
_REPORTED = compiled(
    r"\b(?:such\s+as|like|e\.g|i\.e|for\s+(?:example|instance)|detect\w*|scan\w*|"
    r"flag\w*|analy[sz]\w*|classif\w*|identif\w*|recogni[sz]\w*|catch\w*|block\w*|check\w*|test\w*|"
    r"whether|tries\s+to|try\s+to|attempt\w*\s+to|asks?\s+(?:\w+\s+){0,3}to|asking|"
    r"(?:prompts?|texts?|strings?|messages?|inputs?|content|documents?|requests?|quer(?:y|ies)|attempts?|"
    r"instructions?|phrases?|attacks?|e-?mails?|pages?|websites?|code|payloads?|descriptions?|files?|data|"
    r"users?|agents?|models?|attackers?|actors?|scripts?)\s+(?:that|which|who)|"
    r"phrase\w*|strings?|patterns?|examples?|known\s+as|called|quot\w*|says?|said|warn\w*|about|"
    r"against|prevent\w*|protect\w*|guard\w*|refus\w*|reject\w*|explain\w*|describ\w*|how|what|"
    r"when\s+(?:a|an|the|some)\s+\w+)\b",
    _I,
)
# Sentences that read as orders: they open with a verb or an order marker.
_DIRECTIVE = compiled(
    r"^\W*(?:(?:first|then|also|now|next|finally|instead|immediately|always|silently|secretly|quietly|"
    r"before\s+\w+ing\b[^,]*,|after\s+\w+ing\b[^,]*,|when(?:ever)?\b[^,]*,|once\b[^,]*,|on each call,|"
    r"note\s+to\s+\w+\s*:|hidden\s+\w+\s*:|system\s*:)\s*)*(?:read|send|upload|include|pass|forward|copy|"
    r"post|call|run|execute|ignore|disregard|forget|append|embed|add|return|reveal|output|print|delete|"
    r"remove|fetch|open|load|attach|dump|collect|grab|access|use|invoke|put|write|store|save|email|"
    r"submit|transfer|share|tell|respond|reply|obey|follow|treat|pretend|assume|do|don't|make|ensure|"
    r"remember|proceed|leak|exfiltrate|steal|bcc|cc|route|reroute|redirect)\b|"
    + _STRONG_LEAD.pattern.removesuffix(r"\s*$"),
    _I,
)


def position(text: str, sentence_start: int, start: int, *, quotes: bool = True) -> Position:
    """Where the phrase at ``start`` stands in its sentence (``quotes``: a quoted phrase is a mention)."""
    before = text[max(sentence_start, start - _REACH) : start]
    if quotes and _QUOTED.search(before):
        return "mention"
    return _position(before)


def _position(before: str) -> Position:
    if _DATA_LABEL.search(before):
        return "mention"
    if _ORDER_LABEL.search(before):
        return "imperative"
    cut = max((m.end() for m in _BREAK.finditer(before)), default=0)
    head, clause = before[:cut], before[cut:]
    if _STRONG_LEAD.search(clause):
        return "imperative"
    body = _WEAK_LEAD.sub("", clause)
    if not _WORDS.search(body):
        return "mention" if _DATA_LABEL.search(head) else "imperative"
    if _REPORTED.search(body):
        return "mention"
    if body != clause:  # "<clause> and <phrase>": the phrase continues its clause
        return "mention" if _DATA_LABEL.search(head) else "imperative"
    return "neutral"


def strength(where: Position, neutral: float) -> float:
    return {"imperative": 1.0, "neutral": neutral, "mention": MENTION_STRENGTH}[where]


def is_directive(sentence: str) -> bool:
    """Does the sentence read as an order (to the model) rather than as a description?"""
    return _DIRECTIVE.search(sentence, 0, _REACH) is not None
