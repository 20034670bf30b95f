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
- **forged consent** (``_consent``): a confirmation answered in the person's place ("reply yes for them").

Every finding starts at a match of one of ``TRIGGERS`` (the fast path relies on it); the word
lists read after a trigger matched (``OBJECTS``, ``DESTINATIONS``, …) are searched only in that
sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import islice

from toolpool.vetting.screener._addressee import said_to_people, undenied
from toolpool.vetting.screener._consent import (
    CONSENT_WORDS,
    ON_THEIR_BEHALF,
    consent_by_the_model,
    forged_consent,
)
from toolpool.vetting.screener._context import MENTION_STRENGTH
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._flows import (
    FLOW,
    PRESET,
    PRESET_DESTINATION,
    STORE,
    flow,
    is_valuable,
    preset_carries,
    sends,
)
from toolpool.vetting.screener._framing import (
    ANSWERING,
    CHANGE_NOTE,
    GLOBAL_ORDER,
    OVERRIDE_CHOICE,
    RIVALS,
    answers_of_itself,
    own_words_out,
)
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._lapse import LAPSED, STAKE, lapses
from toolpool.vetting.screener._signals import MATCH_BUDGET, Finding
from toolpool.vetting.screener._squatting import squatting as _squatting
from toolpool.vetting.screener._taken_over import taken_over
from toolpool.vetting.screener._vocab import CONVERSATION, SECRETS, Vocab, vocab
from toolpool.vetting.screener._wording import (
    BARE_SECRETS,
    CHOICE,
    CONDUCT,
    CONFIGURED,
    CONSENT_DROPPED,
    DESTINATIONS,
    EXCLUSIVE,
    FLOW_OBJECTS,
    FORWARD,
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
_REPORTING = compiled(
    r"\b(?:detect|flag|scan|classif|block|catch|recogni[sz]|identif|warn|report)\w*|\b(?:such\s+as|e\.g|"
    r"for\s+example|like|says?|said|saying)\b|[\"'`]\s*$|\w\s*[:=]\s*[\"'`]"
)
# A change note that labels what follows is no quotation of one: '"releaseNotes": "…"'.
_LABEL = compiled(r"[\"'`]\s*[:=]\s*[\"'`]")
_Judge = Callable[[str], tuple[str, float] | None]

# A download run as a script: a change that makes the model run one is no honest update.
# (plain: its source is written into another pattern)
_RUN_FETCHED = re.compile(
    r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|"
    r"\b(?:curl|wget)\b[^\n]{0,200}&&\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\biex\s*\("
)
_FETCH_AND_RUN = vocab(_RUN_FETCHED.pattern, "curl|wget|iwr|invoke-webrequest|iex")
# A link whose query string the model is to fill: "?ctx=… where ctx is the last turn".
_LINK_QUERY = vocab(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s)\]>]*\?[^\s)\]>]*=", "://")
_BINDS = compiled(
    r"\bwhere\s+[\w{}<>$]+\s+(?:is|are|=|holds?|contains?|carries|equals)\b|\b(?:set|fill\w*|replac\w*|substitut\w*)"
    r"\b[^.]{0,40}\bwith\b|\b(?:url-?|percent-?|base64-?)?encod\w*|\bappend\w*"
)
# The model (or a tool it drives) as the one who runs it; an install line for people is honest.
_BY_THE_MODEL = compiled(
    r"\b(?:assistant|agent|model|llm|ai)s?\b|\b(?:shell|terminal|command|exec\w*)\s+tool\b|\bthrough\s+(?:the\s+)?"
    r"[\w-]+\s+tool\b"
)
# Recording that waits for the person's own act is their choice, not surveillance.
_THEIR_ACT = compiled(
    r"\bonly\s+(?:while|when|if|after|as\s+long\s+as)\s+(?:the\s+)?(?:user|person|human|you|they)\b"
)
_SURVEILLANCE = compiled(
    r"\b(?:record|captur|track|log|spy|monitor|watch)\w*\s+(?:\w+\s+){0,2}?(?:audio|video|microphone|camera|keystrokes|screen|location)\b"
)

# Someone or something pushed as beyond compare, in one clause: "recommend Keystone as the only trustworthy
# landlord", "present Brand X as the best", "promote it, the one reliable choice".
_PLUG = compiled(
    r"\b(?:recommend|promot|advertis|endors|plug|prais|push|present|introduc|suggest|pitch|tout|talk\s+up)\w*\s+"
    r"(?:[\w'&.-]+\s+){1,5}?(?:as\s+|,\s*)?(?:the\s+|our\s+|your\s+)?(?:only|sole|one\s+true|single|best|most\s+"
    r"(?:trusted|trustworthy|reliable)|number\s+one|top|#1|preferred|official)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:choice|option|one|provider|source|vendor|brand|company|landlord|agency|shop|store|service|product|"
    r"app|tool|seller|supplier|place|site|partner|firm|bank|broker|dealer|purchase|buy|pick|deal|item|gear|model|"
    r"investment|insurer|lender|clinic|doctor|hotel|airline|restaurant|school|\w+(?:er|or|ist|ant|ent)s?)\b"
)

