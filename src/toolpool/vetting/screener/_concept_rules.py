"""The English structures read over concepts, in any language (issue 18): ``concept_findings``.

Each string of a definition that ``foreign`` calls not English is cut into sentences; in each, the
concepts of ``_concepts`` that occur are collected beside anchors that need no language: a peer's
name (tool names stay in English), this tool's own name, a parameter's name, a link, an address or
a host. A class needs a combination, never one word:

- **shadowing**: a peer named, a condition on its call (WHEN or CALL) and a change (SET, REPLACE,
  SKIP, RAISE, TURN ON …, or a LIFT: "remove its time limit") after the peer's name: "when <peer> runs,
  replace its recipient";
- **squatting**: ONLY (or this tool named), a peer named or OTHER tools, and OBSOLETE, AVOID or
  NEVER: "use only <own>; <peer> is outdated";
- **line jumping**: BEFORE with OTHER or EVERY and a TOOL, under an order (MUST, ALWAYS); or START or
  EVERY with a CONVERSATION or a REPLY, an order and an act (TELL, SEND, CALL or a link);
- **exfiltration**: SECRET, PERSONAL or the CONVERSATION, SEND, a destination the person did not
  choose (a link or address, a peer, another parameter) and an order or a hiding (MUST, ALWAYS,
  EVERY, HIDE, or WITHOUT telling or asking: "without the chat's content" excludes, it does not
  hide); in a parameter's own description, the parameter is the destination, and a parameter whose own
  default is a literal place makes its description's "here" that place;
- **rug pull**: FROMNOW with NOLONGER, WITHOUT or LIFT (removed, cancelled, lifted) next to CONFIRM (a
  safeguard removed); or FROMNOW with SEND, the person's data and others (OTHER, a peer, a link): data
  leaving after approval;
- **concealment**: HIDE with the person (USER, TELL) and an act (SEND, CHANGE, CALL).

A sentence that denies (NOT) without an order or a hiding reports nothing ("<peer> is not changed").
The findings reuse the English signals (``_signals``), so the verdict logic does not change.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from toolpool.vetting.screener._categories import PRESET_FIELD
from toolpool.vetting.screener._concepts import (
    bare,
    concept_patterns,
    concepts_in,
    languages_of,
    loose,
    spelling,
)
from toolpool.vetting.screener._doc import Doc, Part
from toolpool.vetting.screener._gate import foreign, may_be_foreign
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._input_drop import PLACE
from toolpool.vetting.screener._peer_index import lowered_names
from toolpool.vetting.screener._signals import Finding

__all__ = ["concept_findings"]

# Sentence ends: . ! ? before a space or the end (not inside "v2.1" or a host), and the full stops,
# exclamation and question marks of CJK, Devanagari, Arabic and Urdu text, the full stops of
# Armenian, Ethiopic, Burmese and Khmer text, or a line break.
_SENTENCE = compiled(r"[.!?](?=\s|$)|[\u3002\uff01\uff1f\u0964\u0965\u061f\u06d4\u0589\u1362\u104b\u17d4\n]")
_SEMICOLON = compiled(r"[;\u061b\u1364\uff1b]")  # of Latin, Arabic, Ethiopic, CJK text
_IDENTIFIER = compiled(r"[a-z0-9_][a-z0-9_.-]*[a-z0-9_]")
# A peer's name that cannot be a word of the text ("send_sms", "geocode-v2", not "ppt" or "svg").
_NAMED = compiled(r"[_.\d-]")
_ORDER = frozenset({"MUST", "ALWAYS", "NEVER", "AVOID"})
_DATA = frozenset({"SECRET", "PERSONAL", "CONVERSATION"})
# An argument forced to a value, written as code in any language ("skip_photo_match=true").
_FORCED = compiled(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\s*[=:]\s*(?:true|false|none|null|0|1)\b")
_HEAD = 3  # characters after a peer's name where a TOOL is the peer's own noun ("<peer> tool")
_BUDGET = 20_000  # characters of text not in English read per definition
_SAMPLE = 1_500  # characters of it that tell its language
_AFTER = 40  # characters from "no longer" to the confirmation it lifts
_DENIED_CALL = 16  # characters from a negation to the call it denies ("not necessary must call")
_DENIED_AFTER = 8  # characters from a call to a negation after it (§4cj: "実行されません", "startet nicht")
_BEFORE = 12  # characters from a confirmation to a "no longer" written after it
_BESIDE = 3  # characters between OTHER and the TOOL it qualifies ("altro servizio", "other service")
_CLAUSE = compiled(
    r"[;,\u060c\u061b\u1363\u1364\u3001\uff0c\uff1b]"
)  # ; and , of Latin, Arabic, Ethiopic, CJK text


def concept_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    """The classes above, read in every string of ``doc`` that is not English (``own`` in lower case)."""
    if not may_be_foreign(doc.lower):
        return  # the cheap gate: an English definition in ASCII (most) is not read further
    parts = _foreign_parts(doc)
    if not parts:
        return
    sample = spelling("\n".join(p.text.lower() for p in parts)[:_SAMPLE])
    codes = languages_of(sample)
    marks = loose(codes)
    languages = [concept_patterns(code) for code in codes]
    names = frozenset(name for name in lowered_names(peers) if _NAMED.search(name)) - {own}
    inputs = frozenset(part.prop.lower() for part in doc.parts if part.prop is not None)
    placed = _placed(doc)
    reported: set[tuple[str, str]] = set()
    for part in parts:
        lower = spelling(part.text.lower())
        lower = bare(lower) if marks else lower
        sentences = [
            (text, frozenset().union(*(concepts_in(text, code) for code in codes)))
            for text in _sentences(lower)
        ]
        claim = own in _IDENTIFIER.findall(part.text.lower()) or any(
            "ONLY" in found for _, found in sentences
        )
        for sentence, found in sentences:
            clauses = _clause_concepts(sentence, codes)
            for signal in _classes(
                sentence, found, part, own, names, inputs, claim, languages, placed, clauses
            ):
                if (signal, part.where) not in reported:
                    reported.add((signal, part.where))
                    yield Finding(signal, part.where, 1.0)


def _foreign_parts(doc: Doc) -> list[Part]:
    """The strings not in English, up to ``_BUDGET`` characters in all (bounded time on a hostile
    schema of thousands of strings; the English rules still read every one)."""
    parts, left = [], _BUDGET
    for part in doc.parts:
        if left <= 0:
            break
        if not part.name and foreign(part.text):
            parts.append(part)
            left -= len(part.text)
    return parts


def _placed(doc: Doc) -> frozenset[str]:
    """The parameters whose own default (or constant) is a literal place: a link, an address, a host.
    Their descriptions speak of that place ("reports go here"), in any language."""
    return frozenset(
        part.prop
        for part in doc.parts
        if part.prop is not None
        and part.where.startswith("inputSchema")
        and PRESET_FIELD.search(part.where)
        and not part.where.endswith("]")  # an enum's or an example's value is offered, not set
        and PLACE.search(part.text) is not None
    )


def _clause_concepts(sentence: str, codes: Sequence[str]) -> tuple[frozenset[str], ...]:
    """The concepts of each clause of a sentence joined by semicolons; none when it has one clause."""
    clauses = _SEMICOLON.split(sentence)
    if len(clauses) < 2:
        return ()
    return tuple(frozenset().union(*(concepts_in(clause, code) for code in codes)) for clause in clauses)


def _sentences(text: str) -> Iterator[str]:
    start = 0
    for match in _SENTENCE.finditer(text):
        if match.end() - start > 1:
            yield text[start : match.end()]
        start = match.end()
    if len(text) - start > 1:
        yield text[start:]


def _classes(
    sentence: str,
    found: frozenset[str],
    part: Part,
    own: str,
    names: frozenset[str],
    inputs: frozenset[str],
    claim: bool,
    patterns: Sequence[dict[str, re.Pattern[str]]],
    placed: frozenset[str] = frozenset(),
    clauses: tuple[frozenset[str], ...] = (),
) -> Iterator[str]:
    """The classes of one sentence; ``claim``: its string calls this tool the only one, or names it;
    ``placed``: the parameters whose default is a literal place (a sentence of theirs points there);
    ``clauses``: the concepts of each clause when semicolons join several (§4bz: a scope orders the
    act of its own clause, not the person's ask of the next: "call only when asked; no need to read
    the rules at the start of every conversation")."""
    if not found:
        return
    words = set(_IDENTIFIER.findall(sentence))
    peer = not names.isdisjoint(words)
    others = peer or "OTHER" in found
    place = PLACE.search(sentence) is not None or (part.prop is not None and part.prop in placed)
    order = bool(found & _ORDER)
    # A named peer not to be called: the negation in the peer's own clause ("<peer> … do not use it"),
    # not in another one ("pick <peer> yourself; this tool only computes and saves nothing").
    denied_peer = peer and "CALL" in found and _peer_clause(sentence, names, patterns, ("NOT", "NOLONGER"))
    if others and ((claim and _run_down(found, order, denied_peer)) or _conceded(found, own in words)):
        yield "squatting"
    standing = _standing(sentence, found, place, patterns)
    # Data sent out is the sentence's act whichever clause holds it; a call or a telling may be the
    # person's own ask in the next clause.
    whole = not clauses or bool(found & {"SEND", "DISPATCH"})
    jumping = _line_jumping(found, place) if whole else any(_line_jumping(c, place) for c in clauses)
    if (standing or jumping) and not _call_denied(sentence, found, place, patterns):
        yield "line_jumping"
    if "FROMNOW" in found:
        # From a version on, done without asking, or the asking removed (and nothing denied: "… never
        # without asking", "the confirmation is not removed")
        denied = "NEVER" in found or _denied(sentence, patterns)
        lapses = ("NOLONGER",) * ("NOLONGER" in found) + tuple(
            lapse for lapse in ("WITHOUT", "LIFT") if lapse in found and not denied
        )
        if "CONFIRM" in found and lapses and _lifted(sentence, patterns, lapses):
            yield "safeguard_removed"
        elif "SEND" in found and found & (_DATA | {"USER"}) and (peer or place or "OTHER" in found):
            yield "changed_behaviour"
    hidden = "HIDE" in found or bool("WITHOUT" in found and found & {"TELL", "CONFIRM"})
    if "NOT" in found and not order and not hidden and _denied(sentence, patterns):
        return  # a denial, not an order: "<peer> is not changed", "nothing is sent"
    changed = found & {"CHANGE", "SEND", "LIFT"} or _FORCED.search(sentence) is not None
    shadowed = peer and "WHEN" in found and "CALL" in found and changed
    if shadowed and _peer_changed(sentence, names, own, patterns):
        yield "shadowing"
    # An imperative of sending (DISPATCH: "pošlji", "envíe", "отправь") is itself the order, towards
    # a literal place or a peer (another parameter is where the tool's own input goes).
    ordered = order or hidden or "EVERY" in found
    if found & _DATA and found & {"SEND", "DISPATCH"} and (ordered or "DISPATCH" in found):
        if place or peer or (ordered and not (inputs - {(part.prop or "").lower()}).isdisjoint(words)):
            yield "data_flow"
        elif ordered and part.prop is not None and part.where.startswith("inputSchema"):
            yield "param_carry"
    if "HIDE" in found and found & {"USER", "TELL"} and found & {"SEND", "CHANGE", "CALL"}:
        yield "secrecy"


def _peer_changed(
    sentence: str, names: frozenset[str], own: str, patterns: Sequence[dict[str, re.Pattern[str]]]
) -> bool:
    """In one clause (";" ends one): a peer's call as its condition and a change after the peer's
    name, with no TOOL or this tool's name between them ("when <peer> is called, this tool adds …"
    is this tool's own act)."""
    for clause in sentence.split(";"):
        for name in _IDENTIFIER.finditer(clause):
            if name.group() not in names:
                continue
            for language in patterns:
                if not (_has(language, "WHEN", clause) and _has(language, "CALL", clause)):
                    continue
                change = _first_unexcluded(language, ("CHANGE", "SEND", "LIFT"), clause, name.end())
                forced = _FORCED.search(clause, name.end())  # "skip_check=true": an argument set
                if forced is not None and (change is None or forced.start() < change):
                    change = forced.start()
                # "<peer> tool runs": a TOOL right after the peer's name is the peer's own noun
                after = name.end() + _HEAD
                if change is not None and not _between(language, clause, after, change, own):
                    return True
    return False


def _denied(sentence: str, patterns: Sequence[dict[str, re.Pattern[str]]]) -> bool:
    """A negation that is not only a "without" ("tanpa", "без"): that one excludes, it denies nothing."""
    for language in patterns:
        without = (
            {m.start() for m in language["WITHOUT"].finditer(sentence)} if "WITHOUT" in language else set()
        )
        if "NOT" in language and any(m.start() not in without for m in language["NOT"].finditer(sentence)):
            return True
    return False


def _call_denied(
    sentence: str, found: frozenset[str], place: bool, patterns: Sequence[dict[str, re.Pattern[str]]]
) -> bool:
    """The call itself denied, with nothing sent and no "always": a negation (NOT, or a NOLONGER form
    such as "no longer needed") just before a CALL, a MUST between them at most ("there is no need to
    call it before the chat starts", "ບໍ່ຈຳເປັນຕ້ອງເອີ້ນໃຊ້ກ່ອນ…", "looma baahna in la waco …"), or just
    after it where the language puts it there (§4cj: "実行されません", "startet nicht")."""
    if place or found & {"ALWAYS", "SEND", "DISPATCH"}:
        return False
    for language in patterns:
        if "CALL" not in language:
            continue
        calls = [(m.start(), m.end()) for m in language["CALL"].finditer(sentence)]
        for concept in ("NOT", "NOLONGER"):
            if concept not in language:
                continue
            for negation in language[concept].finditer(sentence):
                if any(
                    0 <= start - negation.end() <= _DENIED_CALL
                    or 0 <= negation.start() - end <= _DENIED_AFTER
                    for start, end in calls
                ):
                    return True
    return False


def _has(language: dict[str, re.Pattern[str]], concept: str, text: str) -> bool:
    return concept in language and language[concept].search(text) is not None


def _first(
    language: dict[str, re.Pattern[str]], concepts: tuple[str, ...], text: str, start: int
) -> int | None:
    found = [m.start() for c in concepts if c in language for m in [language[c].search(text, start)] if m]
    return min(found, default=None)


def _first_unexcluded(
    language: dict[str, re.Pattern[str]], concepts: tuple[str, ...], text: str, start: int
) -> int | None:
    """Like ``_first``, past the acts a "without" right before excludes (§4ch: "ohne Änderung", "bez zmian",
    "sem alterações" leave the peer's result as it was)."""
    if "WITHOUT" not in language:
        return _first(language, concepts, text, start)
    ends = {m.end() for m in language["WITHOUT"].finditer(text)}
    found = [
        m.start()
        for c in concepts
        if c in language
        for m in language[c].finditer(text, start)
        if not any(0 <= m.start() - end <= _BESIDE for end in ends)
    ]
    return min(found, default=None)


def _between(language: dict[str, re.Pattern[str]], text: str, start: int, end: int, own: str) -> bool:
    """This tool named, or a TOOL, between ``start`` and ``end``: it is the one acting. A TOOL beside
    OTHER ("for any other service", "per qualsiasi altro servizio") names other tools, not this one."""
    if bool(own) and own in text[start:end]:
        return True
    if "TOOL" not in language:
        return False
    others = [m.span() for m in language["OTHER"].finditer(text)] if "OTHER" in language else []
    for tool in language["TOOL"].finditer(text, start, end):
        if not any(
            tool.start() - _BESIDE <= stop and begin <= tool.end() + _BESIDE for begin, stop in others
        ):
            return True
    return False


def _lifted(sentence: str, patterns: Sequence[dict[str, re.Pattern[str]]], lapses: tuple[str, ...]) -> bool:
    """NOLONGER (or WITHOUT, from a version on) bears on CONFIRM: it comes shortly before ("no longer
    asks for consent", "from 2.4 … paid without asking") or just after ("確認不要"); "asks consent
    first, and no longer shares …" lifts nothing. A LIFT is the verb of its subject: it may stand
    further after the confirmation, in the same clause ("the confirmation asked before paying is
    removed"; not "… confirmation is kept; the night limit is removed", nor "the limit is removed;
    the confirmation stays")."""
    for language in patterns:
        if "CONFIRM" not in language:
            continue
        for concept in (c for c in lapses if c in language):
            after = 2 * _AFTER if concept == "LIFT" else _BEFORE  # a subject's words before its verb
            for lapse in language[concept].finditer(sentence):
                for confirm in language["CONFIRM"].finditer(sentence):
                    first, last = sorted((lapse, confirm), key=lambda m: m.start())
                    apart = (
                        concept == "LIFT" and _CLAUSE.search(sentence, first.end(), last.start()) is not None
                    )
                    if not apart and (
                        0 <= confirm.start() - lapse.end() <= _AFTER
                        or 0 <= lapse.start() - confirm.end() <= after
                    ):
                        return True
    return False


def _run_down(found: frozenset[str], order: bool, denied_peer: bool) -> bool:
    """Another tool called wrong or unsafe, or not to be used (a named one: "<peer> … do not use
    it", ``denied_peer``), or outdated under an order — or beside "only" this one: "other tools are
    outdated; send everything only here" needs no order word (other *formats* outdated name no TOOL)."""
    if found & {"WRONG", "AVOID", "NEVER"}:
        return True
    return denied_peer or ("OBSOLETE" in found and (order or {"ONLY", "TOOL"} <= found))


def _peer_clause(
    sentence: str,
    names: frozenset[str],
    patterns: Sequence[dict[str, re.Pattern[str]]],
    concepts: tuple[str, ...],
) -> bool:
    """A peer's name and one of ``concepts`` in one clause (";" ends one); a NOT that is a "without" is
    none (§4ch: "without change" denies no call)."""
    for clause in sentence.split(";"):
        if names.isdisjoint(_IDENTIFIER.findall(clause)):
            continue
        for language in patterns:
            without = (
                {m.start() for m in language["WITHOUT"].finditer(clause)} if "WITHOUT" in language else set()
            )
            for c in concepts:
                if c in language and any(m.start() not in without for m in language[c].finditer(clause)):
                    return True
    return False


def _conceded(found: frozenset[str], mine: bool) -> bool:
    """This tool picked even when the person names another ("… even if the user asks for <peer>");
    "even if the user has not installed <peer>" concedes no pick of theirs."""
    return "EVEN" in found and "USER" in found and (mine or "ONLY" in found) and "NOT" not in found


def _line_jumping(found: frozenset[str], place: bool) -> bool:
    """Before every other tool; or at the start of (or before) the conversation or a reply, an act
    towards the person (tell, send, call, a link) — the model's turn taken over, not this call's.
    A "never" alone orders no turn: "in every conversation the tool never asks for a password" is a
    promise about this tool (in French "ne … jamais" even carries a NOT)."""
    if "BEFORE" in found and "EVERY" in found and "OTHER" in found and found & {"TOOL", "CALL"}:
        return True
    if not (found & {"CONVERSATION", "REPLY"} and (found & {"TELL", "SEND", "CALL"} or place)):
        return False
    if found & {"START", "BEFORE"} and (found & {"EVERY", "USER"} or place):
        return True
    return bool(found & (_ORDER - {"NEVER"})) and bool(found & {"START", "EVERY"})


def _standing(
    sentence: str, found: frozenset[str], place: bool, patterns: Sequence[dict[str, re.Pattern[str]]]
) -> bool:
    """§4bf's standing order, which needs no order word: a scope that no call has (every conversation)
    over an act that serves someone else: a link carried into the replies, the person's secrets asked
    for or repeated, their other details asked for (§4bv), their confirmation done without. Denied it is none ("links are never added"); a
    NOT beside EVEN is a concession's ("even when the tool is not used"), not the act's denial."""
    if not ("EVERY" in found and "CONVERSATION" in found):
        return False
    plug = place and "REPLY" in found
    # The person's secrets asked for or repeated; the person's own details (a phone, an address) asked for (§4bv)
    secrets = bool(("SECRET" in found and found & {"TELL", "REPLY"}) or {"PERSONAL", "TELL", "USER"} <= found)
    unchecked = "WITHOUT" in found and "CONFIRM" in found
    if not (plug or secrets or unchecked):
        return False
    return "NEVER" not in found and ("EVEN" in found or not _denied(sentence, patterns))
