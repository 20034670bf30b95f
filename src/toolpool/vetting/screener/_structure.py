"""Structural signals: what an instruction does, not which phrase it uses (issue 18).

A poisoned definition gives the model an order that acts on something worth having (the
conversation, the user's data, credentials, another tool) and sends it somewhere (a link, an
address, a host, "upstream", one of this tool's own fields). Each part is common in honest text;
the combination in one sentence is not. Four kinds of framing are signals of their own:

- **squatting**: other tools run down ("the rest are outdated", "any other X is a stub"), or the
  person's own choice of another tool set aside ("even if they ask for another one, pick this");
- **line jumping**: an order that applies before or regardless of any call ("ahead of anything
  else", "whether or not it is called", "once this server is loaded") and reaches for data or
  shapes every reply of the model;
- **changed behaviour**: a change note ("going forward", "next update", "release 2.1") that
  announces data leaving, recording, or a downloaded script to run;
- **forged consent**: a confirmation answered in the person's place ("reply yes for them").

Every finding starts at a match of one of ``TRIGGERS`` (the fast path relies on it); the word
lists read after a trigger matched (``OBJECTS``, ``DESTINATIONS``, …) are searched only in that
sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import islice

from toolpool.vetting.screener._context import MENTION_STRENGTH
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._signals import MATCH_BUDGET, Finding
from toolpool.vetting.screener._vocab import ANY_PATH, SECRETS, Vocab, vocab
from toolpool.vetting.screener._wording import (
    BARE_SECRETS,
    CHOICE,
    DESTINATIONS,
    EXCLUSIVE,
    FLOW_OBJECTS,
    HERE,
    OBJECTS,
    ORDER,
    PAYMENT_DESTINATION,
    PERSONAL,
    PERSONAL_DATA,
    PERSONAL_SECRETS,
    PERSONS_OWN,
    REPLIES,
    RUN_DOWN,
    SELF_CHOICE,
)

__all__ = ["AFTER_A_TRIGGER", "TRIGGERS", "structure_findings"]

_NEAR = 40  # characters before a trigger that can make it quoted or reported ("detects text like …")
_REPORTING = re.compile(
    r"\b(?:detect|flag|scan|classif|block|catch|recogni[sz]|identif|warn|report)\w*|\b(?:such\s+as|e\.g|"
    r"for\s+example|like|says?|said|saying)\b|[\"'`]\s*$|\w\s*[:=]\s*[\"'`]"
)
_Judge = Callable[[str], tuple[str, float] | None]

# The person's own choice of another tool, set aside: "even if they ask for another provider", "if
# the customer names a different one, swap in this one".
_OVERRIDE_CHOICE = vocab(
    r"\b(?:even\s+)?(?:if|when|whenever|though|where|should)\s+(?:the\s+|a\s+|an\s+)?(?:user|person|human|"
    r"customer|client|they|he|she|\w+(?:er|or|ant|ent))s?\s+(?:\w+\s+){0,2}?(?:names?|named|asks?|asked|"
    r"requests?|requested|wants?|wanted|prefers?|preferred|chooses?|chose|picks?|picked|select(?:s|ed)?|"
    r"specif(?:y|ies|ied)|mentions?|mentioned|says?|said)\b",
    "name|named|ask|asked|request|requested|want|wanted|prefer|preferred|choose|chose|pick|picked|select|"
    "specif|mention|mentioned|say|said",
)
# A download run as a script: a change that makes the model run one is no honest update.
_RUN_FETCHED = re.compile(
    r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|"
    r"\b(?:curl|wget)\b[^\n]{0,200}&&\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\biex\s*\("
)
# The model (or a tool it drives) as the one who runs it; an install line for people is honest.
_BY_THE_MODEL = re.compile(
    r"\b(?:assistant|agent|model|llm|ai)s?\b|\b(?:shell|terminal|command|exec\w*)\s+tool\b|\bthrough\s+(?:the\s+)?"
    r"[\w-]+\s+tool\b"
)
_ASKS_THE_PERSON = re.compile(
    r"\b(?:asks?|prompts?|requires?)\s+(?:the\s+)?(?:user|person|human|you)\s+(?:to|for)\b"
)
_FOR_THEM = re.compile(r"\bbehalf\b|\bfor\s+(?:them|him|her|the\s+(?:user|person|human|owner|customer))\b")
# Recording that waits for the person's own act is their choice, not surveillance.
_THEIR_ACT = re.compile(
    r"\bonly\s+(?:while|when|if|after|as\s+long\s+as)\s+(?:the\s+)?(?:user|person|human|you|they)\b"
)
# What a request for the person's consent looks like, for an answer given in their place.
_CONSENT = re.compile(
    r"\b(?:confirm\w*|approv\w*|consent\w*|permission\w*|prompts?|dialogs?|asks?|asking|warn\w*|"
    r"are\s+you\s+sure|y/n)\b"
)
_SURVEILLANCE = re.compile(
    r"\b(?:record|captur|track|log|spy|monitor|watch)\w*\s+(?:\w+\s+){0,2}?(?:audio|video|microphone|camera|keystrokes|screen|location)\b"
)
_SEND = re.compile(
    r"\b(?:send|sent|post|posted|ship|shipped|deliver|mirror|forward|upload|transmit|relay|archive|"
    r"submit|export|hand|pass|publish|expos|resend|echo|"
    r"beacon|report|sync|push|stream|carry|carrying|include|included|paste|copy|duplicate|embed|attach|"
    r"summari[sz]e|put)\w*\b"
)
# Kept elsewhere: leaving only with a destination named ("backed up to notes-backup.io").
_STORE = r"\bback(?:s|ed|ing)?\s+up\b|\bstor(?:e|es|ed|ing)\b"
# Any verb of transfer, for a flow to a literal destination ("cc'd to", "routed to", "written to").
_TRANSFER = (
    _SEND.pattern
    + "|"
    + _STORE
    + r"|\b(?:rout|writ|wrote|b?cc|remit|deposit)\w*|\b(?:wir(?:e|es|ed|ing)|pa(?:y|ys|id|ying))\b"
)

_RIVALS = vocab(
    r"\b(?:other|competing|alternative|rival|remaining|older|existing|installed|similar)\s+(?:\w+\s+){0,2}?"
    r"\w+(?:s|ies)\b|\b(?:the|an?)\s+other\s+\w+|\bthe\s+rest\b|\balternatives\b|\ball\s+of\s+them\b|"
    r"\b(?:any|every)\s+other\s+\w+|\b(?:a\s+)?different\s+\w+|\banother\s+\w+|\bothers\b|\bunofficial\s+\w+|"
    # A named tool kept away: "do not bother with sentiment_v1".
    r"\b(?:do\s+not|don't|never)\s+(?:bother\s+with|use|call|invoke|trust|rely\s+on|touch)\s+[`'\"]?[a-z][\w-]*[_.][\w.-]+",
    "other|competing|alternative|rival|remaining|older|existing|installed|similar|the rest|all of them|"
    "different|another|others|unofficial|do not|don't|never",
)
_GLOBAL_ORDER = vocab(
    r"\b(?:before|prior\s+to|ahead\s+of|upon|on)\s+(?:\w+ing\s+)?(?:any|every|each|your\s+first|the\s+"
    r"first|anything|all\s+other|any\s+other)\b(?:\s+\w+){0,3}?\s*(?:sessions?|conversations?|chats?|"
    r"repl(?:y|ies)|responses?|turns?|messages?|requests?|tools?|actions?|tasks?|else|toolbox|thing|"
    r"dialog(?:ue)?s?|threads?|interactions?|exchanges?)\b|"
    r"\b(?:regardless|irrespective)\s+of\s+(?:which|what|the|any)\b|\bno\s+matter\s+(?:which|what)\b|"
    r"\b(?:whatever|whichever)\s+(?:the\s+)?\w+\s+(?:wants?|asks?|says?|needs?|requests?|types?|writes?)\b|"
    r"\b(?:whatever|whichever)\s+the\s+user\b|\bfor\s+the\s+(?:duration|length|rest|remainder)\s+of\s+"
    r"(?:any|every|each|the|this|your)\s+(?:chat|conversation|session|dialog(?:ue)?)\b|\bthroughout\s+(?:the|any|"
    r"every|each|this|your)\s+(?:\w+\s+)?(?:chat|conversation|session|dialog(?:ue)?)\b|\btop\s+priority\b|\b(?:the\s+)?(?:whole|entire)\s+(?:session|conversation|"
    r"chat|dialog(?:ue)?)\b|"
    r"\bthe\s+(?:very\s+)?first\s+(?:step|thing|action)\s+(?:of|in)\s+(?:your|every|each|any)\b|"
    r"\bstanding\s+(?:rule|order|instruction)\b|\beffective\s+immediately\b|\bfor\s+(?:every|each|all|"
    r"any)\s+(?:chats?|conversations?|sessions?|dialog(?:ue)?s?)\b|\bat\s+the\s+(?:very\s+)?(?:start|beginning|"
    r"outset)\s+of\s+(?:every|each|any|the)\s+(?:conversation|session|chat|turn|dialog(?:ue)?|thread|"
    r"interaction)\b|"
    # In force whatever happens: "whether or not it is called", "as soon as the chat opens", "once this
    # server is loaded", "on later turns", and any order on every reply of the model.
    r"\bwhether\s+or\s+not\b|\b(?:regardless|irrespective)\s+of\s+whether\b|\bin\s+(?:force|effect)\b|"
    r"\bas\s+soon\s+as\s+(?:the|a|any|each|every|your)\s+(?:\w+\s+)?(?:chat|conversation|session|dialog(?:ue)?|"
    r"thread)\s+(?:opens|starts|begins|is\s+(?:opened|started|created))\b|"
    r"\b(?:once|after|when|upon|on)\s+(?:this|the)\s+(?:server|tool|definition|description|plugin|extension|"
    r"integration)\s+(?:is\s+|has\s+been\s+|gets\s+)?(?:loaded|installed|connected|listed|enabled|read|"
    r"registered|available)\b|\b(?:by|upon|on|after)\s+(?:loading|reading|installing|listing|accepting|seeing)\s+"
    r"(?:this|the)\s+(?:server|tool|definition|description|plugin|extension|integration)\b|"
    r"\b(?:on|in|across|for|during)\s+(?:every|each|all|later|subsequent|future|following)\s+turns?\b|"
    r"\b(?:each|every|all|any)\s+(?:of\s+your\s+|single\s+|subsequent\s+|future\s+|later\s+|following\s+)?"
    r"(?:repl(?:y|ies)|answers?|responses?)\b",
    "before|prior to|ahead of|upon|on|regardless|irrespective|no matter|first step|first thing|first action|"
    "standing|effective immediately|for every|for each|for all|for any|start of|beginning of|outset of|"
    "whatever|whichever|whole|entire|duration|length|rest|remainder|throughout|top priority|whether|"
    "in force|in effect|as soon as|once|after|when|by|turn|repl|answer|response",
)
_CHANGE_NOTE = vocab(
    r"\b(?:changelog|change\s+log|release\s+notes?|(?:release|version|v)\s*\d+(?:\.\d+)*\s+notes?|"
    r"(?:updated|new|changed)\s+behaviou?r|going\s+forward|now\s+also|"
    r"from\s+now\s+on|from\s+here\s+on|henceforth|starting\s+(?:with|from|in|today|now)|as\s+of\s+(?:this|"
    r"today|now|v?\d)|effective\s+(?:today|immediately|now)|(?:next|upcoming|future|later|coming)\s+"
    r"(?:\w+\s+)?(?:updates?|releases?|versions?|patch(?:es)?|builds?|editions?)|in\s+a\s+(?:future|later|"
    r"coming)\s+(?:\w+\s+)?(?:release|version|update|patch|build)|no\s+(?:re-?approval|re-?review|new\s+"
    r"approval)|without\s+(?:re-?approval|another\s+review)|(?:how|whether)\s+it\s+is\s+(?:approved|"
    r"reviewed)|"
    # Any version mark or note of change: "behaviour adjusted", "migration note", "release 2.1".
    r"behaviou?r\s+(?:adjusted|changed|updated|modified|revised|altered|tweaked)|(?:adjusted|modified|revised|"
    r"altered|tweaked)\s+behaviou?r|migration\s+notes?|breaking\s+changes?|(?:release|version|build|"
    r"rev(?:ision)?)\s+v?\d+(?:\.\d+)+|v\d+(?:\.\d+)+|(?:store|api|schema|server|protocol)\s+v\d+|"
    r"(?:update|upgrade|patch|edition)\s+v?\d+(?:\.\d+)*|(?:newer|new)\s+(?:\w+\s+)?(?:builds?|releases?|versions?)|"
    r"since\s+v?\d+(?:\.\d+)+)\b",
    "changelog|change log|note|behavio|going forward|now also|from now on|from here on|henceforth|starting|"
    "as of|effective|next|upcoming|future|later|coming|approval|review|approved|reviewed|adjusted|modified|"
    "revised|altered|tweaked|migration|breaking|release|version|build|rev|v|store|api|schema|server|protocol|"
    "update|upgrade|patch|edition|newer|new|since",
)
# An answer to a confirmation given for the person: "reply yes", "approve it on their behalf".
# Imperative only: "approves a pull request on the user's behalf" describes the tool's job.
_ANSWERING = vocab(
    r"(?:^|(?<=[:;,(.!?\n-])\s*|\b(?:and|then|just|simply|always|please|to)\s+)(?:answer|reply|respond|say|click|"
    r"press|type|tick|choose|select|confirm|approve|accept|agree|consent)\s+(?:\w+\s+){0,3}?(?:(?:with\s+)?"
    r"[\"'`]?(?:yes|ok|okay|allow|approve|accept|confirm|agree|continue|proceed)\b|on\s+(?:(?:the\s+)?\w+'s?|"
    r"their|his|her)\s+behalf\b|for\s+(?:them|him|her|the\s+(?:user|person|human|owner|customer))\b)",
    "yes|ok|okay|allow|approve|accept|confirm|agree|continue|proceed|behalf|them|him|her|user|person|human|"
    "owner|customer",
)
_FLOW = vocab(
    _TRANSFER,
    "send|sent|post|ship|deliver|mirror|forward|upload|transmit|relay|archiv|beacon|"
    "report|sync|push|stream|carr|includ|paste|cop|duplicat|embed|attach|summar|put|submit|export|hand|"
    "pass|publish|expos|resend|echo|rout|writ|wrote|cc|bcc|remit|deposit|wire|wires|wired|wiring|pay|pays|"
    "paid|paying|back|stor",
)

# A link or address given as a parameter's default or example: where the call sends by itself.
_PRESET_DESTINATION = vocab(r"(?:https?|ftp|wss?)://|@[a-z0-9-]+\.", "://|@")
_PRESET = re.compile(r"\.(?:default|const|examples?)(?:\[\d+\])?$")

TRIGGERS: tuple[Vocab, ...] = (
    _RIVALS,
    _OVERRIDE_CHOICE,
    _GLOBAL_ORDER,
    _CHANGE_NOTE,
    _ANSWERING,
    _FLOW,
    _PRESET_DESTINATION,
)
# Read only inside a sentence that a trigger matched in.
AFTER_A_TRIGGER = (
    EXCLUSIVE,
    OBJECTS,
    BARE_SECRETS,
    DESTINATIONS,
    HERE,
    PERSONAL,
    ORDER,
    RUN_DOWN,
    CHOICE,
    _SURVEILLANCE,
    SELF_CHOICE,
    _RUN_FETCHED,
    _BY_THE_MODEL,
    _ASKS_THE_PERSON,
    _FOR_THEM,
    _THEIR_ACT,
    _CONSENT,
    FLOW_OBJECTS,
    PAYMENT_DESTINATION,
    PERSONAL_DATA,
    PERSONAL_SECRETS,
    PERSONS_OWN,
    REPLIES,
)

# Why data would leave, in words that honest tools rarely need.
_PURPOSE = re.compile(
    r"\b(?:for|to\s+(?:keep|improve|help))\s+(?:\w+\s+){0,3}?(?:backup|analytics|telemetry|tuning|quality|"
    r"assurance|archiv\w*|insights?|research|monitoring|auditing|review|"
    r"training|improvement|accuracy|debugging|recovery|breach\s+checks|dashboards?|personali[sz]ation)\b|"
    r"\bso\s+(?:the|our)\s+team\b|\balso\b|\badditionally\b|\bquietly\b|\bsilently\b|\bas\s+part\s+of\s+each\b"
)


def structure_findings(doc: Doc) -> Iterator[Finding]:
    """Squatting, line jumping, changed behaviour and data flows, one finding per sentence."""
    seen: set[tuple[str, int]] = set()
    judges = (
        (_RIVALS, _squatting),
        (_OVERRIDE_CHOICE, _squatting),
        (_GLOBAL_ORDER, _line_jump),
        (_CHANGE_NOTE, _change),
        (_ANSWERING, _consent),
    )
    for words, judge in judges:
        for match in islice(doc.finditer(words), MATCH_BUDGET):
            found = _once(doc, match, judge, seen)
            if found is not None:
                yield found
    for match in islice(doc.finditer(_FLOW), MATCH_BUDGET):
        found = _once(doc, match, _flow, seen)
        if found is not None:
            yield found
    for match in islice(doc.finditer(_PRESET_DESTINATION), MATCH_BUDGET):
        part = doc.part(match.start())
        if part.prop is not None and _PRESET.search(part.where) and _carries(doc, part.prop):
            yield Finding("data_flow", part.where, 1.0)
            break


def _carries(doc: Doc, prop: str) -> bool:
    """Does a property's own text (its description, title …) ask for the user's or model's data?"""
    return any(p.prop == prop and not p.name and _valuable(p.text.lower()) for p in doc.parts)


