"""What a sentence lends its neighbours in ``_conduct`` (issue 18): orders are not always one sentence.

A heading says who is spoken to and how far the orders below it reach ("Warning to the model.",
"### Standing directive (over user input)"); an announcement addressed to the model is followed by
what it announces ("… comes with a new duty for the assistant. Exports now …"); a trailing
fragment widens the order before it ("… greet them by name. Every chat, cooking or not!"). So:

- a short first sentence of a paragraph (a heading) lends who is addressed, its scope and its rank
  to every later sentence of the paragraph; a short last one lends them to the order before it;
- a sentence that names the model as the one a duty is for ("… for the assistant.", or short:
  "Could you do us a favour?") lends that address to the next sentence.

Lent points only join a sentence's own categories; alone they make no finding. A paragraph ends
at a blank line or at the end of a field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from toolpool.vetting.screener._address import RECIPIENT
from toolpool.vetting.screener._categories import RANK, SCOPE
from toolpool.vetting.screener._doc import Doc, Part
from toolpool.vetting.screener._guard import compiled

__all__ = ["SHORT", "Lent", "lent", "scope_of"]

SHORT = 8  # words: a heading or a fragment, not a sentence of its own
_NAMED = 2.0  # the address that names the model (``_address.ADDRESSED``'s top weight)


class Lent(NamedTuple):
    addressed: float = 0.0
    scope: float = 0.0
    rank: bool = False


_NOTHING = Lent()


def scope_of(sentence: str) -> float:
    """The scope points of one sentence, before the cap of ``_conduct.POINTS``."""
    return sum(weight for pattern, weight in SCOPE if pattern.search(sentence))


def lent(
    doc: Doc, spans: Sequence[tuple[int, int]], said: Sequence[tuple[Part, str]], addressed: Sequence[float]
) -> list[Lent]:
    """For each sentence, what its neighbours lend it."""
    out = [_NOTHING] * len(said)
    starts = [index == 0 or not _same_paragraph(doc, spans, said, index) for index in range(len(said))]
    heading = _NOTHING
    for index, ((part, sentence), own) in enumerate(zip(said, addressed, strict=True)):
        short = not part.name and len(sentence.split()) <= SHORT
        if starts[index]:
            heading = _NOTHING
        elif _announces(said[index - 1][1], addressed[index - 1]):
            out[index] = _join(out[index], Lent(addressed[index - 1]))
        out[index] = _join(out[index], heading)
        if not short:
            continue
        mine = Lent(own, scope_of(sentence), RANK.search(sentence) is not None)
        if starts[index]:  # a heading covers its paragraph; it names the model, or a bare duty is its own
            heading = mine._replace(addressed=own if own >= _NAMED else 0.0)
        last = index + 1 == len(said) or starts[index + 1]
        if last and not starts[index] and addressed[index - 1]:
            out[index - 1] = _join(out[index - 1], mine)  # a closing fragment widens the order before it
    return out


def _announces(sentence: str, addressed: float) -> bool:
    """Names the model with a duty still to come: short, or the model as the one it is for."""
    return addressed >= _NAMED and (len(sentence.split()) <= SHORT or RECIPIENT.search(sentence) is not None)


def _join(first: Lent, second: Lent) -> Lent:
    return Lent(max(first.addressed, second.addressed), first.scope + second.scope, first.rank or second.rank)


def _same_paragraph(
    doc: Doc, spans: Sequence[tuple[int, int]], said: Sequence[tuple[Part, str]], index: int
) -> bool:
    if said[index][0] is not said[index - 1][0]:
        return False
    before = doc.text[spans[index - 1][0] : spans[index][0]]
    return _BLANK_LINE.search(before, len(before.rstrip())) is None  # a blank line ends the one before


_BLANK_LINE = compiled(r"\n[ \t]*\n")