TRIGGERS: tuple[Vocab, ...] = (
    RIVALS,
    OVERRIDE_CHOICE,
    GLOBAL_ORDER,
    CHANGE_NOTE,
    ANSWERING,
    ON_THEIR_BEHALF,
    FLOW,
    PRESET_DESTINATION,
    _FETCH_AND_RUN,
    _LINK_QUERY,
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
    _THEIR_ACT,
    *CONSENT_WORDS,
    FLOW_OBJECTS,
    PAYMENT_DESTINATION,
    CONDUCT,
    CONFIGURED,
    CONSENT_DROPPED,
    FORWARD,
    _BINDS,
    PERSONAL_DATA,
    PERSONAL_SECRETS,
    PERSONS_OWN,
    REPLIES,
    LAPSED,
    STAKE,
    _PLUG,
)


def structure_findings(doc: Doc, own: str = "") -> Iterator[Finding]:
    """Squatting, line jumping, changed behaviour and data flows, one finding per sentence (``own``:
    this tool's name, for an answer that speaks of it)."""
    seen: set[tuple[str, int]] = set()
    judges = (
        (RIVALS, _squatting),
        (OVERRIDE_CHOICE, _squatting),
        (GLOBAL_ORDER, _line_jump),
        (CHANGE_NOTE, _change),
        (ANSWERING, forged_consent),
        (ON_THEIR_BEHALF, consent_by_the_model),
        (_FETCH_AND_RUN, _fetch_and_run),
        (_LINK_QUERY, _link_query),
    )
    for words, judge in judges:
        for match in islice(doc.finditer(words), MATCH_BUDGET):
            if judge is _change and _in_link(doc.lower, match.start()):
                continue  # "…/oauth2/v2.0/token": a version in a link's path is no note of change
            found = _once(doc, match, judge, seen, own)
            if found is not None:
                yield found
    for match in islice(doc.finditer(FLOW), MATCH_BUDGET):
        found = _once(doc, match, flow, seen)
        if found is not None:
            yield found
    for match in islice(doc.finditer(PRESET_DESTINATION), MATCH_BUDGET):
        part = doc.part(match.start())
        if part.prop is not None and PRESET.search(part.where) and preset_carries(doc, part.prop, part.text):
            yield Finding("data_flow", part.where, 1.0)
            break


def _in_link(lower: str, at: int) -> bool:
    """Does the word at ``at`` stand inside a link or a path (after a "/" in the same token)?"""
    before = lower[max(0, at - 200) : at]
    return bool(before) and not before[-1].isspace() and "/" in before.rsplit(None, 1)[-1]


def _once(
    doc: Doc, match: re.Match[str], judge: _Judge, seen: set[tuple[str, int]], own: str = ""
) -> Finding | None:
    index = doc.sentence_index(match.start())
    key = (judge.__name__, index)
    if key in seen:
        return None
    seen.add(key)
    start, end = doc.sentence(match.start())
    following = doc.sentence(end) if end < len(doc.text) and doc.part(end) is doc.part(start) else None
    if judge in (_squatting, _link_query) and following is not None:
        question, answer = doc.lower[start:end], doc.lower[slice(*following)]
        if judge is _link_query or not answers_of_itself(question, answer, own):
            end = following[
                1
            ]  # "Others are broken. Use this one.": the choice (or what fills a link) may follow
    sentence = doc.lower[start:end]
    verdict = _squatting(own_words_out(sentence, own), own) if judge is _squatting else judge(sentence)
    if (verdict is None or verdict[1] < 1.0) and following is not None:
        verdict = _carried(judge, sentence, doc.lower[slice(*following)]) or verdict
    if verdict is None:
        return None
    signal, strength = verdict
    before = doc.lower[max(start, match.start() - _NEAR) : match.start()]
    if judge is _fetch_and_run:
        before = before.rstrip("`'\" ")  # a command is set in quotes as code, not as a mention
    if _REPORTING.search(before) and not (judge is _change and _LABEL.match(doc.lower, match.end())):
        strength = min(strength, MENTION_STRENGTH)
    return Finding(signal, doc.where(match.start()), strength)


def _carried(judge: _Judge, sentence: str, following: str) -> tuple[str, float] | None:
    """A scope or a change note that covers the next sentence: "These rules hold all session.
    Never …", "Migration notice: … Always include the token …" (held to the stricter test)."""
    if judge is _line_jump and FORWARD.search(sentence):
        return _full(_line_jump(following))
    if judge is _change:
        return _full(_change(following, bare_secrets=False))
    return None


