"""Outflows said as facts, not orders (issue 18, batches X and Y): side copies and publication.

A poisoned definition need not order a send: it can state one. Two shapes, each read in one sentence
wherever it stands (the description, a property's description, a title, a default):

- **a side copy**: each or every item the tool handles "is also written / copied / mirrored / sent to" a literal
  place — a link, an address, a host with or without a port or a scheme ("cache.example.io:6379").
  A copy on the side of the tool's job, to a place nobody chose. Not one: a place the person
  configured or chose ("the Redis URL you configure"), a copy the person switches on ("when telemetry
  is on", "opt-in"), anonymous counts, or a copy said not to happen ("is never sent to …").
- **publication**: the person's identity (full names, ID numbers, the data of ``_wording``'s
  person-nouns) posted, listed or shown on a public place (a public page, board, channel, roster or
  site, "publicly"). Not one: anonymised or aggregate figures, a post the person opts into, or a
  publication denied ("never shown on the public page").

- **a passive send** (issue 18, batch AA): what is worth having — the conversation, secrets, the
  person's data or history — "is / are / gets [then, automatically …] sent / posted / forwarded … to" a
  literal place, said as a fact in the impersonal voice ("these details, together with the conversation
  so far, are posted to desk.example.com/intake"). Not one: the person's own place ("the address you
  type"), an opt-in, a send denied ("is never forwarded to"), a send held to its issuer ("only to
  api.x.com"), a file name ("exported to notes.json"), or a host named like this tool (its own service).

All report ``data_flow``: the person's or the tool's data leaving for a place of someone else's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._flows import to_its_issuer
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._vocab import CONVERSATION, SECRETS
from toolpool.vetting.screener._wording import (
    BARE_SECRETS,
    BOUND_TO_OWN,
    OBJECTS,
    PERSONAL,
    PERSONAL_DATA,
    PERSONAL_SECRETS,
    PERSONS_OWN,
)

__all__ = ["outflow_findings"]

# Every shape holds one of these (a cheap test of the whole document first).
_GATE = compiled(r"\balso\b|\bas\s+well\b|\bin\s+addition\b|\bmirror|\breplicat|\bduplicat|\bpublic")
_COPY_VERB = (
    r"(?:written|copied|mirrored|sent|forwarded|uploaded|synced|synchroni[sz]ed|replicated|pushed|posted|"
    r"streamed|logged|duplicated|relayed|shipped|exported|saved|stored|cached|indexed|reported|delivered)"
)
# The copy on the side: "is also written to", "are mirrored to", "gets copied as well to".
_SIDE_COPY = compiled(
    r"\b(?:is|are|gets?|will\s+be|being|get)\s+(?:also\s+|additionally\s+|silently\s+|quietly\s+){0,2}"
    r"(?:(?:also|additionally)\s+" + _COPY_VERB + r"|(?:mirrored|replicated|duplicated))"
    r"(?:\s+as\s+well)?\s+(?:\w+\s+){0,3}?(?:to|into|on|onto|at)\s+|"
    r"\b" + _COPY_VERB + r"\s+(?:as\s+well|in\s+addition)\s+(?:\w+\s+){0,2}?(?:to|into|on|onto|at)\s+|"
    r"\ba\s+(?:second\s+)?(?:copy|duplicate)\s+(?:\w+\s+){0,6}?(?:is|are|goes|go)\s+(?:also\s+)?"
    r"(?:\w+\s+)?(?:to|into|on|onto|at)\s+"
)
# A literal place right after it: a link, an address, an IP or a host (a port allowed, no scheme needed).
_LITERAL_PLACE = compiled(
    r"[`'\"<(]?(?:[a-z][a-z0-9+.-]{1,15}://\S+|[\w.+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+|"
    r"(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b|(?:[a-z0-9-]{1,63}\.){1,6}[a-z]{2,24}(?::\d{1,5})?(?![\w-]))"
)
# The person's own switch or an anonymous count: a copy they chose or one that carries nobody.
_OPTED = compiled(
    r"\bopt(?:s|ed)?[\s-]?in\b|\b(?:when|if|only\s+if|once|while)\s+(?:the\s+)?(?:\w+\s+){0,3}?(?:is|are)\s+"
    r"(?:turned\s+|switched\s+)?(?:on|enabled)\b|\b(?:if|when|once)\s+(?:you|the\s+(?:user|person|admin\w*))\s+"
    r"(?:\w+\s+)?(?:enable|turn|switch|opt|choose|chose|tick|allow)\w*|\banonymi[sz]ed\b|\banonymous\b|"
    r"\baggregated?\b"
)
# A copy or a publication said not to happen: "is never also sent", "not posted publicly".
_DENIED = compiled(r"\b(?:never|not|no|nothing|nobody|none|neither|nor|n't|without)\b")
_PUBLIC_PLACE = compiled(
    r"\b(?:on|to|in|onto|at)\s+(?:the\s+|a\s+|an\s+|its\s+)?(?:[\w-]+\s+){0,2}?public\s+(?:[\w-]+\s+){0,2}?"
    r"(?:page|board|channel|roster|site|website|feed|wall|list|forum|space|gallery|noticeboard|repo\w*|"
    r"directory|leaderboard|timeline|group|sheet|link)s?\b|\bpublicly\b|\bfor\s+(?:everyone|anyone|all)\s+to\s+see\b"
)
_PUBLISH = compiled(
    r"\b(?:post|posts|posted|posting|publish\w*|display\w*|show|shows|shown|showing|list|lists|listed|listing|"
    r"put|puts|shar(?:e|es|ed|ing)|print\w*|pin|pins|pinned|add|adds|added|upload\w*)\b"
)
# Who someone is: full names and ID numbers beside the nouns of ``_wording``.
_IDENTITY = compiled(
    r"\b(?:full|legal|real|first\s+and\s+last)\s+names?\b|\b(?:student|employee|staff|patient|member|customer|"
    r"national|tax|social\s+security|passport)\s+(?:ids?|numbers?)\b|\bnames?\s*,?\s+(?:and\s+)?(?:ids?|"
    r"id\s+numbers?|addresses|phone\s+numbers|dates?\s+of\s+birth)\b"
)
# The copy is of everything the tool handles: "each key", "every converted row", "all uploads".
_EVERY = compiled(r"\b(?:each|every|all|any|everything|whatever)\b")
_CLAUSE = compiled(r";|:\s")  # a clause ends at ";" or ": " (not in "host:6379", "https://")
# The passive voice of a send: "are posted to", "is then forwarded on to", "get automatically relayed to"
# (only verbs of ``_flows.FLOW``, so the fast path's triggers still hold every document this reads).
_PASSIVE = compiled(
    r"\b(?:is|are|gets?|will\s+be|being|be)\s+(?:(?:then|also|automatically|immediately|always|now|routinely|"
    r"directly|securely|instantly|simply)\s+){0,2}(?:sent|posted|forwarded|uploaded|transmitted|relayed|shipped|"
    r"pushed|streamed|submitted|passed|handed|delivered|routed|shared|reported|synced|mirrored|copied)\s+"
    r"(?:(?:on|over|along|across|off|out)\s+)?(?:to|into|with|at)\s+"
)
_PASSIVE_GATE = compiled(
    r"\b(?:is|are|gets?|be)\s+(?:\w+\s+){0,2}?(?:sent|posted|forwarded|uploaded|"
    r"transmitted|relayed|shipped|pushed|streamed|submitted|passed|handed|delivered|routed|shared|reported|"
    r"synced|mirrored|copied)\b"
)
# Worth a lie about the destination: the conversation, secrets, a person's data, what they browsed.
_HISTORY = compiled(
    r"\b(?:browsing|search|location|purchase|watch|viewing|listening|call|reading)\s+histor(?:y|ies)\b|"
    r"\bcookies\b|\bkeystrokes?\b"
)
# A file, not a host: "exported to notes.json".
_FILE_ENDINGS = frozenset(
    [
        "csv",
        "json",
        "txt",
        "pdf",
        "md",
        "xml",
        "html",
        "htm",
        "xlsx",
        "xls",
        "doc",
        "docx",
        "zip",
        "log",
        "db",
        "sqlite",
        "yaml",
        "yml",
        "ics",
        "png",
        "jpg",
        "jpeg",
        "gif",
    ]
)
_HOST_LABELS = compiled(r"[a-z0-9]+")


def outflow_findings(doc: Doc) -> Iterator[Finding]:
    """One ``data_flow`` finding for the first sentence that states a side copy, a publication or a
    passive send."""
    gated = _GATE.search(doc.lower) is not None
    passive = _PASSIVE_GATE.search(doc.lower) is not None
    if not (gated or passive):
        return
    for start, end in doc.sentences():
        part = doc.part(start)
        if part.name:
            continue
        sentence = doc.lower[start:end]
        clauses = _CLAUSE.split(sentence)
        if (
            gated
            and _GATE.search(doc.lower, start, end)
            and any(_side_copy(clause) or _published(clause) for clause in clauses)
        ):
            yield Finding("data_flow", part.where, 1.0)
            return
        if passive and any(_passive_send(clause, sentence, _own_name(doc)) for clause in clauses):
            yield Finding("data_flow", part.where, 1.0)
            return


def _passive_send(clause: str, sentence: str, own: str) -> bool:
    """Something worth having stated to be sent to a literal place, in the passive, nobody's choice."""
    for match in _PASSIVE.finditer(clause):
        place = _LITERAL_PLACE.match(clause, match.end())
        if place is None or _not_a_host(place.group(), own):
            continue
        before = clause[: match.start()]
        if not _worth_having(before):
            continue
        if _DENIED.search(before[-30:]) or _DENIED.search(clause, match.start(), match.end()):
            continue
        if PERSONS_OWN.search(clause) or _OPTED.search(clause) or BOUND_TO_OWN.search(clause):
            continue
        if not to_its_issuer(sentence):
            return True
    return False


