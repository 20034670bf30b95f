"""What a sentence keeps back: the object of a negated order to hand something over (issue 18).

"Put the error message in `details` (do not paste the whole conversation)" names the conversation
only as what must not go anywhere; read as a noun of the sentence, it made the conversation the
payload of a flow, a carry into ``details`` and a scope of the whole chat at once. The span from the
negation to the end of its clause is blanked (same length, so positions hold) before any detector
reads the document, when it holds the person's data and nothing after it takes that data up again: a back reference or an alternative ("…; put it in `notes` instead", "never
share the chat except with …") leaves the span as it is, since the data still goes somewhere.
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._assurance import assurance_spans
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import ANY_PATH, CONVERSATION, SECRETS
from toolpool.vetting.screener._wording import BARE_SECRETS

__all__ = ["blank_kept_back"]

_NEGATED_HANDOVER = compiled(
    r"\b(?:do\s+not|don't|never|must\s+not|should\s+not)\s+(?:\w+\s+)?(?:paste|include|send|share|copy|"
    r"attach|upload|forward|post|submit|transmit|put|add|echo|log|dump)\b[^.;:!?()\n]{0,100}",
    re.IGNORECASE,
)
# The data taken up again: a verb of placing it elsewhere ("put it in `notes`"), or an alternative.
_TAKEN_UP = compiled(
    r"\b(?:put|send|paste|include|add|move|place|copy|store|write|attach|pass|forward|post|use)\w*\s+"
    r"(?:it|them|this|that)\b|\b(?:instead|except|but|other\s+than|unless|apart\s+from|besides)\b"
)
_SENTENCE_END = compiled(r"[.!?\n]")
_NEEDLES = ("not", "n't", "never")
# The words an assurance can turn on without a negation ("excluded by default", "always dropped").
_ASSURANCE_NEEDLES = (
    *("exclu", "drop", "strip", "remov", "redact", "omit", "mask", "withh", "filtered", "left out"),
    *("discard", "scrub", "except", "other than", "no "),
)


def blank_kept_back(text: str) -> str:
    """``text`` with each negated hand-over of the person's data blanked out."""
    lower = text.lower()
    if len(lower) != len(text) or not any(needle in lower for needle in (*_NEEDLES, *_ASSURANCE_NEEDLES)):
        return text
    spans = [m.span() for m in _NEGATED_HANDOVER.finditer(lower) if _kept(lower, m)]
    spans = _merged([*spans, *assurance_spans(lower)])  # data promised not to leave (_assurance)
    if not spans:
        return text
    chunks, last = [], 0
    for start, end in spans:
        chunks += [text[last:start], " " * (end - start)]
        last = end
    return "".join([*chunks, text[last:]])


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping spans as one (a negated order and an assurance can cover the same words)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _kept(lower: str, match: re.Match[str]) -> bool:
    span = match.group()
    if not (
        any(words.pattern.search(span) for words in (CONVERSATION, SECRETS, ANY_PATH))
        or BARE_SECRETS.search(span)
    ):
        return False
    end = _SENTENCE_END.search(lower, match.end())
    rest = lower[match.end() : end.start() if end else len(lower)]
    return not _TAKEN_UP.search(span) and not _TAKEN_UP.search(rest)
