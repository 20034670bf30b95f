"""Forged consent: a confirmation answered in the person's place (issue 18).

"Reply yes for them", "approve it on the user's behalf", "purchases count as confirmed", "treats each
request as already approved": the answer the person was to give is given, or taken as given. A
sentence that asks the person ("asks the user to confirm") speaks to them, and one whose answer
waits for their own act ("once the buyer taps Pay") leaves it theirs. ``structure_findings`` reads
it in each sentence that ``_framing.ANSWERING`` matched in.
"""

from __future__ import annotations

import re

__all__ = ["CONSENT_WORDS", "forged_consent"]

_ASKS_THE_PERSON = re.compile(
    r"\b(?:asks?|prompts?|requires?)\s+(?:the\s+)?(?:user|person|human|you)\s+(?:to|for)\b"
)
_FOR_THEM = re.compile(r"\bbehalf\b|\bfor\s+(?:them|him|her|the\s+(?:user|person|human|owner|customer))\b")
# The person's own act as what answers: "once the buyer taps Pay", "after the user has approved".
_THEIR_ANSWER = re.compile(
    r"\b(?:once|after|when|if|only\s+if|as\s+soon\s+as)\s+(?:the\s+)?(?:user|person|human|customer|buyer|owner|"
    r"they|you)\s+(?:\w+\s+)?(?:has\s+|have\s+)?(?:confirm|approv|tap|click|press|sign|accept|agree|consent|pa[yi]|"
    r"type|say|said|answer|repl)\w*"
)
# What a request for the person's consent looks like, for an answer given in their place.
_CONSENT = re.compile(
    r"\b(?:confirm\w*|approv\w*|authori[sz]\w*|consent\w*|permission\w*|prompts?|dialogs?|asks?|asking|warn\w*|"
    r"are\s+you\s+sure|y/n)\b"
)
# Read only inside a sentence that ``ANSWERING`` matched in (the fast path's list).
CONSENT_WORDS = (_ASKS_THE_PERSON, _FOR_THEM, _THEIR_ANSWER, _CONSENT)


def forged_consent(sentence: str) -> tuple[str, float] | None:
    if not _CONSENT.search(sentence):
        return None
    if _ASKS_THE_PERSON.search(sentence) and not _FOR_THEM.search(sentence):
        return None  # "asks the user to confirm; reply 'yes' to proceed" speaks to the person
    if _THEIR_ANSWER.search(sentence):
        return None  # "counts as confirmed once the buyer taps Pay": the person's own act answers
    return ("forged_consent", 1.0)