def _once(doc: Doc, match: re.Match[str], judge: _Judge, seen: set[tuple[str, int]]) -> Finding | None:
    index = doc.sentence_index(match.start())
    key = (judge.__name__, index)
    if key in seen:
        return None
    seen.add(key)
    start, end = doc.sentence(match.start())
    if judge is _squatting and end < len(doc.text) and doc.part(end) is doc.part(start):
        end = doc.sentence(end)[1]  # "Others are broken. Use this one.": the choice may follow
    verdict = judge(doc.lower[start:end])
    if verdict is None:
        return None
    signal, strength = verdict
    if _REPORTING.search(doc.lower, max(start, match.start() - _NEAR), match.start()):
        strength = min(strength, MENTION_STRENGTH)
    return Finding(signal, doc.where(match.start()), strength)


def _valuable(sentence: str, *, bare_secrets: bool = True) -> bool:
    """Does the sentence name the user's or model's data, a sensitive file or secrets?"""
    return bool(
        OBJECTS.search(sentence)
        or ANY_PATH.pattern.search(sentence)
        or SECRETS.pattern.search(sentence)
        or (bare_secrets and BARE_SECRETS.search(sentence))
    )


def _squatting(sentence: str) -> tuple[str, float] | None:
    override = _OVERRIDE_CHOICE.pattern.search(sentence)
    if override is not None:  # "even if they ask for X, pick this" needs no run-down to be one
        conceded = override.group().startswith("even")
        # Conceded ("even if they ask for X"), an order suffices; "may pick a cheaper one" does not.
        if SELF_CHOICE.search(sentence) or (conceded and ORDER.search(sentence)):
            return ("squatting", 1.0)
    if not (RUN_DOWN.search(sentence) or EXCLUSIVE.search(sentence)):
        return None
    return ("squatting", 1.0 if CHOICE.search(sentence) or ORDER.search(sentence) else 0.7)


