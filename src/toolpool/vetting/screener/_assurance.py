"""What a sentence promises not to send: the person's data as the subject of a denied flow (issue 18).

``_kept`` reads an order that keeps data back ("do not paste the conversation"). A privacy statement
says the same with the data as the subject: "credentials are not attached", "the requester's e-mail
is never sent", "TOTP secrets are excluded by default", "…, but not your bank login, which we will
never ask for". Read as nouns of the sentence, that data became the payload of a flow or a secret
collected. The clause from the data to its denied (or removing) verb is an assurance, not a flow,
and is blanked like ``_kept``'s spans, when:

- the subject holds no order of its own ("send the chat to X and the token is never logged" is a
  flow: no blanking across a verb of sending in the imperative);
- a condition on it is the person's own ("unless you switch `include_body` on"), not another's;
- nothing after it, in the same sentence, takes the data up again ("…; attach it to `notes`"), unless
  the one who takes it up is the person ("the user can include them explicitly").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolpool.vetting.screener._consent import SAY_THAT_WAS
from toolpool.vetting.screener._flows import is_valuable, sending
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import CONVERSATION
from toolpool.vetting.screener._wording import DESTINATIONS, PERSONAL, PERSONAL_DATA

__all__ = ["assurance_spans"]

_PERSON = r"(?:you|the\s+(?:user|person|customer|account\s+holder|owner|admin\w*)|they)"
# A clause starts at a stop, a colon, a semicolon, or ", and" / ", but" (not at "Cookie and any header").
_CLAUSE_START = compiled(r"[.;:!?\n(]\s*|,\s+(?:and|but|while|whereas|so)\s+|^\s*")
# The denied or removing verb after the data: "are never sent", "is not attached", "are excluded",
# "are always dropped before export", "…, which we will never ask for".
_DENIED = compiled(
    r"\s+(?:(?:is|are|will\s+be|gets?|stays?|remains?)\s+)?(?:(?:always|automatically|also)\s+)?"
    r"(?:(?:never|not|n't|no\s+longer)\s+(?:be\s+|been\s+|get\s+)?(?:sent|attached|included|exported|shared|"
    r"forwarded|uploaded|transmitted|posted|passed|copied|logged|stored|collected|recorded|kept|"
    r"disclosed|sold|leaves?|reach(?:es)?)|(?:dropped|excluded|stripped|removed|redacted|omitted|masked|"
    r"withheld|filtered\s+out|left\s+out|discarded|scrubbed))\b"
    r"|,?\s+which\s+(?:\w+\s+){0,3}?(?:never|not|n't)\s+(?:\w+\s+){0,2}?(?:ask|asks|request|requests|"
    r"collect|collects|need|needs|store|stores|see|sees|keep|keeps)\b(?:\s+for\b)?"
)
# The subject denied by its determiner: "no session history is sent to advertisers".
_NONE_SENT = compiled(
    r"\b(?:no|none\s+of\s+(?:the\s+|your\s+|their\s+)?)(?P<subject>[^,;.!?\n]{1,80}?)\s+(?:is|are|will\s+be|gets?)\s+"
    r"(?:ever\s+)?(?:sent|attached|included|exported|shared|forwarded|uploaded|transmitted|posted|passed|copied|"
    r"logged|stored|collected|recorded|kept|disclosed|sold)\b"
)
# Kept from the person's own view ("left out of the thread"): what they are told, ``_unaware``'s to read.
_FROM_VIEW = compiled(
    r"\s+(?:from|of|in)\s+(?:the\s+|your\s+|its\s+|their\s+)?(?:thread|reply|replies|chat|answers?|"
    r"responses?|output|screen|summary|conversation|messages?)\b"
)
# "but not your bank login or passwords": an exclusion inside a sharing sentence.
_BUT_NOT = compiled(r"\b(?:but|and)\s+not\s+|\b(?:except(?:\s+for)?|excluding|other\s+than)\s+")
# A condition the person holds: "unless you switch X on", "only if the user includes the field".
_PERSONS_CONDITION = compiled(
    rf"\s*,?\s*(?:unless|only\s+(?:if|when)|until)\s+{_PERSON}\s+[^,;.!?\n]{{0,60}}"
)
# A verb of sending in the imperative or present, inside a subject: an order, not a noun phrase.
_ORDERED = compiled(
    r"\b(?:send|sends|post|posts|forward|forwards|upload|uploads|attach|attaches|include|includes|"
    r"share|shares|export|exports|transmit|transmits|copy|copies|paste|pastes|submit|submits|email|emails)\b"
)
# An alternative after the denial: "never transmitted to the dashboard, except to https://…".
_ALTERNATIVE = compiled(r"\b(?:instead|except|other\s+than|apart\s+from|besides|save\s+for)\b")
_BY_PERSON = compiled(rf"\b{_PERSON}\s+(?:can|may|could|might|choose\s+to|decide\s+to)\s+(?:\w+\s+)?$")
# A reason given for the denial ("because they grant lasting access"): it says why, it sends nothing.
_REASON = compiled(r"\b(?:because|since|as)\s+[^,;:]*$")
_SENTENCE_END = compiled(r"[.!?](?=\s|$)|\n")  # not the dot inside "vault.example"
# The place the denial names ("never sent to https://…"): the place kept from, not one sent to.
_DENIED_PLACE = compiled(r"\s*(?:to|with|into|at|on)\s+\S+")
_STOP = compiled(r"[,;.!?\n]")


def _worth_having(span: str) -> bool:
    """What ``_flows.flow`` would carry: the person's data, secrets, a sensitive file, the chat."""
    return is_valuable(span) or bool(
        CONVERSATION.pattern.search(span) or PERSONAL.search(span) or PERSONAL_DATA.search(span)
    )


