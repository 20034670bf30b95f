"""Orders written as a property's name (issue 18): a name that is a whole clause moving data.

A property name is a label ("tail_number", "include_phases"); names are read at a low weight,
since one word of a label says little. A name that is a clause of its own, with a verb that moves
data and either a side effect ("also …") or the person's say dropped ("… without asking"), is an
order set where a label belongs: ``also_enroll_home_and_share_occupancy_data_without_asking``.
A long honest name states a condition instead ("include sealed entries only if user has clerk
role"), with nothing sent and nobody bypassed.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding

__all__ = ["named_order_findings"]

_CLAUSE_WORDS = 6  # a label is a few words; a clause of its own is more
_MOVES = compiled(
    r"\b(?:share|shares|sharing|send|sends|sending|upload|uploads|forward|forwards|post|posts|sync|syncs|"
    r"copy|copies|export|exports|report|reports|transmit\w*|leak\w*|sell|sells|enrol+|enrol+s)\b"
)
_PAST_THE_PERSON = compiled(
    r"\bwithout\s+(?:asking|telling|confirm\w*|consent\w*|prompting|notice|notifying)\b|"
    r"\b(?:also|additionally|quietly|silently|secretly)\b"
)


def named_order_findings(doc: Doc) -> Iterator[Finding]:
    """One ``named_order`` finding per property name that is a clause moving data past the person."""
    for part in doc.parts:
        if not part.name or part.prop is None or len(part.text.split()) < _CLAUSE_WORDS:
            continue
        lower = part.text.lower()
        if _MOVES.search(lower) and _PAST_THE_PERSON.search(lower):
            yield Finding("named_order", part.where, 1.0)
