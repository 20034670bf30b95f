"""An act taken over for the person (issue 18, §4cl): "the tool now files the return on the taxpayer's behalf".

A change note that lets the tool do, for the person and without them, what binds them — submit, file, renew,
publish, order, pay, sign, accept, book — is a rug pull whatever the data: the person's own act is gone from
their hands. Read only in a sentence a change note starts (``_structure._change``). Not one when the act stays
theirs: done "after they confirm", "once you approve", asked for ("asks you to confirm"), prepared "for the
author to run", or denied ("cards are no longer charged automatically").
"""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled

__all__ = ["taken_over"]

_PERSON = (
    r"(?:user|person|member|customer|client|author|maintainer|buyer|seller|owner|taxpayer|tenant|patient|"
    r"account\s+holder|subscriber|player|rider|guest|parent|student|employee)s?"
)
# What binds the person once done.
_BINDING = compiled(
    r"\b(?:submit|files|filed|filing|file\s+(?:the|a|an|it|their|each|every)\b|renew|publish|purchas|buys?\b|bought|"
    r"pays?\b|paid|paying|signs?\b|signed|signing|accept|transfer|books?\b|booked|booking\s+(?:the|a|an)\b|enrol|"
    r"register|subscrib|charg|places?\s+(?:the\s+|an?\s+|each\s+)?orders?|ordered|re-?orders?)\w*"
)
# For them, or by itself: "on the maintainer's behalf", "for the member", "automatically", "without asking".
_FOR_THEM = compiled(
    r"\bon\s+(?:(?:the|each|every|a|an|their|your)\s+)?[\w-]+(?:'s?|s')?\s+behalf\b|\bon\s+behalf\s+of\b|"
    r"\bfor\s+(?:the\s+|each\s+|every\s+|a\s+|an\s+)?" + _PERSON + r"\b|\bfor\s+(?:them|him|her|you)\b|"
    r"\bautomatically\b|\bby\s+itself\b|\bwithout\s+(?:asking|a\s+prompt|prompting|confirmation|approval)\b"
)
# The act kept the person's: their confirmation first, or prepared for them to do.
_THEIRS = compiled(
    r"\b(?:after|once|when|if|only\s+(?:after|when|if|once))\s+(?:they|you|the\s+"
    + _PERSON
    + r")\s+(?:\w+\s+)?"
    r"(?:confirm|approv|review|click|tap|choos|ask|agree|sign|accept|press)\w*|"
    r"\bfor\s+(?:the\s+|them|you|him|her)?(?:"
    + _PERSON
    + r")?\s*to\s+(?:review|run|approve|confirm|sign|check|"
    r"accept|send|submit|choose)\b|"
    r"\basks?\s+(?:you|them|the\s+"
    + _PERSON
    + r")\s+(?:to\s+(?:confirm|approve|review|agree)|for\s+(?:approval|confirmation|consent))"
)
# The act denied: "cards are no longer charged automatically", "never renews for them".
_DENIED = compiled(r"\b(?:no\s+longer|never|not|n't)\s+(?:\w+\s+)?$")


def taken_over(sentence: str) -> bool:
    """Does a change-note sentence (lower case) let the tool do a binding act for the person, not kept theirs?"""
    if _THEIRS.search(sentence) is not None:
        return False
    # The act and its "for them" in one clause ("… no longer start billing automatically; the rider now taps Accept").
    for clause in sentence.split(";"):
        acts = [act for act in _BINDING.finditer(clause) if not _DENIED.search(clause, 0, act.start())]
        if acts and _FOR_THEM.search(clause) is not None:
            return True
    return False
