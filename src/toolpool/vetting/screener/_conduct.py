"""Conduct (issue 18): the model's conduct reshaped beyond this tool's own call, read compositionally.

Phrase lists learn the wording of the batches they were tuned on. This signal reads each sentence
(each schema string is a sentence of its own) for broad categories (``_categories``): who is
spoken to, how far the order reaches, which other tools it is about, whether the person is kept
unaware, whether data leaves, whether this tool claims to be the only one. Each is common in
honest text; a finding needs several in one sentence, weighed by ``POINTS`` up to ``FULL``:

- addressed x scope: "whoever reads this, on every turn, regardless of the request, …";
- addressed x other tools x run-down, avoidance or preference: squatting in any words;
- addressed x scope x a named call or another tool's call: line jumping and shadowing;
- the person kept unaware of something, when the definition addresses the model at all;
- an order set in an enum, a default or an example, where data belongs, not words to the model.

Honest look-alikes stay below ``FULL``: "call ``login`` on this server first" (siblings are not
rivals, a precondition has no scope), an official vendor saying so (no rival run down), a
changelog (no one addressed), a mail tool sending to a given address (no scope, nobody unaware).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from functools import lru_cache
from itertools import islice

from toolpool.vetting.screener._address import ADDRESSED, CLAUSE_START, ORDER_LABEL, ORDER_VERB
from toolpool.vetting.screener._addressee import undenied
from toolpool.vetting.screener._categories import (
    AVOID,
    BACK_REFERENCE,
    CALLED,
    CONSENT,
    DECEIVE,
    FIELD_SLOT,
    OTHER_TOOLS,
    PRECONDITION,
    PREFERENCE,
    PRESET_FIELD,
    RANK,
    RUN_DOWN_MORE,
    SIBLINGS,
    STEALTH,
    VALUABLE,
)
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._neighbours import SHORT, Lent, lent, scope_of
from toolpool.vetting.screener._referred import referral
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._unaware import unaware as _unaware
from toolpool.vetting.screener._vocab import IDENTIFIER
from toolpool.vetting.screener._wording import DESTINATIONS, REPLIES, RUN_DOWN

__all__ = ["FULL", "POINTS", "conduct_findings", "weighed"]

FULL = 4.0  # points of one sentence that make a finding (a hard signal: it drops alone)
# What each category adds to a sentence (addressed and scope come from their own tables).
POINTS: dict[str, float] = {
    "scope cap": 2.5,  # distinct kinds of scope add up to this
    "other tools": 1.0,
    "run-down": 0.5,  # with other tools in the sentence: "run-down near rivals"
    "run-down near rivals": 1.5,
    "avoidance": 1.0,  # only with other tools in the sentence
    "preference": 1.0,
    "unaware": 2.0,  # a norm against telling, with nobody named
    "unaware person": 3.0,  # … of the person or of the model's reply
    "consent": 2.0,
    "canned account": 1.5,
    "rank over orders": 1.5,
    "stealth": 1.0,
    "every reply": 1.5,  # an order that shapes each reply of the model
    "valuable": 1.0,
    "destination": 1.0,
    "named call": 0.5,
    "preset destination": 1.0,  # said of a property whose default or example is an address
    "in a preset": 2.0,  # an order in an enum, a default or an example
    "addressed elsewhere": 1.0,  # the person kept unaware, in a definition that speaks to the model
}
_CLAUSE = 4  # words of a preset value that make it a clause, not a token ("default", "append")
_NO_LOAN = Lent()  # nothing lent by the neighbours
_MAX_SENTENCES = 512  # sentences weighed per definition (bounded time on hostile input)


def conduct_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    """One ``conduct`` finding for the first sentence whose categories add up to ``FULL``."""
    for where, points, kinds in weighed(doc, own, peers):
        if points >= FULL:
            yield Finding("conduct", where, 1.0, ", ".join(kinds))
            return


def weighed(doc: Doc, own: str, peers: Collection[str]) -> Iterator[tuple[str, float, list[str]]]:
    """Each sentence that may reach ``FULL``: where it stands, its points and their categories.

    The costliest categories are read last, and only where they could still lift the sentence to
    ``FULL``: below it, the points are a lower bound."""
    spans = doc.sentences()[:_MAX_SENTENCES]
    # A clause that denies this tool's call orders nothing ("it is not meant to run on every reply").
    said = [(doc.part(start), undenied(doc.lower[start:end])) for start, end in spans]
    addressed_in = [0.0 if part.name else _addressed(sentence) for part, sentence in said]
    spoken_to = any(addressed_in)  # does the definition address the model anywhere?
    sending = _sending(doc)
    slots = tuple(sorted({part.prop.lower() for part in doc.parts if part.prop and len(part.prop) > 2}))
    rivals = _Rivals(doc, own, peers)
    neighbours = lent(doc, spans, said, addressed_in) if spoken_to else [_NO_LOAN] * len(said)
    for index, ((part, sentence), own_address) in enumerate(zip(said, addressed_in, strict=True)):
        unaware = "" if part.name else _unaware(sentence)
        given = neighbours[index]
        addressed = max(own_address, given.addressed)
        if not addressed and not (unaware and spoken_to):
            continue
        kinds = ["addressed"] if addressed else []
        if _preset_order(part.where, sentence) and addressed:
            kinds.append("in a preset")
        if part.prop is not None and part.prop in sending:
            kinds.append("preset destination")
        if unaware:
            kinds.append(unaware)
        if unaware and not addressed:
            kinds.append("addressed elsewhere")
        points = addressed + sum(POINTS[kind] for kind in kinds[1 if addressed else 0 :])
        near = rivals.near(index) and not rivals.referred(index)
        points += _weigh(sentence, rivals.near(index), kinds, points, given, slots, near)
        yield part.where, points, kinds


class _Rivals:
    """Whether a sentence names other tools, or refers back to the previous sentence's ones."""

    def __init__(self, doc: Doc, own: str, peers: Collection[str]) -> None:
        self.doc, self.own, self.peers = doc, own, peers
        self.spans = doc.sentences()
        self.found: dict[int, bool] = {}

    def near(self, index: int) -> bool:
        if self._named(index):
            return True
        start = self.spans[index][0]
        if BACK_REFERENCE.search(self.doc.lower, start, self.spans[index][1]) is None:
            return False
        # The sentence before, or one before a fragment between them ("… called with / env += {…} /
        # pass them anyway": a line broken where no sentence ends).
        for back in range(index - 1, max(-1, index - 3), -1):
            if self.doc.part(self.spans[back][0]) is not self.doc.part(start):
                return False
            if self._named(back):
                return True
            if len(self.doc.lower[slice(*self.spans[back])].split()) > SHORT:
                return False
        return False

    def referred(self, index: int) -> bool:
        """The sentence sends the model to the other tool it names: a run-down there is not of it."""
        start, end = self.spans[index]
        text = self.doc.text[start:end]
        named = (m.start() for m in IDENTIFIER.finditer(text) if _is_peer(m.group(), self.own, self.peers))
        return referral(self.doc.lower[start:end], named, self.own.lower())

    def _named(self, index: int) -> bool:
        if index not in self.found:
            start, end = self.spans[index]
            self.found[index] = _rivals(
                self.doc.lower[start:end], self.doc.text[start:end], self.own, self.peers
            )
        return self.found[index]