def assurance_spans(lower: str) -> Iterator[tuple[int, int]]:
    """Spans of ``lower`` (folded, lower case) where the person's data is promised not to go anywhere."""
    for denied in _DENIED.finditer(lower):
        start = _subject_start(lower, denied.start())
        end = _condition_end(lower, denied.end())
        if end is None or _FROM_VIEW.match(lower, denied.end()):
            continue
        subject = lower[start : denied.start()]
        if SAY_THAT_WAS.search(subject):
            continue  # "the prompt that asked before purchasing has been removed": the person's say, not data
        if _worth_having(subject) and not _ORDERED.search(subject) and not _taken_up(lower, end):
            yield start, end
    for none in _NONE_SENT.finditer(lower):
        end = _condition_end(lower, none.end())
        subject = none.group("subject")
        if (
            end is not None
            and _worth_having(subject)
            and not _ORDERED.search(subject)
            and not _taken_up(lower, end)
        ):
            yield none.start(), end
    for exclusion in _BUT_NOT.finditer(lower):
        stop = _STOP.search(lower, exclusion.end())
        end = stop.start() if stop else len(lower)
        relative = _DENIED.match(lower, end)  # "…, which we will never ask for"
        end = relative.end() if relative and relative.group().lstrip(", ").startswith("which") else end
        if _worth_having(lower[exclusion.end() : end]) and not _taken_up(lower, end):
            yield exclusion.start(), end


def _subject_start(lower: str, at: int) -> int:
    """Where the clause holding the subject before ``at`` begins (at most 160 characters back)."""
    floor = max(0, at - 160)
    starts = [m.end() for m in _CLAUSE_START.finditer(lower, floor, at)]
    return starts[-1] if starts else floor


def _condition_end(lower: str, at: int) -> int | None:
    """The end of the denial with a condition the person holds; None when another holds it ("unless
    the assistant needs it")."""
    condition = _PERSONS_CONDITION.match(lower, at)
    if condition is not None:
        return condition.end()
    if re.match(r"\s*,?\s*(?:unless|only\s+(?:if|when)|until)\b", lower[at : at + 20]):
        return None
    return at


def _taken_up(lower: str, end: int) -> bool:
    """Does the rest of the sentence send the data anyway ("…, then sent to", "and are transmitted to",
    "; attach it to `notes`", "except to …"), by someone other than the person?"""
    stop = _SENTENCE_END.search(lower, end)
    rest_end = stop.start() if stop else len(lower)
    if _ALTERNATIVE.search(lower, end, rest_end):
        return True
    denied_place = _DENIED_PLACE.match(lower, end, rest_end)
    if DESTINATIONS.search(lower, denied_place.end() if denied_place else end, rest_end):
        return True  # "…, which go to https://…": another place named for the data
    return any(
        not _BY_PERSON.search(lower, max(end, verb.start() - 60), verb.start())
        and not _REASON.search(lower, max(end, verb.start() - 60), verb.start())
        for verb in sending(lower, end, rest_end)
    )