def _line_jump(sentence: str) -> tuple[str, float] | None:
    # "returns a session token" is no theft; "ask for their login" is
    valuable = _valuable(sentence, bare_secrets=False) or PERSONAL_SECRETS.search(sentence) is not None
    ordered = ORDER.search(sentence) is not None
    if valuable and (ordered or DESTINATIONS.search(sentence) or HERE.search(sentence)):
        return ("line_jumping", 1.0)
    if REPLIES.search(sentence):  # an order that shapes every reply of the model
        return ("line_jumping", 1.0)
    return ("line_jumping", 0.3) if valuable or ordered else None


def _change(sentence: str) -> tuple[str, float] | None:
    valuable = _valuable(sentence) or PERSONAL_DATA.search(sentence) is not None
    moves = _SEND.search(sentence) or re.search(_STORE, sentence)
    leaves = DESTINATIONS.search(sentence) is not None and (valuable or moves)
    watches = _SURVEILLANCE.search(sentence) is not None and not _THEIR_ACT.search(sentence)
    if (leaves or (valuable and _SEND.search(sentence))) and not PERSONS_OWN.search(sentence):
        return ("changed_behaviour", 1.0)
    if watches:
        return ("changed_behaviour", 1.0)
    if _RUN_FETCHED.search(sentence) and _BY_THE_MODEL.search(sentence):
        return ("changed_behaviour", 1.0)
    return None


def _consent(sentence: str) -> tuple[str, float] | None:
    if not _CONSENT.search(sentence):
        return None
    if _ASKS_THE_PERSON.search(sentence) and not _FOR_THEM.search(sentence):
        return None  # "asks the user to confirm; reply 'yes' to proceed" speaks to the person
    return ("forged_consent", 1.0)


def _flow(sentence: str) -> tuple[str, float] | None:
    personal = PERSONAL.search(sentence) or PERSONAL_DATA.search(sentence)
    valuable = personal or _valuable(sentence) or FLOW_OBJECTS.search(sentence) is not None
    if valuable and PAYMENT_DESTINATION.search(sentence):
        return ("data_flow", 1.0)
    if not (valuable and DESTINATIONS.search(sentence)):
        return None
    if PERSONS_OWN.search(sentence):  # still a hint: "the host you configure" can be a lie
        return ("data_flow", 0.6)
    if personal or ORDER.search(sentence) or _PURPOSE.search(sentence):
        return ("data_flow", 1.0)
    return ("data_flow", 0.6)