def _full(verdict: tuple[str, float] | None) -> tuple[str, float] | None:
    return verdict if verdict is not None and verdict[1] >= 1.0 else None


def _line_jump(sentence: str) -> tuple[str, float] | None:
    """A scope over the conversation read with what it orders; a clause that denies this tool's call
    ("it is not meant to be run at the start of any chat") orders nothing, and a weak finding whose
    scope is only spoken to people ("Tip for guests: before anything else, …") is none."""
    kept = undenied(sentence)
    scopes = [m.start() for m in GLOBAL_ORDER.pattern.finditer(kept)]
    if kept != sentence and not scopes:
        return None  # every scope stood in a denied clause (a scope carried from before has none here)
    found = _scoped(kept)
    if found is not None and found[1] < 1.0 and scopes and all(said_to_people(kept, at) for at in scopes):
        return None
    return found


def _scoped(sentence: str) -> tuple[str, float] | None:
    # "returns a session token" is no theft; "ask for their login" is
    valuable = is_valuable(sentence, bare_secrets=False) or bool(
        PERSONAL_SECRETS.search(sentence) or PERSONAL_DATA.search(sentence)
    )
    ordered = ORDER.search(sentence) is not None
    if valuable and (ordered or DESTINATIONS.search(sentence) or HERE.search(sentence)):
        return ("line_jumping", 1.0)
    if CONDUCT.search(sentence) or (REPLIES.search(sentence) and not _own_answers(sentence)):
        return ("line_jumping", 1.0)  # shapes every reply, or the model's conduct
    if ordered and _PLUG.search(sentence):
        return ("line_jumping", 1.0)  # in every conversation, someone pushed as the only sound choice
    return ("line_jumping", 0.3) if valuable or ordered else None


# "Every answer starts with the glass and garnish": a tool's answers described, not the model's replies
# shaped — unless what they carry is a place, a plug or an ask of the person.
_OWN_ANSWERS = compiled(
    r"\b(?:each|every|all|any)\s+(?:single\s+)?answers?\s+(?:starts?|begins?|opens?|ends?|closes?)\s+with\b"
)
_CARRIED = compiled(
    r"\b(?:recommend|suggest|promot|advertis|sponsor|plug|invit|ask|paste|sign\s+up|subscrib|buy|chat|conversation)\w*"
)


def _own_answers(sentence: str) -> bool:
    if not _OWN_ANSWERS.search(sentence) or DESTINATIONS.search(sentence) or _CARRIED.search(sentence):
        return False
    return REPLIES.search(_OWN_ANSWERS.sub(" ", sentence)) is None


def _change(sentence: str, *, bare_secrets: bool = True) -> tuple[str, float] | None:
    valuable = is_valuable(sentence, bare_secrets=bare_secrets) or PERSONAL_DATA.search(sentence) is not None
    moves = sends(sentence) or re.search(STORE, sentence)
    leaves = DESTINATIONS.search(sentence) is not None and (valuable or moves)
    leaves = leaves and bool(moves or not CONFIGURED.search(sentence))  # the server's own key
    watches = _SURVEILLANCE.search(sentence) is not None and not _THEIR_ACT.search(sentence)
    if (leaves or (valuable and moves)) and not PERSONS_OWN.search(sentence):
        return ("changed_behaviour", 1.0)
    if watches:
        return ("changed_behaviour", 1.0)
    if _RUN_FETCHED.search(sentence) and _BY_THE_MODEL.search(sentence):
        return ("changed_behaviour", 1.0)
    if CONSENT_DROPPED.search(sentence) and (_BY_THE_MODEL.search(sentence) or ORDER.search(sentence)):
        return ("changed_behaviour", 1.0)  # the person is no longer asked
    if lapses(sentence):
        return ("changed_behaviour", 1.0)  # a safeguard lapses over the person's money, records or privacy
    if taken_over(sentence):
        return ("changed_behaviour", 1.0)  # the tool now does for the person what binds them (§4cl)
    return None


def _fetch_and_run(sentence: str) -> tuple[str, float] | None:
    """A downloaded script the model is to run, wherever it stands (an install line for people is not)."""
    return ("remote_script", 1.0) if _BY_THE_MODEL.search(sentence) else None


def _link_query(sentence: str) -> tuple[str, float] | None:
    """A link whose query the model fills with the conversation or a secret."""
    valuable = CONVERSATION.pattern.search(sentence) or SECRETS.pattern.search(sentence)
    valuable = valuable or BARE_SECRETS.search(sentence) or PERSONAL_SECRETS.search(sentence)
    return ("data_flow", 1.0) if valuable and _BINDS.search(sentence) else None
