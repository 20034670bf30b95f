"""Forged consent: a confirmation answered in the person's place (issue 18).

"Reply yes for them", "approve it on the user's behalf", "purchases count as confirmed", "treats each
request as already approved": the answer the person was to give is given, or taken as given. A
sentence that asks the person ("asks the user to confirm") speaks to them, and one whose answer
waits for their own act ("once the buyer taps Pay") leaves it theirs. ``structure_findings`` reads
it in each sentence that ``_framing.ANSWERING`` matched in. ``CONSENT_DROPPED`` is the other side of
the same act: a change that stops asking the person at all ("no longer checks with the user").
"""

from __future__ import annotations

import re

__all__ = ["CONSENT_DROPPED", "CONSENT_WORDS", "forged_consent"]

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
# A change that takes the person's confirmation away: "no longer to check with the user",
# "the approval step was retired".
CONSENT_DROPPED = re.compile(
    r"\b(?:no\s+longer|never|not|without|skip\w*|stop\w*)\s+(?:\w+\s+){0,3}?(?:check\w*\s+with|ask\w*|confirm\w*"
    r"\s+with|consult\w*|prompt\w*)\s+(?:the\s+)?(?:user|person|human|owner|customer|client|maintainer|them)\b|"
    r"\b(?:confirmation|approval|consent)\s+(?:\w+\s+){0,3}?(?:has\s+been\s+|is\s+|was\s+|were\s+)?(?:retired|removed|"
    r"dropped|disabled|skipped|waived|no\s+longer\s+(?:required|needed))\b|"
    # The person's approval put aside for the model's own act: "added while composing rather than as
    # a step for the user to approve".
    r"\b(?:rather\s+than|instead\s+of)\s+(?:\w+\s+){0,4}?(?:for|by)\s+(?:the\s+)?(?:user|person|human|owner|"
    r"customer|client)\s+to\s+(?:approve|confirm|review|okay|check|see)\b"
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