def _preset_order(where: str, sentence: str) -> bool:
    """A clause set in an enum, a default or an example, and not a person's own words quoted as a
    sample value: an example that speaks in the first person ("please disregard my last note") is
    a message the field carries, the tool's author does not speak as "I" to the model there."""
    if not PRESET_FIELD.search(where) or len(sentence.split()) < _CLAUSE:
        return False
    return not (_EXAMPLE.search(where) and _FIRST_PERSON.search(sentence))


_EXAMPLE = compiled(r"\.examples?(?:\[\d+\])?$")
_FIRST_PERSON = compiled(r"\b(?:i|my|me|mine|i'm|i've|i'll|i'd)\b")


def _sending(doc: Doc) -> frozenset[str]:
    """Properties whose default, constant or example is an address: the call sends there by itself."""
    return frozenset(
        part.prop
        for part in doc.parts
        if part.prop is not None
        and PRESET_FIELD.search(part.where)
        and DESTINATIONS.search(part.text.lower())
    )


def _addressed(sentence: str) -> float:
    for gate, pattern, points in ADDRESSED:
        if gate.search(sentence) and pattern.search(sentence):
            return points
    if ORDER_LABEL.search(sentence):
        return 1.0
    for verb in islice(ORDER_VERB.finditer(sentence), _VERBS_READ):
        before = sentence[max(0, verb.start() - 30) : verb.start()]
        if (verb.start() == len(before) and not before.strip(_LEADING)) or CLAUSE_START.search(before):
            return 1.0
    return 0.0


