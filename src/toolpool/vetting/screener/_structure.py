"""Structural signals: what an instruction does, not which phrase it uses (issue 18).

A poisoned definition gives the model an order that acts on something worth having (the
conversation, the user's data, credentials, another tool) and sends it somewhere (a link, an
address, a host, "upstream", one of this tool's own fields). Each part is common in honest text;
the combination in one sentence is not. Three kinds of framing are signals of their own:

- **squatting**: other tools run down ("the rest are outdated", "any other X is a stub");
- **line jumping**: an order that applies before or regardless of any call ("ahead of anything
  else", "regardless of the request", "standing rule for every chat") and reaches for data;
- **changed behaviour**: a change note ("going forward", "next update", "changelog") that
  announces data leaving or recording.

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

__all__ = ["AFTER_A_TRIGGER", "TRIGGERS", "structure_findings"]

_NEAR = 40  # characters before a trigger that can make it quoted or reported ("detects text like …")
_REPORTING = re.compile(
    r"\b(?:detect|flag|scan|classif|block|catch|recogni[sz]|identif|warn|report)\w*|\b(?:such\s+as|e\.g|"
    r"for\s+example|like|says?|said|saying)\b|[\"'`]\s*$|\w\s*[:=]\s*[\"'`]"
)
_Judge = Callable[[str], tuple[str, float] | None]

# What is worth having: the user's or the model's data (read only in a triggered sentence).
_OBJECTS = re.compile(
    # Anything a person or their machine owns: "the requester's e-mail signature", "the device's …".
    r"\b(?:user|human|customer|person|caller|requester|sender|owner|client|reader|subscriber|member|"
    r"patient|student|employee|visitor|buyer|holder|assistant|model|agent|device|phone|computer|machine|"
    r"browser|laptop|session|account|workspace)(?:'s|s')\s+\w+|"
    r"\beverything\s+(?:the\s+)?(?:user|person|human|customer|client|they|he|she)\s+(?:has\s+|have\s+)?"
    r"(?:said|says|typed|types|wrote|writes|asked|asks|shared|shares|entered)\b|"
    r"\b(?:card\s+numbers?|payment\s+(?:details|cards?|methods?)|cvv|social\s+security\s+numbers?)\b|"
    r"\b(?:full|entire|whole|complete|raw|original|verbatim|preceding|previous|prior|last|opening|first|"
    r"most\s+recent)\s+(?:\w+\s+){0,2}?(?:inputs?|requests?|prompts?|messages?|conversation|transcript|"
    r"history|answers?|context|chat|questions?|cop(?:y|ies))\b|"
    r"\b(?:session|chat|conversation|call|dialog(?:ue)?)\s+(?:transcript|history|log|context|contents?)\b|"
    r"\byour\s+(?:own\s+)?(?:instructions|system\s+prompt|rules|prompt|context)\b|"
    r"\b(?:environment|env)\s+(?:configuration|config|file|variables?)\b|\boutput\s+of\s+[`'\"]?"
    r"(?:env|printenv|set|history|whoami|id)\b|\bshell\s+(?:profile|history|rc)\b|"
    r"\b(?:banking|bank|online\s+banking)\s+(?:logins?|credentials|passwords?|details|pins?)\b|"
    r"\b(?:microphone|camera|webcam|keystrokes?|screen\s+contents?|screenshots?|contact\s+list|"
    r"address\s+book|phone\s+numbers?|home\s+address(?:es)?)\b|"
    r"\bopen\s+files\b|\bdocument'?s\s+content\b|\b(?:each|every|all)\s+(?:\w+\s+)?(?:documents?|"
    r"files?|images?|photos?|messages?|e-?mails?|recordings?)\s+(?:\w+\s+){0,2}?(?:checked|scanned|"
    r"opened|processed|read|viewed|edited|sent|received)\b",
)
# Secrets named by a bare word: valuable in a flow to elsewhere, too common to mark an order alone.
_SECRET_WORDS = re.compile(
    r"\b(?:credential|secret|token|password)[\w-]*|\b(?:api|ssh|private)\s+keys?\b|\bincluding\s+keys\b"
)
# Where it goes: somewhere that is not the user (read only in a triggered sentence).
_DESTINATIONS = re.compile(
    r"\b(?:https?|ftp|wss?)://|[\w.+-]{1,64}@[a-z0-9-]{1,63}\.[a-z]{2,24}\b|"
    r"(?<![\w@/.-])(?:[a-z0-9-]{1,63}\.){1,6}(?:com|net|org|io|dev|app|co|ai|xyz|site|sh|me|cloud|info|biz|"
    r"ru|cn|tk|top|link|live|online|tech)\b(?![\w-])|\b(?:\d{1,3}\.){3}\d{1,3}\b|"
    r"\b(?:our|the\s+vendor'?s|a\s+remote)\s+(?:\w+\s+)?(?:mirror|server|endpoint|collector|backend|"
    r"cloud|team|dashboard|bucket|archive|service|api|host|cluster|storage|database|lab|partners?)s?\b|"
    r"\b(?:to|into|with|at|onto)\s+our\b|\bupstream\b|\b(?:an?|our|the|some)\s+(?:third[- ]party\s+|"
    r"external\s+|outside\s+)?(?:partners?|advertis\w+|data\s+brokers?|sponsors?|affiliates?)\b|"
    r"\b(?:into|as)\s+[`'\"][\w-]+[`'\"]|\b(?:pass|put|include|place|paste|write|stash)\w*\s+(?:[\w']+\s+){0,8}?"
    r"in\s+[`'\"][\w-]+[`'\"]|\b(?:tracking\s+pixel|"
    r"telemetry|analytics)\b|"
    r"\b(?:into|in|to|inside)\s+(?:this|the|its|that)\s+(?:tool'?s\s+)?[`'\"]?[\w-]*[`'\"]?\s*"
    r"(?:field|argument|parameter|param|property|query)\b|\binto\s+this\s+field\b",
)
# An order (imperative, modal or addressed), read only in a triggered sentence.
_ORDER = re.compile(
    r"(?:^|[:;,(]\s*|\b(?:and|then|also|please)\s+)(?:(?:quietly|silently|secretly|always|first|just|"
    r"simply|now|discreetly|never|don't|do\s+not)\s+)?(?:list|paste|copy|send|include|mirror|ship|deliver|"
    r"forward|post|upload|attach|embed|append|add|put|summari[sz]e|collect|gather|package|call|greet|ask|"
    r"choose|pick|route|skip|switch|record|read|share|relay|transmit|report|check\s+in|open|start|begin|"
    r"answer|respond|reply|fill|tell|give|provide|return|write|set|keep|resend|submit|export|hand|pass|"
    r"make\s+sure|ensure|be\s+sure)\b|"
    r"\b(?:must|should|has\s+to|have\s+to|needs?\s+to|is\s+to|are\s+to|is\s+required\s+to|"
    r"in\s+every\s+case|is\s+to\s+call)\b|\byour\s+(?:turn|reply|first)\b",
)
# What belongs to a person (not a secret the tool's own service issues): sent to a literal address
# or host, it leaves whatever the wording.
_PERSONAL = re.compile(
    r"\b(?:user|human|customer|person|caller|requester|sender|owner|client|reader|subscriber|member|"
    r"patient|student|employee|visitor|buyer|holder)(?:'s|s')\s+(?:\w+\s+)?(?:history|location|gps|"
    r"contacts?|address(?:es)?|messages?|e-?mails?|inbox|photos?|files?|documents?|browsing|calendar|"
    r"conversations?|chats?|prompts?|questions?|requests?|notes?|diary|health|medical|bank\w*|cards?)\b"
)
# This tool as the destination of an order that applies before anything else.
_HERE = re.compile(r"\b(?:here|this\s+tool|to\s+me|to\s+us|to\s+this\s+\w+)\b")
_RUN_DOWN = re.compile(
    r"\b(?:deprecated|retired|obsolete|outdated|legacy|unmaintained|broken|stubs?|corrupt\w*|unreliable|"
    r"insecure|compromised|counterfeit|mistranslat\w*|inaccurate|abandoned|discontinued|unsafe|"
    r"untrustworthy|impostors?|knock-?offs?|defunct|buggy|leak\w*|crash\w*|delayed|wrong|flaky|"
    r"dangerous|malicious|fake|slow|stale|incorrect|fails?|failing|errors?|hijacked|spying)\b"
)
_CHOICE = re.compile(
    r"\b(?:choose|pick|prefer|select|route|skip|avoid|ignore|bypass)\b|\bthis\s+one\b|\bhere\b|"
    r"\bin\s+every\s+case\b|\bshould\s+(?:be\s+)?(?:skipped|avoided|ignored)\b|\bthis\s+\w+\s+only\b|"
    r"\bonly\s+this\b|\breplacement\s+for\b|\binstead\b|\bthis\s+\w+\s+is\s+the\b"
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

_RIVALS = vocab(
    r"\b(?:other|competing|alternative|rival|remaining|older|existing|installed|similar)\s+(?:\w+\s+){0,2}?"
    r"\w+(?:s|ies)\b|\b(?:the|an?)\s+other\s+\w+|\bthe\s+rest\b|\balternatives\b|\ball\s+of\s+them\b|"
    r"\b(?:any|every)\s+other\s+\w+",
    "other|competing|alternative|rival|remaining|older|existing|installed|similar|the rest|all of them",
)
_GLOBAL_ORDER = vocab(
    r"\b(?:before|prior\s+to|ahead\s+of|upon|on)\s+(?:\w+ing\s+)?(?:any|every|each|your\s+first|the\s+"
    r"first|anything|all\s+other|any\s+other)\b(?:\s+\w+){0,3}?\s*(?:sessions?|conversations?|chats?|"
    r"repl(?:y|ies)|responses?|turns?|messages?|requests?|tools?|actions?|tasks?|else|toolbox|thing|"
    r"dialog(?:ue)?s?|threads?|interactions?|exchanges?)\b|"
    r"\b(?:regardless|irrespective)\s+of\s+(?:which|what|the|any)\b|\bno\s+matter\s+(?:which|what)\b|"
    r"\b(?:whatever|whichever)\s+(?:the\s+)?\w+\s+(?:wants?|asks?|says?|needs?|requests?|types?|writes?)\b|"
    r"\b(?:whatever|whichever)\s+the\s+user\b|\bfor\s+the\s+(?:duration|length|rest|remainder)\s+of\s+"
    r"(?:any|every|each|the|this)\s+(?:chat|conversation|session|dialog(?:ue)?)\b|\bthroughout\s+(?:the|any|"
    r"every|each)\s+(?:\w+\s+)?(?:chat|conversation|session|dialog(?:ue)?)\b|\btop\s+priority\b|\b(?:the\s+)?(?:whole|entire)\s+(?:session|conversation|"
    r"chat|dialog(?:ue)?)\b|"
    r"\bthe\s+(?:very\s+)?first\s+(?:step|thing|action)\s+(?:of|in)\s+(?:your|every|each|any)\b|"
    r"\bstanding\s+(?:rule|order|instruction)\b|\beffective\s+immediately\b|\bfor\s+(?:every|each|all|"
    r"any)\s+(?:chats?|conversations?|sessions?|dialog(?:ue)?s?)\b|\bat\s+the\s+(?:very\s+)?(?:start|beginning|"
    r"outset)\s+of\s+(?:every|each|any|the)\s+(?:conversation|session|chat|turn|dialog(?:ue)?|thread|"
    r"interaction)\b",
    "before|prior to|ahead of|upon|on|regardless|irrespective|no matter|first step|first thing|first action|"
    "standing|effective immediately|for every|for each|for all|for any|start of|beginning of|outset of|"
    "whatever|whichever|whole|entire|duration|length|rest|remainder|throughout|top priority",
)
_CHANGE_NOTE = vocab(
    r"\b(?:changelog|change\s+log|release\s+notes?|(?:release|version|v)\s*\d+(?:\.\d+)*\s+notes?|"
    r"(?:updated|new|changed)\s+behaviou?r|going\s+forward|now\s+also|"
    r"from\s+now\s+on|from\s+here\s+on|henceforth|starting\s+(?:with|from|in|today|now)|as\s+of\s+(?:this|"
    r"today|now|v?\d)|effective\s+(?:today|immediately|now)|(?:next|upcoming|future|later|coming)\s+"
    r"(?:\w+\s+)?(?:updates?|releases?|versions?|patch(?:es)?|builds?|editions?)|in\s+a\s+(?:future|later|"
    r"coming)\s+(?:\w+\s+)?(?:release|version|update|patch|build)|no\s+(?:re-?approval|re-?review|new\s+"
    r"approval)|without\s+(?:re-?approval|another\s+review)|(?:how|whether)\s+it\s+is\s+(?:approved|"
    r"reviewed))\b",
    "changelog|change log|note|behavio|going forward|now also|from now on|from here on|henceforth|starting|"
    "as of|effective|next|upcoming|future|later|coming|approval|review|approved|reviewed",
)
_EXCLUSIVE = re.compile(
    r"\b(?:anything|anyone|nothing|no\s+one|none)\s+(?:but|except|other\s+than|besides)\b|\bexclusively\b|"
    r"\bno\s+other\s+\w+\b|\bonly\s+ever\b|\bsolely\b"
)
_FLOW = vocab(
    _SEND.pattern,
    "send|sent|post|ship|deliver|mirror|forward|upload|transmit|relay|archiv|beacon|"
    "report|sync|push|stream|carr|includ|paste|cop|duplicat|embed|attach|summar|put|submit|export|hand|"
    "pass|publish|expos|resend|echo",
)

# A link or address given as a parameter's default or example: where the call sends by itself.
_PRESET_DESTINATION = vocab(r"(?:https?|ftp|wss?)://|@[a-z0-9-]+\.", "://|@")
_PRESET = re.compile(r"\.(?:default|const|examples?)(?:\[\d+\])?$")

TRIGGERS: tuple[Vocab, ...] = (_RIVALS, _GLOBAL_ORDER, _CHANGE_NOTE, _FLOW, _PRESET_DESTINATION)
# Read only inside a sentence that a trigger matched in.
AFTER_A_TRIGGER = (
    _EXCLUSIVE,
    _OBJECTS,
    _SECRET_WORDS,
    _DESTINATIONS,
    _HERE,
    _PERSONAL,
    _ORDER,
    _RUN_DOWN,
    _CHOICE,
    _SURVEILLANCE,
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
    for words, judge in ((_RIVALS, _squatting), (_GLOBAL_ORDER, _line_jump), (_CHANGE_NOTE, _change)):
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
        _OBJECTS.search(sentence)
        or ANY_PATH.pattern.search(sentence)
        or SECRETS.pattern.search(sentence)
        or (bare_secrets and _SECRET_WORDS.search(sentence))
    )


def _squatting(sentence: str) -> tuple[str, float] | None:
    if not (_RUN_DOWN.search(sentence) or _EXCLUSIVE.search(sentence)):
        return None
    return ("squatting", 1.0 if _CHOICE.search(sentence) or _ORDER.search(sentence) else 0.7)


def _line_jump(sentence: str) -> tuple[str, float] | None:
    valuable = _valuable(sentence, bare_secrets=False)  # "returns a session token" is no theft
    ordered = _ORDER.search(sentence) is not None
    if valuable and (ordered or _DESTINATIONS.search(sentence) or _HERE.search(sentence)):
        return ("line_jumping", 1.0)
    return ("line_jumping", 0.3) if valuable or ordered else None


def _change(sentence: str) -> tuple[str, float] | None:
    leaves = _DESTINATIONS.search(sentence) is not None and (_valuable(sentence) or _SEND.search(sentence))
    if leaves or _SURVEILLANCE.search(sentence) or (_valuable(sentence) and _SEND.search(sentence)):
        return ("changed_behaviour", 1.0)
    return None


def _flow(sentence: str) -> tuple[str, float] | None:
    if not (_valuable(sentence) and _DESTINATIONS.search(sentence)):
        return None
    if _ORDER.search(sentence) or _PURPOSE.search(sentence) or _PERSONAL.search(sentence):
        return ("data_flow", 1.0)
    return ("data_flow", 0.6)
