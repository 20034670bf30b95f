"""Referrals (issue 18): an order that sends the model *to* another tool runs that tool down for nobody.

Squatting runs other tools down so that this one is chosen instead. A deprecation note that names
the tool to use meanwhile ("the v1 API is retired; for v1 clusters use legacy_status") has a run-down
word and another tool in one sentence, but its order points at that tool: nobody is sent to a tool
they were just told is broken, so the defect belongs to something else (an API, a version, a flag).
What separates the two is where the order sends the model, read from the words right before each
mention of another tool: a positive order there ("use", "call", "switch to", "fall back to", "help
with") makes the sentence a referral, unless that order is negated ("do not use", "never call") or
the sentence also sends the model to this tool ("route it here", "use this one"). The same order
in the passive, with the other tool as its subject ("<peer> from the ops server can be used for that
if the user asks"), is a referral too, unless it is hedged ("could be used only as a last resort").

``OWN_LIMIT`` is the other half of a migration path: a sentence that says what *this* tool does not
cover ("is not read by this tool", "this server no longer handles …") hands that part to the tool
it names; the retired thing is outside this tool, not a defect of the peer. ``remedy`` reads the
same path when the defect has a subject of its own: "the winter endpoint is broken this week, so
for December query <peer>" names what is broken in a clause before the order, and the peer is
what to use meanwhile. A pronoun there may stand for the peer ("its scheduler is deprecated; call
<peer>"), and a defect after the peer's order is said of the call ("call <peer>; its mode is
broken"): both stay defects of the peer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from toolpool.vetting.screener._guard import compiled

__all__ = ["NOBODY", "OWN_LIMIT", "referral", "remedy", "sent_to_this"]

_LIMITED = r"(?:read|support|handl|cover|serv|pars|accept|index|manag|process|understand)\w*"
_THIS = r"this\s+(?:tool|server|function|endpoint|command|plugin|integration|connector|version|release)"
OWN_LIMIT = compiled(
    rf"\b(?:not|no\s+longer)\s+(?:\w+\s+)?{_LIMITED}\s+(?:by|in)\s+{_THIS}\b|\b{_THIS}\s+"
    rf"(?:does\s+not|doesn't|no\s+longer|cannot|can't|will\s+not|won't)\s+(?:\w+\s+)?{_LIMITED}\b|"
    rf"\boutside\s+(?:the\s+)?scope\s+of\s+{_THIS}\b"
)
_BEFORE = 48  # characters read before a mention: an order verb and its article
# An order whose object is the mention that follows it.
_TOWARD = compiled(
    r"(?<![\w-])(?P<verb>use|call|run|try|invoke|query|consult|"
    r"switch\s+to|fall\s+back\s+to|turn\s+to|go\s+to|"
    r"refer\s+(?:them\s+|it\s+|the\s+\w+\s+)?to|help\s+(?:them\s+|the\s+\w+\s+)?with|"
    r"(?:hand|pass|send|point)\s+(?:it\s+|them\s+|the\s+\w+\s+)?(?:over\s+)?to|"
    # the other tool as the means of an order: "book it with <peer>", "file them through <peer>"
    r"\w+\s+(?:it|them|the\s+\w+)\s+(?:with|via|through|using))\s+"
    r"(?:the\s+|an?\s+|their\s+)?[`'\"]?$"
)
# A negation governing that verb: "do not use", "never call", "rather than fall back to".
# A subject that is no one makes the order a ban: "no call of any length should go to", "nobody may run".
NOBODY = r"\b(?:no|nothing|nobody|none)\b[^.;:]{0,40}?\b(?:should|must|may|shall|can|will|is\s+to|are\s+to)\s+(?:ever\s+)?"
_NEGATED = compiled(
    r"\b(?:not|never|don't|no|nor|avoid|stop|without|than|refuse\w*|instead\s+of)\s+(?:\w+\s+)?$|"
    + NOBODY
    + "$"
)
# A tool's name ("notes_sync", "maps.route"), and a use of it offered in the passive right after it,
# past a place it sits at ("from the ops server", "on the fleet host").
_IDENTIFIER = compiled(r"[`'\"]?[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+[`'\"]?")
_USED = compiled(
    r"(?:\s+(?:from|on|in|at|of|via|under)\s+(?:the\s+|an?\s+|its\s+|their\s+)?(?:[\w-]+\s+){0,2}?[\w-]+)?,?"
    r"\s+(?:can|may|could|might)\s+(?:also\s+|still\s+|always\s+)?be\s+(?:used|called|run|invoked|consulted|"
    r"queried|tried)\b(?!\s+(?:only|solely|just|at\s+most|sparingly)\b)"
)
# The same sentence sending the model to this tool: a referral that also claims the call is not one.
_TO_THIS = compiled(
    r"\b(?:use|call|pick|choose|prefer|favou?r|select|default\s+to|stick\s+with|go\s+with)\s+"
    r"(?:this(?:\s+\w+)?|us|me)\b|\bthis\s+one\b|"
    # "route every job here", "page saves go here" (not "obsolete here": a place, not a destination)
    r"\b(?:route|send|direct|bring|keep|stay|answer|go|point|use|do)\w*\s+(?:[\w-]+\s+){0,3}?here\b|"
    r"\b(?:rather\s+than|over|instead\s+of)\s+(?:them|those|these|the\s+others?|any\s+others?|it)\b"
)


def referral(sentence: str, mentions: Iterable[int], own: str = "") -> bool:
    """Does ``sentence`` (lower case) send the model to another tool mentioned at one of ``mentions``
    (offsets into it), and not to this tool (``own``: its name, in lower case)?"""
    if _TO_THIS.search(sentence) or (own and _to_own(sentence, own)):
        return False
    for at in mentions:
        if _put_to_use(sentence, at):
            return True
        order = _TOWARD.search(sentence, max(0, at - _BEFORE), at)
        negated = order is not None and _NEGATED.search(sentence, max(0, order.start() - 64), order.start())
        if order is not None and order.end() == at and not negated:
            return True
    return False


def _put_to_use(sentence: str, at: int) -> bool:
    """The tool named at ``at`` as the subject of a use offered in the passive: "<peer> can be used for
    that", "<peer> on the ops server may be called instead" (not "should be used only …")."""
    name = _IDENTIFIER.match(sentence, at)
    return name is not None and _USED.match(sentence, name.end()) is not None


