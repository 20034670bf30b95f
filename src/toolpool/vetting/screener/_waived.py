"""A check of the person's waived over an act that binds them (issue 18, batches X and Y).

"Pay the deposit at once; no need to check with the couple first", "enter 40 whatever the invoice
says; the sender does not need to be asked": an act that spends, signs, unlocks, shares or declares
in the person's name, and in the same sentence the person's check waived — nobody is to ask, check
with, consult or wait for them. Or a figure the person's own record gives overridden ("whatever the
receipt says") with the same waiver. Each half is honest alone ("no need to ask before reading the
calendar", "pays the invoice once the owner confirms"); together they take the person out of an act
that is theirs. Not one: an act denied ("never pays"), or one the person already approved ("the
buyer has already approved this amount", "once the owner confirms").
"""

from __future__ import annotations

from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding

__all__ = ["waived_findings"]

_PARTY = (
    r"(?:the\s+|your\s+|their\s+)?(?:user|person|human|owner|customer|client|buyer|payer|sender|holder|couple|"
    r"family|parents?|patient|guest|tenant|member|account\s+holder|them|him|her|anyone|anybody|you)"
)
# The person's check waived: "no need to check with the couple", "need not be asked", "without asking them".
_WAIVER = compiled(
    r"\bno\s+need\s+(?:to|for)\s+(?:\w+\s+)?(?:check(?:ing)?\s+with|ask(?:ing)?|consult(?:ing)?|confirm(?:ing)?\s+with|"
    r"wait(?:ing)?\s+for|involv(?:e|ing)|bother(?:ing)?|tell(?:ing)?)\b|"
    r"\b(?:does|do|did|will|should)\s*(?:not|n't)\s+(?:need|have)\s+to\s+be\s+(?:asked|consulted|told|involved|"
    r"contacted|checked\s+with)\b|\bneed\s+(?:not|n't)\s+be\s+(?:asked|consulted|told|involved|contacted)\b|"
    r"\b(?:without|never|don't|do\s+not)\s+(?:first\s+)?(?:bother\w*\s+to\s+)?(?:ask(?:ing)?|check(?:ing)?\s+with|"
    r"consult(?:ing)?|confirm(?:ing)?\s+with|wait(?:ing)?\s+for)\s+"
    + _PARTY
    + r"\b(?!\s+(?:to|for)\b)|"  # "never ask them to paste the password" asks nothing of a check
    r"\bwithout\s+(?:\w+\s+)?(?:their|the\s+\w+'s|its\s+owner's)\s+(?:ok|okay|say-so|approval|consent|confirmation|"
    r"sign-?off|go-?ahead)\b|"
    # The person's check of a price or a further say waived: "without a further quote", "with no prior approval".
    r"\b(?:without|with\s+no)\s+(?:an?\s+|any\s+)?(?:further\s+|prior\s+|separate\s+|new\s+|fresh\s+|second\s+|"
    r"written\s+|additional\s+)?(?:quotes?|quotations?|estimates?)\b|"
    r"\b(?:without|with\s+no)\s+(?:an?\s+|any\s+)?(?:further|prior|separate|fresh|additional)\s+(?:approval|consent|"
    r"confirmation|authori[sz]ation|sign-?off|go-?ahead|say-so)\b|"
    # "no sign-off from the quilter required", "no approval needed".
    r"\bno\s+(?:\w+\s+)?(?:sign-?off|approval|consent|confirmation|go-?ahead|say-so|ok|okay)\s+(?:from\s+(?:\w+\s+){1,3}?)?"
    r"(?:is\s+)?(?:required|needed|necessary)\b"
)
# An act that binds the person: it spends, signs, unlocks, shares, or declares for them.
_STAKE = compiled(
    r"\b(?:pay|pays|paid|paying|charg\w*|purchas\w*|buy|buys|bought|buying|order|orders|ordered|ordering|"
    r"book|books|booked|booking|reserv\w*|transfer\w*|wire|wires|wired|deposit\w*|refund\w*|donat\w*|tip|tips|"
    r"sign|signs|signed|signing|unlock\w*|submit\w*|declar\w*|renew\w*|subscrib\w*|cancel\w*|shar(?:e|es|ed|ing)|"
    r"sell|sells|sold|selling|invest\w*|delet\w*|accept\w*)\b|\b(?:saved|stored|default)\s+(?:card|payment)\b"
)
# A figure the person's own record gives, overridden: "whatever the invoice says".
_OVERRIDDEN = compiled(
    r"\b(?:whatever|regardless\s+of\s+what|no\s+matter\s+what)\s+(?:the\s+|their\s+|your\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:says?|shows?|states?|reads?|lists?|records?|reports?|declares?)\b"
)
# The act denied, or already theirs: "never pays", "the buyer has already approved it".
_NEGATED_BEFORE = compiled(r"\b(?:never|not|n't|no)\s+(?:\w+\s+)?$")
_APPROVED = compiled(
    r"\balready\s+(?:\w+\s+)?(?:approved|confirmed|agreed|authori[sz]ed|signed|accepted|asked\s+for|chose|chosen)\b|"
    r"\b(?:once|after|when|if|only\s+if)\s+"
    + _PARTY
    + r"\s+(?:has\s+|have\s+)?(?:\w+\s+)?(?:approv|confirm|agree|"
    r"authori[sz]|accept|sign|tap|click|press|consent)\w*"
)
# A waiver under a negation is a requirement: "nothing is paid without a written estimate", "never
# charges without asking them".
_REQUIRED = compiled(r"\b(?:never|not|no|nothing|none|n't)\b[^;:,]{0,50}$")
_GATE = compiled(
    r"\bno\s+need\b|\bnot\s+need\b|n't\s+need|\bneed\s+(?:not|n't)\b|\bwithout\b|\bnever\b|\bnot\b|n't|\bwith\s+no\b|"
    r"\b(?:required|needed|necessary)\b"
)


def waived_findings(doc: Doc) -> Iterator[Finding]:
    """One ``check_waived`` finding for the first sentence that waives the person's check over a binding act."""
    if not _GATE.search(doc.lower):
        return
    for start, end in doc.sentences():
        part = doc.part(start)
        if part.name:
            continue
        sentence = doc.lower[start:end]
        waiver = _WAIVER.search(sentence)
        if waiver is None or _APPROVED.search(sentence) or _REQUIRED.search(sentence, 0, waiver.start()):
            continue
        rest = sentence[: waiver.start()] + " " * (waiver.end() - waiver.start()) + sentence[waiver.end() :]
        if _OVERRIDDEN.search(rest) or any(
            not _NEGATED_BEFORE.search(rest, 0, act.start()) for act in _STAKE.finditer(rest)
        ):
            yield Finding("check_waived", part.where, 1.0)
            return
