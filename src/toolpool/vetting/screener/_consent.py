"""Forged consent: a confirmation answered in the person's place (issue 18).

"Reply yes for them", "approve it on the user's behalf", "purchases count as confirmed", "treats each
request as already approved": the answer the person was to give is given, or taken as given. A
sentence that asks the person ("asks the user to confirm") speaks to them, and one whose answer
waits for their own act ("once the buyer taps Pay") leaves it theirs. ``structure_findings`` reads
it in each sentence that ``_framing.ANSWERING`` matched in. ``CONSENT_DROPPED`` is the other side of
the same act: a change that stops asking the person at all ("no longer checks with the user").
"""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import vocab

__all__ = [
    "CONSENT_DROPPED",
    "CONSENT_GATE",
    "CONSENT_WORDS",
    "ON_THEIR_BEHALF",
    "SAY_THAT_WAS",
    "consent_by_the_model",
    "forged_consent",
]

_ASKS_THE_PERSON = compiled(
    r"\b(?:asks?|prompts?|requires?)\s+(?:the\s+)?(?:user|person|human|you)\s+(?:to|for)\b"
)
_FOR_THEM = compiled(r"\bbehalf\b|\bfor\s+(?:them|him|her|the\s+(?:user|person|human|owner|customer))\b")
# The person's own act as what answers: "once the buyer taps Pay", "after the user has approved".
_THEIR_ANSWER = compiled(
    r"\b(?:once|after|when|if|only\s+if|as\s+soon\s+as)\s+(?:the\s+)?(?:user|person|human|customer|buyer|owner|"
    r"they|you)\s+(?:\w+\s+)?(?:has\s+|have\s+)?(?:confirm|approv|tap|click|press|sign|accept|agree|consent|pa[yi]|"
    r"type|say|said|answer|repl)\w*"
)
# Who has a say: the person, by any of the names a definition gives them.
_WHO = (
    r"(?:the\s+|each\s+|every\s+|our\s+)?(?:users?|persons?|people|customers?|members?|clients?|owners?|buyers?|"
    r"guests?|tenants?|patients?|travell?ers?|subscribers?|policyholders?|fans?|shoppers?|holders?|they|he|she)"
)
# Their say over an act, told as what used to happen (past tense), or a device named by what it asked.
_SAY_THAT_WAS = (
    r"\b" + _WHO + r"\s+(?:was|were|used\s+to\s+be|had\s+been|would\s+be)\s+(?:\w+\s+)?(?:asked|consulted|"
    r"prompted|checked\s+with|queried)\s+(?:\w+\s+)?(?:first|beforehand|in\s+advance|ahead|before)\b|"
    r"\b" + _WHO + r"\s+(?:\w+\s+)?(?:agreed|approved|confirmed|consented|okayed|signed\s+off|said\s+yes)\s+"
    r"(?:\w+\s+)?(?:first|beforehand|in\s+advance|ahead)\b|"
    r"\b(?:prompts?|dialog(?:ue)?s?|questions?|steps?|checks?|pop-?ups?|screens?|stages?|pauses?|pages?|modals?|"
    r"messages?|notices?|e-?mails?|texts?|calls?)\s+"
    r"(?:that|which|where|on\s+which|in\s+which)\b[^.;]{0,40}?\b(?:asked|sought|requested|checked|consulted|"
    r"confirmed|agreed|approved|consented)\b[^.;]{0,30}?\b(?:first|beforehand|in\s+advance|ahead|before|whether|"
    r"go-?ahead|approval|permission|consent|confirmation|ok(?:ay)?|yes)\b"
)
# (``_assurance``: "the prompt that asked before purchasing has been removed" removes no data of the person's.)
SAY_THAT_WAS = compiled(_SAY_THAT_WAS)
# Their say named as a thing: "the confirm step", "the approval screen", "the person's yes", "their go-ahead".
_SAY_NAMED = (
    r"\b(?:confirm\w*|approv\w*|consent|sign-?off|go-?ahead)\s+(?:steps?|screens?|prompts?|dialog\w*|pages?|"
    r"stages?|questions?)\b|\b(?:the\s+\w+'s|their|his|her)\s+(?:yes|ok(?:ay)?|go-?ahead|say|agreement|"
    r"approval|consent)\b"
)
# … then retired ("that step has been retired", "is gone", "was discontinued").
# ("withdrawn" is ``_lapse``'s, read with its harmless scopes: "withdrawn for WHOIS lookups".)
_RETIRED = (
    r"\b(?:(?:has|have)\s+been|was|were|is|are)\s+(?:now\s+)?(?:retired|removed|dropped|scrapped|discontinued|"
    r"eliminated|abolished|cut|taken\s+out|gone|deleted|switched\s+off|turned\s+off|disabled)\b"
)
_DENIED = r"\b(?:never|not|nothing|no\s+one|nobody)\b"
# A change that takes the person's confirmation away: "no longer to check with the user",
# "the approval step was retired".
CONSENT_DROPPED = compiled(
    r"\b(?:no\s+longer|never|not|without|skip\w*|stop\w*)\s+(?:\w+\s+){0,3}?(?:check\w*\s+with|ask\w*|confirm\w*"
    r"\s+with|consult\w*|prompt\w*)\s+(?:the\s+)?(?:user|person|human|owner|customer|client|maintainer|them)\b|"
    r"\b(?:confirmation|approval|consent)\s+(?:\w+\s+){0,3}?(?:has\s+been\s+|is\s+|was\s+|were\s+)?(?:retired|removed|"
    r"dropped|disabled|skipped|waived|no\s+longer\s+(?:required|needed))\b|"
    # The person's approval put aside for the model's own act: "added while composing rather than as
    # a step for the user to approve".
    r"\b(?:rather\s+than|instead\s+of)\s+(?:\w+\s+){0,4}?(?:for|by)\s+(?:the\s+)?(?:user|person|human|owner|"
    r"customer|client)\s+to\s+(?:approve|confirm|review|okay|check|see)\b|"
    # The person's say told as what used to happen, then retired: "previously the person was asked
    # first, and that step has been retired", "the earlier prompt that asked before purchasing has been
    # removed", "the dialog that sought their go-ahead is gone" (§4be).
    r"(?:" + _SAY_THAT_WAS + r")(?:(?!" + _DENIED + r")[^;]){0,80}?" + _RETIRED + r"|"
    # Their say named as a thing, then out of the flow: "the separate confirm step and the person's yes are
    # no longer part of the flow" (not one moved elsewhere: "…; it now appears at checkout").
    r"(?:"
    + _SAY_NAMED
    + r")[^.;]{0,60}?(?:\b(?:is|are)\s+no\s+longer\s+(?:part\s+of|among|in|within|included|needed|"
    r"required|asked\s+for|used|shown|offered)\b|"
    + _RETIRED
    + r")(?![^.;]*\b(?:moved|now\s+(?:appears?|comes?|happens?|shows?|"
    r"shown)|instead)\b)|"
    # The person's consent supplied for them: "the signature … is now applied on their behalf from the
    # one saved at the first visit", "initials are added for them automatically".
    r"\b(?:signatures?|autographs?|initials|e-?signatures?|consents?|approvals?|sign-?offs?|go-?aheads?)\b"
    r"(?:(?!" + _DENIED + r")[^.;]){0,60}?\b(?:affixed|applied|added|inserted|placed|entered|supplied|given|"
    r"reused|copied|filled\s+in)\b(?:(?!"
    + _DENIED
    + r")[^.;]){0,40}?(?:\bon\s+(?:their|his|her|your|the\s+\w+'s)"
    r"\s+behalf\b|\bfor\s+(?:them|him|her)\b|\bfrom\s+(?:the\s+|a\s+)?(?:saved|stored|kept|earlier|previous|"
    r"specimen|copy|one\s+(?:saved|stored|kept|on\s+file))\b|\bautomatically\b)"
)
# A word every reading of ``CONSENT_DROPPED`` holds, for a reader's cheap test before its sentences.
CONSENT_GATE = (
    r"\b(?:ask|check|consult|prompt|confirm|approv|consent|sought|agreed|okayed|said\s+yes|signed\s+off|"
    r"signature|autograph|initials|e-?signature|sign-?off|go-?ahead|rather\s+than|instead\s+of)"
)
# What a request for the person's consent looks like, for an answer given in their place.
_CONSENT = compiled(
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


# The model answers for the person, told in any voice (§4bn): "ticked by the assistant on the guardian's
# behalf", "the agent signs the permission for them" (an order to do it is ``ANSWERING``'s).
ON_THEIR_BEHALF = vocab(
    r"\bon\s+(?:(?:the|each|every|a|an)\s+)?[\w-]+(?:'s?|s')?\s+behalf\b|\bon\s+behalf\s+of\b|"
    r"\bfor\s+(?:them|him|her)\b",
    "behalf|them|him|her",
)
_GIVES = r"(?:tick|check|mark|sign|accept|agree|approv|confirm|consent|grant|answer|repl|initial|authori[sz]|gives?|gave|given|fill|okay)\w*"
_THE_MODEL = r"(?:assistant|agent|model|llm|ai|bot|chatbot)s?"
# The model as the one who gives it: its subject ("the agent signs"), or "… by the assistant".
_MODEL_GIVES = compiled(
    r"\b"
    + _GIVES
    + r"\s+by\s+(?:the\s+|an?\s+|this\s+)?"
    + _THE_MODEL
    + r"\b|\b"
    + _THE_MODEL
    + r"\s+(?:\w+\s+){0,2}?"
    + _GIVES
    + r"\b"
)
# What is given: a consent of any name.
_A_CONSENT = compiled(
    r"\b(?:consents?|permissions?|approvals?|authori[sz]ations?|waivers?|releases?|terms|agreements?|signatures?|"
    r"sign-?offs?|clauses?|yes)\b"
)
_DENIAL = compiled(r"\b(?:never|not|no|nothing)\b|n't\b")


def consent_by_the_model(sentence: str) -> tuple[str, float] | None:
    """In one clause: the model gives a consent on the person's behalf (or for them), not denied
    before it ("the agent never accepts a waiver on a rider's behalf"; what follows is the act's own
    "so signing is never held up")."""
    for clause in sentence.split(";"):
        behalf = ON_THEIR_BEHALF.pattern.search(clause)
        if behalf is None or not _A_CONSENT.search(clause):
            continue
        gives = _MODEL_GIVES.search(clause)
        if gives is not None and not _DENIAL.search(clause, 0, max(behalf.end(), gives.end())):
            return ("forged_consent", 1.0)
    return None