def _own_name(doc: Doc) -> str:
    """This tool's name, as the document holds it (its words name its own service)."""
    return next((part.text.lower() for part in doc.parts if part.where == "name"), "")


def _worth_having(text: str) -> bool:
    return bool(
        CONVERSATION.pattern.search(text)
        or SECRETS.pattern.search(text)
        or BARE_SECRETS.search(text)
        or PERSONAL_SECRETS.search(text)
        or PERSONAL.search(text)
        or PERSONAL_DATA.search(text)
        or OBJECTS.search(text)
        or _HISTORY.search(text)
    )


def _not_a_host(place: str, own: str) -> bool:
    """A file name ("notes.json"), or a host named like this tool (its own service: ``deepl_translate``
    sending to api.deepl.com)."""
    host = place.strip("`'\"<(").split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0].rsplit("@", 1)[-1]
    labels = _HOST_LABELS.findall(host)
    if labels and labels[-1] in _FILE_ENDINGS:
        return True
    own_words = {w for w in re.split(r"[^a-z0-9]+", own.lower()) if len(w) >= 4}
    return any(label in own_words for label in labels[:-1])


def _side_copy(clause: str) -> bool:
    """A copy of what the tool handles stated to go to a literal place nobody chose."""
    for match in _SIDE_COPY.finditer(clause):
        if _LITERAL_PLACE.match(clause, match.end()) is None:
            continue
        before = clause[: match.start()]
        if not _EVERY.search(before):
            continue  # some content copied: ``_flows`` reads whose it is (the person's, or "average rents")
        if _DENIED.search(before[-30:]) or _DENIED.search(clause, match.start(), match.end()):
            continue
        if not (PERSONS_OWN.search(clause) or _OPTED.search(clause)):
            return True
    return False


def _published(clause: str) -> bool:
    """The person's identity posted on a public place, not anonymised, not denied, not their own pick."""
    place = _PUBLIC_PLACE.search(clause)
    if place is None or _PUBLISH.search(clause) is None:
        return False
    if not (_IDENTITY.search(clause) or PERSONAL.search(clause) or PERSONAL_DATA.search(clause)):
        return False
    return not (_DENIED.search(clause) or _OPTED.search(clause) or PERSONS_OWN.search(clause))
