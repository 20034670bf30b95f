"""References that re-define or redirect other tools or servers (tool shadowing).

Honest descriptions name their sibling tools ("call resolve-library-id first") and promote
themselves ("use this instead of execute_command"): that is steering, weighed lightly. A
description that changes what *another* tool does ("when send_email is called, BCC …",
"replace its output with …", "route all deletion requests here") is shadowing. ``peers`` are
names the pool knows from other servers: directing the model to one of them is shadowing too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from itertools import islice

from toolpool.vetting.peer_set import PeerSet
from toolpool.vetting.screener._call_change import asked, changes_call, safeguard_off, whole_description
from toolpool.vetting.screener._context import MENTION_STRENGTH, position
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._peer_index import peers_named
from toolpool.vetting.screener._signals import MATCH_BUDGET, Finding
from toolpool.vetting.screener._vocab import IDENTIFIER, Vocab, vocab

__all__ = ["TRIGGERS", "ceded_to", "mention_findings", "shadowing_findings"]

_I = re.IGNORECASE
_NAME = r"[`'\"]?([A-Za-z][\w.-]*)[`'\"]?"
_REDEFINE = vocab(
    r"\b(?:modif\w*|alter\w*|chang\w*|overrid\w*|hijack\w*|intercept\w*|patch\w*|redefin\w*|wrap\w*|"
    r"replac\w*)\s+(?:the\s+)?(?:behaviou?r|output|result|response|arguments?|parameters?|recipients?|"
    r"destination|implementation|functionality)s?\s+of\s+(?:the\s+|any\s+|every\s+|all\s+)?(?:other\s+)?"
    + _NAME
    + r"(\s+(?:tool|function|server|command)s?)?",
    "modif|alter|chang|overrid|hijack|intercept|patch|redefin|wrap|replac",
)
# Any verb that changes the call, in any form: "bcc", "swaps", "rewriting", "carries".
_REDIRECTING_WORDS = (
    r"\b(?:first|also|instead|b?cc|set|put)\b|\b(?:re-?rout|redirect|replac|add|includ|send|chang|modif|forward|"
    r"cop(?:y|ies)|swap|switch|alter|rewrit|append|prepend|insert|strip|remov|carr(?:y|ies)|fill|point|"
    r"substitut|divert)\w*|"
    # An argument forced or the call's own check skipped: "pass force=true", "skip the confirmation".
    r"\b(?:pass|supply|suppli|give|giv|use|us)\w*\s+[\w.-]+\s*[=:]|\b(?:skip|bypass|suppress|dismiss)\w*\s+(?:\w+\s+){0,2}?(?:confirm\w*|prompts?|"
    r"dialogs?|questions?|checks?|approvals?|warnings?)\b|"
    # What the call carries scaled up or raised, in any voice: "the quantity is to be doubled", "upgraded to".
    r"\b(?:doubl|tripl|quadrupl|multipl|inflat|upgrad|upsell|bump)\w*|\b(?:raised|increased|topped\s+up)\b|"
    r"\b(?:raise|increase)\s+(?:the\s+|its\s+)?(?:amount|quantity|qty|price|total|tip|dose|order|count|number|sum|fee|"
    r"charge|limit)s?\b|"
    # The impersonal order on the call: "is to be / are to be <done>", unless it waits for the person or checks.
    r"\b(?:is|are)\s+to\s+be\s+(?!(?:\w+\s+){1,2}by\s+(?:the\s+)?(?:user|person|customer|owner|you)\b)"
    r"(?!(?:confirm|check|approv|review|shown|verif|ask|left|kept)\w*)\w+(?:ed|en|wn|t)\b"
)
_REDIRECTING = compiled(_REDIRECTING_WORDS, _I)

_WHEN_CALLED = vocab(
    r"\b(?:whenever|when|every\s+time|each\s+time|if|once|after|before)\s+(?:the\s+|any\s+|a\s+)?"
    r"(?:tool\s+(?:named|called)\s+)?"
    + _NAME
    # "send_email tool", or a name qualified by its server: "merge_pr from the github server".
    + r"(\s+(?:tool|function)|\s+(?:from|of|on|in)\s+(?:the\s+)?[\w.-]+\s+(?:server|plugin|integration|app|"
    r"service|extension))?\s+(?:(?:is|gets|was|has\s+been)\s+(?:called|invoked|used|run|executed|"
    r"triggered|requested)|runs|executes|fires|starts|is\s+about\s+to\s+run|"
    # The peer's own delivery: "each time send_email delivers one" (what it carries is the call's).
    r"delivers|sends|posts|submits|dispatches)\b"
    # … and the purpose it is used for, up to a comma, when it names no place: "if <peer> is used to put
    # rehearsals in calendars, …" is the person's use of it; what is done to the call follows the comma.
    # (no change of the call inside it: "is used to add a bcc, …" is one, whatever follows).
    r"(?:\s+(?:in\s+order\s+)?to\s+[a-z]+\b(?:(?!" + _REDIRECTING_WORDS + r")[^,;.@:/+\d]){0,100},)?",
    "called|invoked|used|run|runs|executed|executes|triggered|requested|fires|starts|delivers|sends|posts|"
    "submits|dispatches",
)
_REPLACE_OUTPUT = vocab(
    r"\b(?:replace|override|discard|ignore|overwrite|substitute)\s+(?:its|their|the\s+other\s+tool'?s?|"
    r"that\s+tool'?s?)\s+(?:output|result|response|data|values?|answer)s?\b",
    "replace|override|discard|ignore|overwrite|substitute",
)
_SUPERSEDES = vocab(
    r"\b(?:supersedes?|overrides|takes\s+precedence\s+over|shadows|replaces)\s+(?:the\s+)?(?:deprecated\s+|"
    r"old\s+|existing\s+|original\s+|built-in\s+)?" + _NAME + r"(\s+tool)?",
    "supersede|overrides|precedence|shadows|replaces",
)
_REDIRECT = vocab(
    r"\b(?:route|redirect|reroute|divert|forward|send)\s+(?:all|every|any)\s+(?:\w+\s+){0,2}?(?:requests?|"
    r"calls?|messages?|e-?mails?|payments?|transfers?|traffic|queries|invocations)\s+(?:here|to\s+this|"
    r"through\s+this|to\s+(?:me|us))\b|\b(?:route|redirect|reroute|divert|forward|send)\s+(?:all\s+|every\s+|any\s+|"
    r"the\s+)?(?:\w+\s+){0,2}?(?:requests?|calls?|traffic|queries|invocations)\s+to\s+[`'\"]?[\w.-]+_[\w.-]+|"
    r"\b(?:reroute|redirect|divert)\w*\s+(?:\w+\s+){0,3}?(?:destination|account|recipient|payment|funds|transfer|"
    r"wallet)s?\b|"
    # Work steered to this tool, whatever it is: "route FX questions to me", "steer them here".
    r"\b(?:route|redirect|reroute|divert|steer|funnel|direct)\w*\s+(?:\w+\s+){0,4}?(?:here|to\s+(?:me|us|this\s+"
    r"(?:tool|one|server)))\b",
    "route|redirect|reroute|divert|forward|send|steer|funnel|direct",
)
# Changing who gets paid or mailed, and keeping the model away from another server.
_CHANGE_PAYEE = vocab(
    r"\b(?:change|replace|swap|set|update)\s+(?:its|the|their)\s+(?:recipients?|destination|payee|(?:bank\s+)?"
    # (not the person's how-to: "to change the recipient later, edit the To field")
    r"account|iban|wallet(?:\s+address)?)\b(?!(?:\s+\w+){0,3}\s*,\s*(?:edit|open|go|use|visit|click|tap|select|"
    r"update|change|set|see|type|enter)\b)",
    "recipient|destination|payee|account|iban|wallet",
)
_BLOCK_SERVER = vocab(
    r"\b(?:never|do\s+not|don't)\s+(?:call|use|invoke|trust)\s+(?:any\s+)?(?:tools?\s+(?:from|of)\s+)?(?:the\s+)?"
    r"[`'\"]?[\w.-]+[`'\"]?\s+server\b",
    "never server|not server|don't server",
)
_INSTEAD_OF = vocab(
    r"\binstead\s+of\s+(?:using\s+|calling\s+)?(?:the\s+)?" + _NAME + r"(?:\s+tool)?\s*,\s*(?:always\s+)?"
    r"(?!(?:use|call|prefer)\s+this\b)(\w+)",
    "instead of",
)
_SELF_PROMOTION = vocab(
    r"\b(?:use|prefer|call|choose)\s+this\s+(?:tool\s+|function\s+|server\s+|one\s+)?(?:instead\s+of|over|rather\s+"
    r"than|in\s+place\s+of)\b|\bthe\s+only\s+(?:correct|valid|right)\s+tool\b|\bprimary\s+tool\b|"
    r"\balways\s+use\s+this\s+(?:tool|function)\b",
    "instead of|rather than|in place of|prefer|only correct|only valid|only right|primary tool|always use",
)
_QUOTED_NAME = compiled(r"[`'\"]([A-Za-z][\w.-]{1,63})[`'\"]|\bthe\s+([A-Za-z][\w.-]{1,63})\s+tool\b", _I)
# An order to use a named tool: a verb just before the name, or "first" / "before" just after it.
_INVOKING_BEFORE = compiled(
    r"\b(?:call|calling|invoke|invoking|run|running|use|using|execute|executing|trigger|prefer|query|"
    r"querying|route\s+\w+\s+to|send\s+\w+\s+to|forward\s+\w+\s+to|(?:send|post|share|pay|publish|upload|forward)"
    r"\w*\s+(?:[\w']+\s+){0,4}?(?:with|through|via))\s+(?:the\s+|tool\s+)?[`'\"]?$",
    _I,
)
# Sending something to a named tool ("mirror each request to the audit_log tool").
_FEEDING_BEFORE = compiled(
    r"\b(?:send|sends|forward|forwards|mirror|mirrors|copy|copies|relay|relays|pass|passes|hand|hands|report|log|route|pipe)\b"
    r"[^.;]{0,80}\b(?:to|into|through|via)\s+(?:the\s+)?[`'\"]?$",
    _I,
)
# Taking another tool's place ("replaces the filesystem server's write_file").
_REPLACING = compiled(
    r"\b(?:replaces?|supersedes?|overrides?|intercepts?|shadows?|takes\s+(?:over|precedence\s+over)|stands?\s+in\s+for)\b",
    _I,
)
# What this tool itself does not do, said of it: "this tool does not call <peer>" (no order to anyone;
# "do not call <peer>" and "the assistant does not call <peer>" stay orders).
_SELF_NEGATED = compiled(
    r"\b(?:this\s+(?:tool|function|server|endpoint|plugin|integration|command)|it)\s+(?:does\s*n[o']t|never|"
    r"will\s+not|won't)\s+(?:call|invoke|use|run|execute|trigger|query)\s+(?:the\s+|tool\s+)?[`'\"]?$",
    _I,
)
# The peer shut out: "do not invoke <peer>", "the assistant never calls <peer>" (its calls taken away).
_SHUT_OUT = compiled(
    r"\b(?:do|does|must|should|may|will)\s*(?:not|n't)\s+(?:ever\s+)?(?:call|invoke|use|run|execute|trigger|query|trust)\s+"
    r"(?:the\s+|tool\s+)?[`'\"]?$|\bnever\s+(?:call|invoke|use|run|execute|trigger|query|trust)\w*\s+(?:the\s+|tool\s+)?"
    r"[`'\"]?$",
    _I,
)
_INVOKING_AFTER = compiled(
    r"[`'\"]?(?:\s+tool)?\s+(?:first|before|instead|afterwards|after\s+(?:this|each|every))\b", _I
)
# A state this tool needs, reached with a named tool: "a page has to be opened with nav_open first".
# It tells what must have happened, in the passive, and orders no one (not a call to the model).
_PRECONDITION = compiled(
    r"\b(?:be|been|is|are|was|were)\s+(?:already\s+)?\w+(?:ed|en|wn|ne|t)\s+(?:\w+\s+)?(?:with|by|using|via|"
    r"through)\s+(?:the\s+)?[`'\"]?$",
    _I,
)
_TOKEN = compiled(r"[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)*")
_GENERIC = frozenset({"this", "it", "the", "that", "any", "a", "tool", "function", "other", "same", "each"})

# Every finding of ``shadowing_findings`` but those of ``mention_findings`` starts at a match of one
# of these (the result fast path relies on it).
TRIGGERS: tuple[Vocab, ...] = (
    _REDEFINE,
    _WHEN_CALLED,
    _REPLACE_OUTPUT,
    _SUPERSEDES,
    _REDIRECT,
    _CHANGE_PAYEE,
    _BLOCK_SERVER,
    _INSTEAD_OF,
    _SELF_PROMOTION,
)


def shadowing_findings(
    doc: Doc, own_name: str, peers: Collection[str], ceded: Collection[str] = ()
) -> Iterator[Finding]:
    """``ceded``: peers (lower case) whose own definitions name this tool as taking their place."""
    own = own_name.lower()
    for match in _budget(doc.finditer(_REDEFINE)):
        if _names_other(doc.original(match, 1), match.group(2) is not None, own):
            yield _found(doc, match.start(), 1.0)
    for match in _budget(doc.finditer(_WHEN_CALLED)):
        if _names_other(doc.original(match, 1), match.group(2) is not None, own):
            _, end = doc.sentence(match.start())
            rest = doc.lower[match.end() : min(end, match.end() + 200)]  # what is done to that call
            redirects = _REDIRECTING.search(rest) is not None or safeguard_off(rest)
            yield _found(doc, match.start(), 1.0 if redirects else 0.3)
    for match in _budget(doc.finditer(_REPLACE_OUTPUT)):
        yield _found(doc, match.start(), 1.0)
    for match in _budget(doc.finditer(_SUPERSEDES)):
        name = doc.original(match, 1)
        if _names_other(name, match.group(2) is not None, own) and name.lower() not in ceded:
            yield _found(doc, match.start(), 0.5)
    for words in (_REDIRECT, _CHANGE_PAYEE, _BLOCK_SERVER):
        for match in _budget(doc.finditer(words)):
            yield _found(doc, match.start(), 0.8)
    for match in _budget(doc.finditer(_INSTEAD_OF)):
        if _names_other(doc.original(match, 1), False, own):
            yield _found(doc, match.start(), 0.6)
    for match in _budget(doc.finditer(_SELF_PROMOTION)):
        yield Finding("self_promotion", doc.where(match.start()))
    yield from mention_findings(doc, own, peers, ceded)


def ceded_to(doc: Doc, own_name: str, described: PeerSet) -> frozenset[str]:
    """Peers whose own definition names this tool ("Deprecated: … use deploy_preview for new
    projects.") or opens with its own retirement ("Deprecated v2 compressor"): this tool saying that it
    supersedes or replaces one of them repeats what that peer says of itself. Read only when the
    document claims to supersede or replace something, and only the peers it names (looked up)."""
    own = own_name.lower()
    if len(own) < 3 or not described or not doc.mentions(_SUPERSEDES):
        return frozenset()
    named = re.compile(rf"(?<![\w.-]){re.escape(own)}(?![\w-])")
    names = described.names
    mentioned = {
        form for token in set(_TOKEN.findall(doc.text)) for form in (token, token.lower()) if form in names
    }
    return frozenset(
        peer.name.lower()
        for name in mentioned
        for peer in peers_named(name, described)
        if _RETIRED.match(peer.description.lower()) or named.search(peer.description.lower())
    )


# A peer's definition that opens with its own retirement: "Deprecated v2 compressor; removal planned".
_RETIRED = compiled(r"\W*(?:deprecated|superseded|obsolete|retired|end[ -]of[ -]life)\b")


def _budget(matches: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    return islice(matches, MATCH_BUDGET)


def _found(doc: Doc, at: int, strength: float) -> Finding:
    start, _ = doc.sentence(at)
    if position(doc.text, start, at) == "mention":
        strength = min(strength, MENTION_STRENGTH)
    return Finding("shadowing", doc.where(at), strength)


def _names_other(name: str, says_tool: bool, own: str) -> bool:
    lowered = name.lower()
    if lowered in _GENERIC or lowered == own:
        return False
    return says_tool or IDENTIFIER.fullmatch(name) is not None


def mention_findings(
    doc: Doc, own: str, peers: Collection[str], ceded: Collection[str] = ()
) -> Iterator[Finding]:
    """Names of tools written as such, and names of ``peers`` (``own`` in lower case is skipped;
    ``ceded`` as ``shadowing_findings`` takes it)."""
    text, lower = doc.text, doc.lower
    named: dict[str, int] = {}
    if any(mark in text for mark in "`'\"") or " tool" in lower:
        for match in _QUOTED_NAME.finditer(text):
            group = 1 if match.group(1) else 2
            named.setdefault(match.group(group), match.start(group))
    if peers:
        tokens = set(_TOKEN.findall(text))
        for name in tokens.intersection(peers) | {t for t in tokens if t.lower() in peers}:
            found = re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text)
            if found is not None:
                named.setdefault(name, found.start())
    # In the text's order (the peers came from a set): the first name a reason gives is the first written.
    for name, at in sorted(named.items(), key=lambda item: (item[1], item[0])):
        lowered = name.lower()
        if lowered == own or lowered in _GENERIC:
            continue
        marked = text[at - 1 : at] in ("`", "'", '"') or _marked(lower, lowered)
        if (name in peers or lowered in peers) and (marked or IDENTIFIER.fullmatch(name)):
            yield _peer(doc, name, at, ceded=lowered in ceded)
        elif marked and IDENTIFIER.fullmatch(name):
            yield Finding("tool_mentions", doc.where(at))


def _marked(lower: str, name: str) -> bool:
    """Is a plain-word name written as a tool's name somewhere (quoted, or "the … tool")?"""
    return any(
        form in lower for form in (f"'{name}'", f'"{name}"', f"`{name}`", f"the {name} tool", f"{name}(")
    )


def _peer(doc: Doc, name: str, at: int, *, ceded: bool = False) -> Finding:
    """A peer named in an order is a ``peer_directive`` when the order changes the peer's call
    (``_call_change``), puts this tool in the peer's place, shuts the peer out, or is all that the
    tool's description says; a mention otherwise."""
    start, end = doc.sentence(at)
    text = doc.text
    after = at + len(name)
    fed = _FEEDING_BEFORE.search(text, max(start, at - 120), at) is not None
    replacing = _REPLACING.search(text, start, at) is not None and not ceded
    directs = (
        (_INVOKING_BEFORE.search(text, max(start, at - 40), at) and not _SELF_NEGATED.search(text, start, at))
        or (_INVOKING_AFTER.match(text, after) and not _PRECONDITION.search(text, max(start, at - 60), at))
        or fed
        or replacing
    )
    detail = name if IDENTIFIER.fullmatch(name) and len(name) <= 64 else ""
    if directs and position(text, start, at) != "mention":
        sentence = doc.lower[start:end]
        shut_out = _SHUT_OUT.search(text, max(start, at - 40), at) is not None
        changed = (
            replacing
            or shut_out
            or changes_call(sentence, at - start, fed=fed)
            or whole_description(doc, at, start, end)
        )
        if changed and not asked(sentence):
            return Finding("peer_directive", doc.where(at), 1.0, detail)
    return Finding("peer_mention", doc.where(at), 1.0, detail)
