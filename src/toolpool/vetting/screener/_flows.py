"""Data flows: the user's or model's data sent to an outside place, in one sentence (issue 18).

A flow needs a verb of transfer (``FLOW``, the trigger), something worth having and a destination
(a link, an address, a host, a payee). A destination the person owns or chose ("the host you
configure") keeps only a hint of a flow, and one the sentence holds to the person's own by "only"
(``BOUND_TO_OWN``) none: no other place is left for the data. A link or address given as a
parameter's default or example is where a call sends by itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolpool.vetting.screener._consent import CONSENT_DROPPED
from toolpool.vetting.screener._doc import Doc, Part
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import ANY_PATH, CONVERSATION, SECRETS, vocab
from toolpool.vetting.screener._wording import (
    BARE_SECRETS,
    BOUND_TO_OWN,
    CREDENTIAL_SLOT,
    DESTINATIONS,
    FLOW_OBJECTS,
    OBJECTS,
    ORDER,
    PAYMENT_DESTINATION,
    PERSONAL,
    PERSONAL_DATA,
    PERSONS_CONTENT,
    PERSONS_OWN,
    PROTECTED,
)

__all__ = [
    "FLOW",
    "PRESET",
    "PRESET_DESTINATION",
    "STORE",
    "carries",
    "covets",
    "flow",
    "is_valuable",
    "persons_records",
    "preset_carries",
    "sending",
    "sends",
    "to_its_issuer",
]

# (plain: its source is written into another pattern)
_SEND = re.compile(
    r"\b(?:send|sent|post|posted|ship|shipped|deliver|mirror|forward|upload|transmit|relay|archive|"
    r"submit|export|hand|pass|publish|expos|resend|echo|"
    r"beacon|report|sync|push|stream|carry|carrying|include|included|paste|copy|duplicate|embed|attach|"
    r"summari[sz]e|put|grant|shar(?:e|es|ed|ing)\b)\w*\b"
)
# A negation right before a verb that ends what it does: "no longer include", "stops sending".
_ENDED = compiled(
    r"\b(?:no\s+longer|not|never|n't|stop(?:s|ped)?|cease[sd]?\s+to)\s+(?:(?!only\b|just\b|merely\b)\w+\s+)?$"
)
# A negation that governs the verb after it, past one adverb or a verb joined by "or": "never forwards",
# "don't pass … on", "does not knowingly upload", "never sell or pass on" (§4ca). Not "never forget to
# upload" nor "don't wait and send": the negation is of another verb.
_DENIED_VERB = compiled(
    r"(?:\b(?:not|never|no\s+longer)|n't|\bstop(?:s|ped)?|\bceased?\s+to)\s+"
    r"(?:(?!only\b|just\b|merely\b|but\b)\w+\s+)?(?:(?:or|nor)\s+)?$"
)
# Another place named beside the denial: "never sent anywhere except …", "… instead, send it to …".
_ELSEWHERE = compiled(
    r"\b(?:instead|except|other\s+than|apart\s+from|besides|save\s+for|only\s+to|but\s+to)\b"
)
# Kept elsewhere: leaving only with a destination named ("backed up to notes-backup.io").
STORE = r"\bback(?:s|ed|ing)?\s+up\b|\bstor(?:e|es|ed|ing)\b"
# Any verb of transfer, for a flow to a literal destination ("cc'd to", "routed to", "written to").
_TRANSFER = (
    _SEND.pattern
    + "|"
    + STORE
    + r"|\b(?:rout|writ|wrote|b?cc|remit|deposit)\w*|\b(?:wir(?:e|es|ed|ing)|pa(?:y|ys|id|ying)|logged|logging)\b"
)

FLOW = vocab(
    _TRANSFER,
    "send|sent|post|ship|deliver|mirror|forward|upload|transmit|relay|archiv|beacon|"
    "report|sync|push|stream|carr|includ|paste|cop|duplicat|embed|attach|summar|put|submit|export|hand|"
    "pass|publish|expos|resend|echo|rout|writ|wrote|cc|bcc|remit|deposit|wire|wires|wired|wiring|pay|pays|"
    "paid|paying|back|stor|grant|share|shares|shared|sharing|logged|logging",
)

# A link or address given as a parameter's default or example: where the call sends by itself.
PRESET_DESTINATION = vocab(r"(?:https?|ftp|wss?)://|@[a-z0-9-]+\.", "://|@")
PRESET = compiled(r"\.(?:default|const|examples?)(?:\[\d+\])?$")
# Why data would leave, in words that honest tools rarely need.
_PURPOSE = compiled(
    r"\b(?:for|to\s+(?:keep|improve|help))\s+(?:\w+\s+){0,3}?(?:backup|analytics|telemetry|tuning|quality|"
    r"assurance|archiv\w*|insights?|research|monitoring|auditing|review|"
    r"training|improvement|accuracy|debugging|recovery|breach\s+checks|dashboards?|personali[sz]ation)\b|"
    r"\bso\s+(?:the|our)\s+team\b|\balso\b|\badditionally\b|\bquietly\b|\bsilently\b|\bas\s+part\s+of\s+each\b"
)


# A credential held to the service that issued it: "sent only to the provider's token endpoint", or
# "reads DATAHUB_TOKEN …; it is sent only to https://api.datahub.example.com" (a label of the host
# names the credential in the same sentence). The service the tool works with is no outside place.
_ONLY_TO = compiled(r"(?<!\bnot\s)\bonly\s+(?:to|with)\s+")
_ISSUER = compiled(
    r"(?:the\s+)?(?:provider|service|issuer|vendor|platform|identity\s+provider|idp|authori[sz]ation\s+server)'s\s+"
    r"(?:own\s+)?(?:[\w-]+\s+){0,2}?(?:endpoints?|api|servers?|hosts?|urls?)\b"
)
_HOST = compiled(r"(?:[a-z][a-z0-9+.-]{1,15}://)?((?:[a-z0-9-]{1,63}\.){1,6}[a-z]{2,24})\b")
_GENERIC_LABELS = frozenset(
    {"api", "www", "auth", "login", "oauth", "example", "com", "net", "org", "io", "app"}
)
_CREDENTIAL = r"[ _-]?(?:api[ _-]?)?(?:token|key|secret|password|credentials?)s?\b"


def to_its_issuer(sentence: str) -> bool:
    """A credential the sentence says goes only to the service that issued it (said, not ordered)."""
    if ORDER.search(sentence):
        return False
    for only in _ONLY_TO.finditer(sentence):
        if _ISSUER.match(sentence, only.end()):
            return True
        host = _HOST.match(sentence, only.end())
        if host is None:
            continue
        labels = set(re.split(r"[.-]", host.group(1))) - _GENERIC_LABELS
        rest = sentence[: host.start()] + " " + sentence[host.end() :]
        if any(
            len(label) >= 3 and re.search(rf"\b{re.escape(label)}{_CREDENTIAL}", rest) for label in labels
        ):
            return True
    return False


# A place named by its owner ("to the account's own webhook endpoints", "into the customer's own
# bucket"): the possessive says whose the destination is, not what goes there.
_OWNERS_PLACE = compiled(r"\b(?:to|into|at|on)\s+(?:the\s+|their\s+|its\s+)?(?:[\w-]+(?:'s|s')\s+)?own\b")


def carries(doc: Doc, prop: str) -> bool:
    """Does a property's own text (its description, title …) ask for the user's or model's data? A
    preset link or address is where the data goes, not what it is ("…/oauth/token" names an endpoint;
    ``preset_carries`` reads the value on its own terms)."""
    return any(
        p.prop == prop and not p.name and is_valuable(p.text.lower()) and not _preset_place(p)
        for p in doc.parts
    )


def _preset_place(part: Part) -> bool:
    """A default, constant or example that is one link or one address, and nothing else."""
    value = part.text.strip().lower()
    return bool(
        PRESET.search(part.where)
        and not any(c.isspace() for c in value)
        and PRESET_DESTINATION.pattern.search(value)
    )


def preset_carries(doc: Doc, prop: str, value: str) -> bool:
    """Does a call that sends by itself (a destination preset in ``prop``) carry something worth having:
    named in the property's own text, in the preset value ("…@host_with_full_transcript"), or in
    another input asked to hold a sensitive file or the conversation (an input for a plain API key
    beside a preset endpoint is the service's own)?"""
    if carries(doc, prop) or is_valuable(value.lower().replace("_", " "), bare_secrets=False):
        return True
    return any(
        p.prop not in (None, prop)
        and not p.name
        and p.where.startswith("inputSchema")
        and (ANY_PATH.pattern.search(p.text.lower()) or CONVERSATION.pattern.search(p.text.lower()))
        for p in doc.parts
    )


def is_valuable(sentence: str, *, bare_secrets: bool = True) -> bool:
    """Does the sentence name the user's or model's data, a sensitive file or secrets?"""
    return bool(
        OBJECTS.search(sentence)
        or ANY_PATH.pattern.search(sentence)
        or SECRETS.pattern.search(sentence)
        or (bare_secrets and BARE_SECRETS.search(sentence))
    )


def covets(sentence: str) -> bool:
    """Data a lie about the destination would be told for: the conversation, secrets, a sensitive file.
    The person's own records (a ticket's subject, a requester's name) sent to the place the person chose
    ("the webhook URL you enter") are what such a tool is for."""
    return bool(
        CONVERSATION.pattern.search(sentence)
        or SECRETS.pattern.search(sentence)
        or ANY_PATH.pattern.search(sentence)
        or BARE_SECRETS.search(sentence)
    )


def persons_records(sentence: str) -> bool:
    """A send to a destination the person chose, carrying nothing ``covets`` names."""
    return bool(PERSONS_OWN.search(sentence)) and not covets(sentence)


def _denied_throughout(sentence: str) -> bool:
    """Every verb of transfer in the sentence denied right before it, and no other place named."""
    verbs = [m.start() for m in FLOW.pattern.finditer(sentence)]
    return (
        bool(verbs)
        and all(_DENIED_VERB.search(sentence, max(0, at - 60), at) for at in verbs)
        and _ELSEWHERE.search(sentence) is None
    )


def sends(sentence: str) -> bool:
    """A verb of sending that is not ended by a negation ("no longer include …" is data kept back)."""
    return next(sending(sentence), None) is not None


def sending(text: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """Each verb of sending in ``text[start:end]`` that no negation right before it ends."""
    for match in _SEND.finditer(text, start, len(text) if end is None else end):
        if not _ENDED.search(text, 0, match.start()):
            yield match


def flow(sentence: str) -> tuple[str, float] | None:
    if _denied_throughout(sentence):
        return None  # "we never pass a customer's address to advertisers" is a promise (§4ca)
    payload = _OWNERS_PLACE.sub(" ", sentence)  # "to the account's own endpoints" says whose the place is
    personal = PERSONAL.search(payload) or PERSONAL_DATA.search(payload)
    valuable = personal or is_valuable(payload) or FLOW_OBJECTS.search(payload) is not None
    valuable = valuable or PERSONS_CONTENT.search(payload) is not None  # by itself 0.6: a file host
    if valuable and PAYMENT_DESTINATION.search(sentence):
        return ("data_flow", 1.0)
    if PROTECTED.search(sentence):  # "keep secrets out of the URL; put them in `headers`, unlogged"
        sentence = CREDENTIAL_SLOT.sub(" ", sentence)
    if not (valuable and DESTINATIONS.search(sentence)):
        return None
    ordered_past = _PURPOSE.search(sentence) or CONSENT_DROPPED.search(sentence)  # … or past their approval
    if BOUND_TO_OWN.search(sentence) and not ordered_past:
        return None
    if to_its_issuer(sentence) and not ordered_past:
        return None
    if PERSONS_OWN.search(sentence):  # still a hint: "the host you configure" can be a lie …
        return ("data_flow", 0.6) if ordered_past or covets(payload) else None
    if personal or ORDER.search(sentence) or ordered_past:
        return ("data_flow", 1.0)
    return ("data_flow", 0.6)