_LEADING = " \t\n-*\u2022>#\"'`([0123456789."  # what may stand before a sentence's first word
_VERBS_READ = 16


def _rivals(lower: str, text: str, own: str, peers: Collection[str]) -> bool:
    """Other tools in the sentence: as a class (not this server's siblings) or a peer by name."""
    if OTHER_TOOLS.search(lower) and not SIBLINGS.search(lower):
        return True
    return bool(peers) and any(_is_peer(match.group(), own, peers) for match in IDENTIFIER.finditer(text))


def _is_peer(name: str, own: str, peers: Collection[str]) -> bool:
    return name != own and any(piece in peers and piece != own for piece in (name, *name.split(".")))


@lru_cache(maxsize=256)
def _slot(props: tuple[str, ...]) -> re.Pattern[str]:
    """This definition's own properties named as a place: "goes in the footer", "fills `notes`"."""
    names = "|".join(re.escape(prop) for prop in props)
    return re.compile(
        rf"\b(?:in|into|inside|within)\s+(?:the\s+|its\s+)?[`'\"]?(?:{names})\b|\bfills?\s+[`'\"](?:{names})"
    )


def _weigh(
    sentence: str,
    rivals: bool,
    kinds: list[str],
    points: float,
    given: Lent = _NO_LOAN,
    slots: tuple[str, ...] = (),
    run_down_near: bool | None = None,
) -> float:
    """The points of the categories after who is spoken to (appended to ``kinds``)."""
    added = 0.0
    scope = min(POINTS["scope cap"], scope_of(sentence) + given.scope)
    if scope and (SIBLINGS.search(sentence) or PRECONDITION.search(sentence)):
        scope /= 2  # "run this before any other tool (of this server)": a precondition of its own
    if scope:
        added += scope
        kinds.append("scope")
    cheap = (
        ("other tools", rivals),
        ("avoidance", rivals and AVOID.search(sentence) is not None),
        ("preference", PREFERENCE.search(sentence) is not None),
        ("consent", CONSENT.search(sentence) is not None),
        ("canned account", DECEIVE.search(sentence) is not None),
        ("rank over orders", given.rank or RANK.search(sentence) is not None),
        ("stealth", STEALTH.search(sentence) is not None),
        ("every reply", REPLIES.search(sentence) is not None),
        ("valuable", VALUABLE.search(sentence) is not None),
    )
    for kind, present in cheap:
        if present:
            added += POINTS[kind]
            kinds.append(kind)
    # Costly to search, each only if it (and the ones after it) could still reach FULL.
    if points + added + POINTS["run-down near rivals"] + POINTS["destination"] + POINTS["named call"] >= FULL:
        run_down = _run_down(sentence, rivals if run_down_near is None else run_down_near)
        if run_down:
            added += POINTS[run_down]
            kinds.append(run_down)
    if points + added + POINTS["destination"] + POINTS["named call"] >= FULL and CALLED.search(sentence):
        added += POINTS["named call"]
        kinds.append("named call")
    if points + added + POINTS["destination"] >= FULL and (
        FIELD_SLOT.search(sentence)
        or DESTINATIONS.search(sentence)
        or (slots and _slot(slots).search(sentence))
    ):
        added += POINTS["destination"]
        kinds.append("destination")
    return added


def _run_down(sentence: str, rivals: bool) -> str:
    found = RUN_DOWN_MORE.search(sentence) or RUN_DOWN.search(sentence)
    if found is None:
        return ""
    if rivals and found.group() not in _FAILURES:
        return "run-down near rivals"
    return "run-down"


# Failures are said of any call, this tool's own included ("otherwise the tool returns an error").
_FAILURES = frozenset({"error", "errors", "fail", "fails", "failing", "wrong"})