def sent_to_this(sentence: str) -> bool:
    """Does ``sentence`` (lower case) send the model to this tool ("use this one", "route it here")?"""
    return _TO_THIS.search(sentence) is not None


def _to_own(sentence: str, own: str) -> bool:
    """This tool named as the object of an order ("use cert_status for v1beta1 clusters")."""
    for found in re.finditer(re.escape(own), sentence):
        order = _TOWARD.search(sentence, max(0, found.start() - _BEFORE), found.start())
        if order is not None and order.end() == found.start():
            return True
    return False


# Where one clause ends and the next begins: punctuation, or a consequence ("…, so use …").
_CLAUSE_END = compiled(r"[;:,.]\s|\s(?:so|therefore|hence|thus)\s|\s[-\u2013\u2014]\s")
_PRONOUN = compiled(r"\s*(?:(?:and|but|so|then)\s+)?(?:it|its|they|their|them|those|these|he|she|his|her)\b")


def remedy(sentence: str, peer_at: int, defects: Iterator[re.Match[str]]) -> bool:
    """Is the peer at ``peer_at`` sent to as the remedy for ``defects`` said of something else, each
    in an earlier clause of ``sentence`` whose subject is named (not a pronoun)?"""
    if not referral(sentence, (peer_at,)):
        return False
    found = False
    for defect in defects:
        if defect.start() > peer_at or _CLAUSE_END.search(sentence, defect.end(), peer_at) is None:
            return False
        starts = [end.end() for end in _CLAUSE_END.finditer(sentence, 0, defect.start())]
        if _PRONOUN.match(sentence, starts[-1] if starts else 0):
            return False
        found = True
    return found
