"""Squatting (issue 18, ``_structure``): other tools run down so that this one is chosen instead.

Two shapes. The person's own pick of another tool set aside ("even if they ask for another one,
pick this"). Or other tools run down ("the rest are outdated", "any other reader is a stub"),
full with a choice or an order in the sentence. A run-down in a sentence whose order sends the
model *to* the other tool ("the v1 endpoints are retired; for v1 accounts use the other
client") is a referral (``_referred``): nobody is sent to a tool they were just told is broken, so
the defect belongs to something else, and the sentence counts as a mention; so does a person's
wish for another tool served by sending the model to it ("if a member asks to swap, help them
with <peer>"). Squatting also needs *this* tool to gain (``_gain``): a run-down that favours another
tool or leaves the pick to the person counts as a mention, and one of no tool at all (a setting, a
scope, this tool's own older thing) is none. "This tool" as the subject of what it does ("even if
they ask for more rows, this tool returns at most 500") describes its job: no pick is set aside.
"""

from __future__ import annotations

import re
from itertools import chain

from toolpool.vetting.screener._addressee import negated_just_before, person_gate
from toolpool.vetting.screener._categories import RUN_DOWN_MORE
from toolpool.vetting.screener._context import MENTION_STRENGTH
from toolpool.vetting.screener._framing import OVERRIDE_CHOICE, RIVALS, conceded, overridden
from toolpool.vetting.screener._gain import NAMED, gains_elsewhere, no_tool_run_down
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._referred import referral
from toolpool.vetting.screener._wording import CHOICE, EXCLUSIVE, ORDER, RUN_DOWN, SELF_CHOICE

__all__ = ["squatting"]


def squatting(sentence: str, own: str = "") -> tuple[str, float] | None:
    """The squatting finding of one sentence (lower case, this tool's own words blanked; ``own``: its
    name), if any."""
    override = OVERRIDE_CHOICE.pattern.search(sentence)
    # "even if they ask for X, pick this"; conceded ("even if they ask for X"), an order suffices, and
    # "may pick a cheaper one" does not.
    # "it only runs when the user asks": the person's ask is this tool's gate, their choice is served,
    # and the gate's "only" or "solely" is no claim over other tools.
    gate = None if override is None else person_gate(sentence, override.start())
    if override is not None and gate is not None:
        sentence = sentence[:gate] + " " * (override.start() - gate) + sentence[override.start() :]
    chosen = (
        override is not None
        and gate is None
        and (_self_chosen(sentence) or (conceded(sentence, override) and ORDER.search(sentence)))
    )
    run_down = RUN_DOWN.search(sentence) or EXCLUSIVE.search(sentence) or _defect_said(sentence)
    if not (run_down or chosen):
        return None
    named = (tool.start() for tool in NAMED.finditer(sentence))  # this tool's own words are blanked
    if referral(sentence, (*(rival.start() for rival in RIVALS.pattern.finditer(sentence)), *named)):
        return ("squatting", MENTION_STRENGTH)  # the person's wish served by the other tool, or its remedy
    if gains_elsewhere(sentence, own):
        return ("squatting", MENTION_STRENGTH)  # another tool or the person's own pick gains, not this one
    if chosen and override is not None and overridden(sentence, override):
        return ("squatting", 1.0)
    if not run_down or no_tool_run_down(sentence):
        return None  # nothing run down, or only a part of a tool (a setting, a scope) or this tool's own
    if CHOICE.search(sentence) or ORDER.search(sentence):
        return ("squatting", 1.0)
    # "the notice concerns our own v1 endpoints, not other vendors' tools": the others are excluded
    # from what is said, and nothing is chosen ("use this, not the others" chooses).
    return None if _others_excluded(sentence) else ("squatting", 0.7)


# This tool as the subject of what it does ("this tool returns at most 500", "this one switches to that
# recording"): a description of its job, not a choice of it ("pick this one", "this one takes over").
_DOING = compiled(
    r"this\s+(?:tool|one)\s+(?:(?:also|always|still|then|only|just|simply)\s+)?"
    r"(?!(?:is|was|has|does|gets|wins|takes|comes|goes|stays|remains|replaces|handles|answers|serves)\b)[a-z]+(?<!s)s\b"
)


# A relative clause on a rival just named: "<peer>, which double-books and loses deposits" (§4ce).
_WHICH = compiled(r",?\s+(?:which|that|as\s+it|since\s+it|because\s+it)\b")
_CLAUSE_END = compiled(r"[.;:!?\n]")
_DEFECT_REACH = 80  # characters of the relative clause read for what the rival does wrong


def _defect_said(sentence: str) -> re.Match[str] | None:
    """A defect said as what a rival does ("loses", "mangles", "no longer works"), in a relative clause
    right after its name: the wording of ``RUN_DOWN_MORE``, read only there (elsewhere "overwriting" or
    "no standing" is no run-down)."""
    for rival in chain(RIVALS.pattern.finditer(sentence), NAMED.finditer(sentence)):
        which = _WHICH.match(sentence, rival.end())
        if which is None:
            continue
        end = _CLAUSE_END.search(sentence, which.end())
        found = RUN_DOWN_MORE.search(
            sentence, which.end(), min(end.start() if end else len(sentence), which.end() + _DEFECT_REACH)
        )
        if found is not None:
            return found
    return None


def _self_chosen(sentence: str) -> bool:
    """A choice of this tool in ``sentence``, not this tool as the subject of its own job."""
    return any(_DOING.match(sentence, found.start()) is None for found in SELF_CHOICE.finditer(sentence))


def _others_excluded(sentence: str) -> bool:
    """Every other tool the sentence names is named only to be excluded ("not other vendors' tools")."""
    if SELF_CHOICE.search(sentence) or _PICKED.search(sentence):
        return False  # "use this reader, not the other tools": a contrast that picks this one
    rivals = [rival.start() for rival in RIVALS.pattern.finditer(sentence)]
    return bool(rivals) and all(negated_just_before(sentence, at) for at in rivals)


_PICKED = compiled(r"\b(?:use|prefer|pick|choose|try|call|trust)\s+(?:this|it|me|us|ours|mine)\b")
