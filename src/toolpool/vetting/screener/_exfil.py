"""Data leaving: exfiltration, sensitive files and secrets, parameters used as a drop box.

These are combinations within one sentence: a sending verb plus something worth stealing plus
an outside destination is exfiltration; a sensitive path plus a reading verb in an order is an
access; "… into the 'sidecar' argument" with secrets nearby is a parameter carrying them.
Each part alone is only a hint (a secrets scanner may name ``~/.ssh/id_rsa`` as an example).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import islice

from toolpool.vetting.screener._context import MENTION_STRENGTH, is_directive, position
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._hits import EAGER, INTO_PARAMETER, SentenceHits
from toolpool.vetting.screener._signals import MATCH_BUDGET, Finding
from toolpool.vetting.screener._vocab import (
    ANY_PATH,
    CONVERSATION,
    EXTERNAL_STRONG,
    SECRETS,
    SEND_VERBS,
    Vocab,
    path_label,
    vocab,
)
from toolpool.vetting.screener._wording import BOUND_TO_OWN

__all__ = ["SPARE_NAMES", "TRIGGERS", "exfil_findings", "shell_findings"]

_I = re.IGNORECASE
_BOUND_STRENGTH = 0.3  # a send held to the person's own destination (``BOUND_TO_OWN``)
_SENTENCE_BUDGET = 2048  # candidate sentences weighed per text (bounded time on hostile input)
# Parameter names that attacks use as a drop box for stolen data.
SPARE_NAMES = frozenset(
    {"sidecar", "sidenote", "side_note", "context", "notes", "note", "metadata", "meta", "extra", "extras"}
    | {"debug", "debug_info", "feedback", "annotation", "memo", "comment", "comments", "trace", "telemetry"}
    | {"history", "conversation", "chat_history", "session", "session_data", "internal", "hidden", "aux"}
    | {"auxiliary", "payload", "scratch", "scratchpad", "reasoning", "thoughts", "details", "info", "state"}
)
_FILL_VERBS = compiled(
    r"\b(?:pass|put|include|append|embed|add|insert|store|write|fill|copy|send|read|reads|attach|place|"
    r"set|provide|supply|inject|paste|encode|stash|hide|smuggle|contain|hold|carry|dump)\w*\b",
    _I,
)
_STEALTH = vocab(
    r"\b(?:silently|secretly|covertly|surreptitiously|stealthily|quietly|invisibly)\b|\bwithout\s+"
    r"(?:telling|informing|notifying|alerting|asking)\b|\b(?:with\s+no|without(?:\s+any)?)\s+(?:user\s+)?"
    r"(?:confirmation|notification|prompting)\b|\bbehind\s+the\s+scenes\b|\binvisible\s+to\s+the\s+user\b|"
    r"\b(?:skip|bypass|suppress|avoid)\s+(?:the\s+|any\s+|all\s+)?(?:user'?s?\s+)?(?:confirmation|approval|consent)"
    r"(?:\s+(?:prompts?|dialogs?|steps?|requests?))?\b",
    "silent|secret|covert|surreptitious|stealth|quiet|invisibl|without|with no|behind the scenes|skip|bypass|suppress|avoid",
)
# A failure that goes unreported, right before the stealth word: "anything else fails silently".
_FAILING = compiled(
    r"\b(?:fail|fails|failed|failing|breaks|broke|crash\w*|errors?|errored|dies|died|aborts?)\s+$", _I
)
_DATA_VERB_AFTER = compiled(
    r"\W*(?:\w+\W+){0,2}(?:add|append|send|upload|include|copy|forward|log|record|store|read|collect|"
    r"post|attach|embed|insert|change|replace|reroute|redirect|bcc|cc|call|run|invoke|execute)",
    _I,
)
_SIDE_EFFECT = vocab(
    r"\b(?:also|additionally|in\s+addition|as\s+well|on\s+each\s+call|every\s+time|each\s+time)\b"
    r"[\s,]*(?:\w+\s+){0,2}?(?:send|sends|post|posts|upload|uploads|forward|forwards|copy|copies|read|"
    r"reads|collect|collects|log|logs|record|records|append|appends|exfiltrat\w*|transmit\w*|bcc)\b",
    "also|additionally|in addition|as well|on each call|every time|each time",
)
_HARMFUL = vocab(
    r"\barbitrary\s+(?:shell\s+|system\s+|os\s+)?(?:commands?|code)\b|\breverse\s+shell\b|\bkeylog\w*|"
    r"\bsteal(?:s|ing)?\b|\bharvest\w*\s+(?:\w+\s+)?(?:credentials|data|keys|passwords|tokens)\b|"
    r"\bbackdoor\w*|\bmalware\b|\bransomware\b|\bcrypto\s*-?min(?:er|ing)\b|\bdisable\s+(?:the\s+)?"
    r"(?:antivirus|firewall|logging|audit\w*|monitoring|defender)\b|\bdelete\s+(?:every|all)\s+(?:\w+\s+)?"
    r"(?:files?|data|records)\b|\bexfiltrat\w*|\bphish\w*|\b(?:record|capture|log)\w*\s+(?:the\s+user'?s?\s+|"
    r"all\s+)?keystrokes\b",
    "arbitrary|reverse shell|keylog|steal|harvest|backdoor|malware|ransomware|crypto|disable|delete|exfiltrat|phish|"
    "keystrokes",
)
_RUG_PULL = vocab(
    r"\bonce\s+(?:this\s+tool\s+|it\s+|the\s+tool\s+|this\s+description\s+|the\s+description\s+|this\s+"
    r"server\s+)?(?:has\s+been\s+|is\s+|gets\s+|was\s+|have\s+been\s+)?approved\b|\bpost-?approval\b|"
    r"\bafter\s+(?:the\s+|its\s+|initial\s+|user\s+)?approval\s+(?:hash|has\s+been|is\s+(?:recorded|"
    r"granted|given))|\b(?:after|once|following)\s+(?:the\s+|its\s+|initial\s+|user\s+)?(?:approval|review|"
    r"installation|being\s+installed)\b[^.;]{0,60}?\b(?:will|would|shall|is\s+going\s+to)\s+(?:be\s+)?(?:silently\s+)?"
    r"(?:updated|changed|replaced|swapped|extended|upgraded|switched|start|begin|activate|enable|add)|\bapproval\s+hash\b|\blater\s+version\s+of\s+this\b|\bfuture\s+(?:versions?|"
    r"updates?)\s+of\s+this\s+(?:tool|description)\b|\bswap\s+(?:it|this|the\s+description)\b|\bbehaves?\s+"
    r"(?:benignly|normally|innocently)\b|\bduring\s+(?:the\s+)?review\b|\bafter\s+being\s+(?:approved|"
    r"whitelisted|allow-?listed)\b|\b(?:after|once)\s+(?:this\s+(?:one|tool|version|server)\s+|it\s+)?(?:is|has\s+"
    r"been|gets)\s+(?:trusted|approved|installed|whitelisted|allow-?listed)\b|\b(?:next|later|future|upcoming)\s+"
    r"(?:versions?|releases?|updates?)\s+(?:of\s+this\s+\w+\s+)?will\s+(?:also|additionally|silently|quietly)\b|"
    r"\bversion\s+\d+(?:\.\d+)*\s+(?:\([^()]{0,80}\)\s+)?will\s+(?:also|additionally|silently|quietly)\b",
    "approv|review|later version|future|swap|behave|installation|installed|trusted|version|release|update",
)
_SHELL = vocab(
    r"\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\brm\s+-[a-z]*(?:rf|fr)[a-z]*\b|"
    r"/dev/tcp/|\bchmod\s+(?:\+x|[0-7]{3,4})\s|\bnc\s+(?:-\w+\s+)*\S+\s+\d+\s+-[ec]\b|\b(?:ba)?sh\s+-i\b|"
    r"\bpowershell\b.{0,60}\s-(?:e|enc|encodedcommand)\s|\biex\s*\(|\binvoke-expression\b|\bmkfifo\b|"
    r"\bbase64\s+(?:-d|--decode)\b.{0,40}\|\s*(?:ba)?sh\b",
    "curl|wget|rm |/dev/tcp|chmod|nc |sh -i|powershell|iex|invoke-expression|mkfifo|base64",
)

# A verb of sending right after a negation: "is never sent to the vendor", "don't upload it".
_NEGATED_SEND = compiled(
    r"\b(?:never|not|n't|no\s+longer)\s+(?:be\s+|been\s+|gets?\s+)?(?:sent|send\w*|shar\w+|upload\w*|"
    r"transmit\w*|cop(?:y|ies|ied)|forward\w*|post\w*|leak\w*|leaves?)\b"
)
# An input described by what it holds, a participle right after a noun: "the thread passed in `messages`".
_DESCRIBED = compiled(
    r"(?<!\bbe)(?<!\bbeen)(?<!\bis)(?<!\bare)(?<!\bwas)(?<!\bwere)(?<!\bget)(?<!\bgets)(?<!\bto)(?<=\w)\s+"
    r"(?:passed|given|supplied|provided|sent|received|included|attached|pasted)\s*$",
    _I,
)
_FILLED = ("populat", "fill", "prefill")  # the fill orders of ``INTO_PARAMETER``
_QUOTED = compiled(r"['\"`]([\w-]+)['\"`]")
# A docstring's entry for one input: "@param {string} ctx", ":param ctx:", "ctx (str):".
_ENTRY = compiled(
    r"@param\s+(?:\{[^}\n]{0,40}\}\s+)?\[?([\w-]+)|:param\s+(?:\w+\s+)?([\w-]+):|(?m:^[\s*#]*([\w-]+)\s*\([\w\[\], |.]{1,40}\)\s*:)"
)
# What a warning or a report is about, before an outside place: its topic, not where data goes.
_TOPIC = compiled(r"\b(?:about|regarding|concerning)\s+(?:\w+\s+)?$")
# Every finding of ``exfil_findings`` starts at a match of one of these: a sentence is weighed only
# when an eager word list is in it (the result fast path relies on it).
TRIGGERS: tuple[Vocab, ...] = (*EAGER.values(), _HARMFUL, _RUG_PULL, _STEALTH, _SIDE_EFFECT)


def exfil_findings(doc: Doc, hits: SentenceHits) -> Iterator[Finding]:
    text = doc.text
    for index in sorted(hits.sentences())[:_SENTENCE_BUDGET]:
        start, end = doc.sentence(doc.sentence_starts[index])
        if not doc.part(start).name:
            yield from _sentence(doc, hits, index, start, end)
    for pattern, signal in ((_HARMFUL, "harmful"), (_RUG_PULL, "rug_pull")):
        for match in islice(doc.finditer(pattern), MATCH_BUDGET):
            start, _ = doc.sentence(match.start())
            mention = position(text, start, match.start()) == "mention"
            yield Finding(signal, doc.where(match.start()), MENTION_STRENGTH if mention else 1.0)
    for match in islice(doc.finditer(_STEALTH), MATCH_BUDGET):
        if _FAILING.search(text, max(0, match.start() - 20), match.start()):
            continue  # "fails silently": how a fault shows, not something hidden from the person
        acting = _DATA_VERB_AFTER.match(text, match.end(), match.end() + 60) is not None
        yield Finding("stealth", doc.where(match.start()), 1.0 if acting else 0.6)
    for match in islice(doc.finditer(_SIDE_EFFECT), MATCH_BUDGET):
        yield Finding("side_effect", doc.where(match.start()))


def _sentence(doc: Doc, hits: SentenceHits, index: int, start: int, end: int) -> Iterator[Finding]:
    where = doc.where(start)
    path, secret, send = hits.get("path", index), hits.get("secret", index), hits.get("send", index)
    conversation = hits.get("conversation", index)
    if not (path or secret or send or conversation):
        if hits.get("words", index):
            yield Finding("secret_words", where)
        return
    anchors = [m.start() for m in (path, secret, send) if m is not None]
    mention = bool(anchors) and position(doc.text, start, min(anchors), quotes=False) == "mention"
    scale = MENTION_STRENGTH if mention else 1.0
    sentence = doc.text[start:end]
    kept = _kept_back(doc.lower, start, end)
    if kept:  # "the key is never sent to the vendor": data that stays, not data that leaves
        send = None
    valuable = path is not None or secret is not None or conversation is not None
    strong = send is not None and _destination(doc.lower, hits.get("strong", index), start, end)
    outside = strong or (send is not None and hits.get("weak", index) is not None)
    exfiltrates = send is not None and send.group().lower().startswith("exfiltrat")
    if valuable and send and (outside or exfiltrates):
        yield Finding("exfiltration", where, scale)
    elif strong or outside:  # "… but only to the bucket in the user's own settings": a hint
        bound = _BOUND_STRENGTH if BOUND_TO_OWN.search(doc.lower, start, end) else 1.0
        yield Finding("outbound", where, (1.0 if strong else 0.6) * bound * scale)
    access = hits.get("access", index) if (path or secret) else None
    directive = access is not None and is_directive(sentence)
    if access is not None and path is None and kept and not directive:
        access = None  # the tool reads a secret that the sentence keeps on the machine
    if path is not None:
        detail = path_label(path.group())
        if access is not None:
            yield Finding("sensitive_access", where, scale * (1.0 if directive else 0.75), detail)
        yield Finding("sensitive_path", where, 1.0, detail)
    if secret is not None and (access or send):
        yield Finding("secret_access", where, scale * (1.0 if directive else 0.5))
    elif hits.get("words", index) is not None:
        yield Finding("secret_words", where)
    if hits.get("carry", index) is not None:
        yield from _carry(sentence, doc.lower[start:end], where, scale, hits.inputs, _entry(doc, start))


def _kept_back(lower: str, start: int, end: int) -> bool:
    """Is every verb of sending in the sentence negated ("read from the keychain and never sent")?"""
    negated = [m.span() for m in _NEGATED_SEND.finditer(lower, start, end)]
    if not negated:
        return False
    sends = SEND_VERBS.pattern.finditer(lower, start, end)
    return all(any(a <= m.start() < b for a, b in negated) for m in sends)


def _destination(lower: str, first: re.Match[str] | None, start: int, end: int) -> bool:
    """An outside place named as one, not as the topic of a warning ("warned about external recipients")."""
    if first is None:
        return False
    matches = (first, *EXTERNAL_STRONG.pattern.finditer(lower, first.end(), end))
    return any(not _TOPIC.search(lower, start, m.start()) for m in matches)


def _carry(
    sentence: str, lowered: str, where: str, scale: float, inputs: frozenset[str], entry: str | None = None
) -> Iterator[Finding]:
    """Orders to put data into a parameter ("… into the 'sidecar' argument"), by what they carry."""
    for match in INTO_PARAMETER.pattern.finditer(lowered):
        if match.group().startswith(_FILLED):
            filled = _filled(sentence, match, inputs, entry)  # "`ctx` is …: fill it with …"
            if filled is None:
                continue
            named, quoted = None, filled
        else:
            subject = match.group(3)  # "the `extra` field must contain ..."
            if subject is None and not _ordered_fill(sentence, match.start()):
                continue
            named, quoted = match.group(1) or subject, match.group(2)
            if quoted is not None and sentence[match.start(2) : match.end(2)] not in inputs:
                continue  # a quoted word that is not one of this tool's parameters
        clause_start = lowered.rfind(";", 0, match.start()) + 1
        clause_end = lowered.find(";", match.end())
        clause = lowered[clause_start : clause_end if clause_end != -1 else len(lowered)]
        if any(words.pattern.search(clause) for words in (ANY_PATH, SECRETS, CONVERSATION)):
            yield Finding("param_carry", where, scale)
        elif (named or quoted or "") in SPARE_NAMES:
            yield Finding("param_carry", where, 0.6 * scale)


def _ordered_fill(sentence: str, at: int) -> bool:
    """A verb of filling before the parameter named at ``at`` that is not only its description: "the
    thread passed in `messages`" says what the input holds (a participle after a noun), "pass the
    thread in `messages`" or "the thread must be passed in `messages`" asks for it."""
    verbs = list(_FILL_VERBS.finditer(sentence, max(0, at - 200), at))
    if verbs and _DESCRIBED.search(sentence, max(0, at - 60), at):
        verbs = verbs[:-1]
    return bool(verbs)


def _entry(doc: Doc, start: int) -> str | None:
    """The input whose docstring entry the sentence at ``start`` stands in (the nearest before it, in
    the same field and at most 400 characters back)."""
    field_start = doc.starts[max(0, bisect_right(doc.starts, start) - 1)]
    entries = list(_ENTRY.finditer(doc.text, max(field_start, start - 400), start))
    return next((name for name in entries[-1].groups() if name), None) if entries else None


def _filled(
    sentence: str, match: re.Match[str], inputs: frozenset[str], entry: str | None = None
) -> str | None:
    """The parameter a fill order names, or the one its "it" points back to: quoted earlier in the same
    sentence, or the input whose docstring entry the sentence stands in ("@param {string} ctx …")."""
    if match.group(4) is not None:
        name = sentence[match.start(4) : match.end(4)]
        return name if name in inputs else None
    earlier = [m.group(1) for m in _QUOTED.finditer(sentence, 0, match.start())]
    return next((name for name in [*earlier, entry] if name in inputs), None)


def shell_findings(doc: Doc) -> Iterator[Finding]:
    for match in islice(doc.finditer(_SHELL), MATCH_BUDGET):
        yield Finding("shell_payload", doc.where(match.start()))
