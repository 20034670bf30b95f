"""Steered away (issue 18): a named peer barred, or its whole job claimed for this tool.

The mirror of ``_referred``. A referral sends the model *to* a peer; squatting sends it *away*
from one, and the peer's defect comes in any words ("misreads PDFs", "frozen builds", "skip the
interlocks"), so the defect is not what is read. What is read is where the sentence sends the
model, with a peer (a name the pool knows from another server, written as an identifier) in it:

- **the peer barred** (here): the object of a negated order of choosing or calling ("do not select
  them", "never book through <peer>", "avoid <peer>", "leave <peer> unused") or the subject of a
  passive prohibition ("<peer> shouldn't be used", "it is not to be trusted", "neither be
  selected"); a pronoun stands for the peer only when the peer is the subject before it;
- **its job claimed** (``_claimed``): the peer is the subject of a clause and a later order sends
  the model to this tool for all of that work.

Honest text does other things with peers: sends the model to them (a referral: the sentence is
left to ``_referred``), splits the work ("<peer> covers weather; call this tool for closures"),
or states a condition ("if <peer> times out, retry here").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import lru_cache

from toolpool.vetting.screener._claimed import CLAUSE_END, TOOL_NOUN, claimed, clause, sent_here, subject
from toolpool.vetting.screener._context import MENTION_STRENGTH, position
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._peer_index import lowered_names
from toolpool.vetting.screener._referred import NOBODY, referral
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._wording import RUN_DOWN

__all__ = ["steered_findings"]

# A peer written as a tool's name: with "_", "." or "-" inside (plain words such as a server called
# "time" are too common to read as a tool).
_SHAPED = compiled(r"[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+")
# Verbs of choosing or calling a tool (base form: "never calls" is said of something, not ordered).
_CHOOSE = (
    r"(?:use|call|select|pick|choose|invoke|run|trust|try|query|consult|prefer|touch|recommend|suggest|offer|"
    r"rely\s+on|bother\s+with|fall\s+back\s+(?:on|to)|switch\s+to|turn\s+to|go\s+(?:to|with)|"
    # any verb whose instrument is the peer: "book through <peer>", "file them with <peer>"
    r"\w+\s+(?:through|via|using|with))"
)
_CHOSEN = (
    r"(?:used|called|selected|picked|chosen|invoked|run|trusted|tried|queried|consulted|preferred|touched|"
    r"recommended|suggested|offered|relied\s+(?:on|upon))"
)
# An order not to: "do not", "never", "are not to". Said of someone ("this tool does not call", "it
# cannot use") it states a fact, and it is not read.
_NOT = (
    rf"(?:\b(?:do|should|must|shall|may)\s*(?:not|n't)\s+|\bnever\s+|\b(?:is|are)\s+not\s+to\s+|{NOBODY})"
    r"(?:(?:ever|again|even)\s+)?"
)
_KEEP_AWAY = r"\b(?:avoid(?:\s+using)?|stop\s+using|quit\s+using|keep\s+away\s+from|stay\s+away\s+from|steer\s+clear\s+of)"
_BARRED_BEFORE = compiled(
    rf"(?:{_NOT}(?:be\s+)?{_CHOOSE}|{_KEEP_AWAY}|\b(?:never|not)\s+(?:to|through|via|with|by))\s+(?:the\s+|either\s+(?:of\s+)?|any\s+of\s+|both\s+(?:of\s+)?)?"
    r"[`'\"]?$"
)
# The peer left out: "leave <peer> unused", "leave <peer> out of it".
_LEFT_BEFORE = compiled(r"\bleave\s+(?:the\s+)?[`'\"]?$")
_LEFT_AFTER = compiled(r"[`'\"]?\s+(?:\w+\s+)?(?:out|alone|unused|aside|untouched|be)\b")
# The same order with a pronoun for its object.
_PRONOUNS = r"(?:them|those|these|either|both|it)\b"
_BARRED_PRONOUN = compiled(
    rf"{_NOT}{_CHOOSE}\s+(?:either\s+(?:of\s+)?|any\s+of\s+|both\s+(?:of\s+)?)?{_PRONOUNS}|{_KEEP_AWAY}\s+{_PRONOUNS}|"
    rf"\bleave\s+{_PRONOUNS}\s+(?:\w+\s+)?(?:out|alone|unused|aside|untouched|be)\b|"
    # "neither be selected", "none of them should be used"
    rf"\b(?:neither|none)(?:\s+of\s+(?:them|those|these))?\s+(?:(?:should|must|may|can|is|are)\s+)?(?:be\s+)?{_CHOSEN}\b"
)
# A passive prohibition whose subject is the peer (or a pronoun standing for it).
_BARRED_AFTER = compiled(
    r"\b(?:should|must|shall|may|can|ought\s+to|is|are)\s*(?:not|n't|never|no\s+longer)\s+(?:to\s+)?(?:ever\s+)?"
    rf"(?:be\s+){_CHOSEN}\b|\b(?:is|are|was|were|ha(?:s|ve)\s+been)\s+(?:now\s+)?(?:banned|barred|blacklisted|blocked|"
    r"forbidden|prohibited|off[\s-]limits)\b|\b(?:should|must|is|are)\s+(?:to\s+)?be\s+(?:avoided|shunned|skipped|bypassed|left\s+"
    r"(?:alone|out|unused|aside))\b"
)
_PRONOUN_SUBJECT = compiled(r"\s*(?:(?:and|but|so)\s+)?(?:they|those|these|both|either|it)\b")
# This tool named between the peer and a pronoun: then "it" may stand for this tool.
# A ban scoped to a part of the work: "for oven temperatures", "while a chair is moving" (not "for any").
_SCOPE = compiled(
    r"[`'\"]?\s+(?:for|on|in|with|when|while|during|before|until|unless|if)\s+"
    r"(?!(?:any|every|all|each|anything|everything)\b)"
)
_THIS = rf"\bthis\s+(?:{TOOL_NOUN}"


def steered_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    """One ``squatting`` finding per sentence that bars a named peer or claims its whole job."""
    if not peers:
        return
    names = lowered_names(peers) - {own.lower()}
    named = {word for word in _SHAPED.findall(doc.lower) if word in names}
    if not named:
        return
    seen: set[int] = set()
    for name in sorted(named):
        for found in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", doc.lower):
            start, end = doc.sentence(found.start())
            if start in seen:
                continue
            seen.add(start)
            sentence = doc.lower[start:end]
            if end < len(doc.text) and doc.part(end) is doc.part(start):
                sentence += doc.lower[slice(*doc.sentence(end))]  # "<peer> is stale. Use this one."
            at = _steers(sentence, _mentions(sentence[: end - start], named), own.lower())
            if at is not None:
                reported = position(doc.text, start, start + at) == "mention"
                yield Finding("squatting", doc.where(start), MENTION_STRENGTH if reported else 1.0)


def _mentions(sentence: str, named: Collection[str]) -> list[tuple[int, int]]:
    return sorted(
        (found.start(), found.end())
        for name in named
        for found in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", sentence)
    )


def _steers(sentence: str, mentions: list[tuple[int, int]], own: str) -> int | None:
    """Where ``sentence`` bars a peer at one of ``mentions`` or claims its job, if it does."""
    if not mentions or referral(sentence, (at for at, _ in mentions), own):
        return None  # the model is sent to a peer: a referral, the mirror of this
    for at, end in mentions:
        if _LEFT_BEFORE.search(sentence, max(0, at - 20), at) and _LEFT_AFTER.match(sentence, end):
            return at
        if _BARRED_BEFORE.search(sentence, max(0, at - 60), at) and _ban(sentence, end, own):
            return at
        barred = _barred_after(sentence, end) if subject(sentence, at) else None
        if barred is not None and _ban(sentence, barred, own):
            return at
    pronoun = _pronoun_barred(sentence, mentions, own)
    if pronoun is not None and _ban(sentence, pronoun.end(), own):
        return pronoun.start()
    for at, end in mentions:
        if subject(sentence, at) and claimed(sentence, end, own):
            return at
    return None


def _ban(sentence: str, end: int, own: str) -> bool:
    """A ban (its object or verb ends at ``end``) that is not only a caution: unscoped ("do not select
    them"), or scoped to a part ("do not call it for oven temperatures") with the peer run down or the
    model sent here in the sentence."""
    if not _SCOPE.match(sentence, end):
        return True
    return RUN_DOWN.search(sentence) is not None or sent_here(sentence, end, own)


def _barred_after(sentence: str, end: int) -> int | None:
    """Where a passive prohibition after the peer ends, in its clause or the next one opened by a
    pronoun for it."""
    found = _BARRED_AFTER.search(sentence, end, clause(sentence, end)[1])
    if found is not None:
        return found.end()
    following = CLAUSE_END.search(sentence, end)
    if following is None or not _PRONOUN_SUBJECT.match(sentence, following.end()):
        return None
    found = _BARRED_AFTER.search(sentence, following.end(), clause(sentence, following.end() + 1)[1])
    return found.end() if found is not None else None


def _pronoun_barred(sentence: str, mentions: list[tuple[int, int]], own: str) -> re.Match[str] | None:
    """A pronoun barred after the peers it stands for: the peer is the subject before it, and this
    tool (a tool's noun or a word of its name after "this") is not named in between (then "it" may be
    this tool)."""
    for at, end in mentions:
        if not subject(sentence, at):
            continue
        found = _BARRED_PRONOUN.search(sentence, end)
        if found is not None and not _this_tool(own).search(sentence, end, found.start()):
            return found
    return None


@lru_cache(maxsize=256)
def _this_tool(own: str) -> re.Pattern[str]:
    """This tool named after "this" (by a tool's noun or a word of its name), or "here". Kept by
    name: ``TOOL_NOUN`` makes it slow to compile (~1 ms), and ``re``'s own cache of 512 patterns
    is emptied between two tools by the patterns made of peer names."""
    words = "".join(f"|{re.escape(word)}" for word in re.split(r"[^a-z0-9]+", own) if len(word) >= 4)
    return re.compile(rf"{_THIS}{words})\b|\bhere\b")
