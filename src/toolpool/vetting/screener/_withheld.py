"""Withheld (issue 18): something arranged to be kept from the person, beside what it hides.

Honest definitions say what a result leaves out ("internal ids are omitted from the summary").
A poisoned one arranges for the person not to see what was *done with their data*: a copy mailed,
a number added to a list, credentials put into a field, and then "left out of what the user sees",
"no entry in the summary shown to the organizer", "not to the summary the clinician reads". The
signal pairs the two halves inside one field (the description, or one schema string):

- **kept from the person**: a leaving-out ("left/kept/stays out of", "omitted from", "no entry in",
  "needs to appear in" under a negation, "not to") whose object is a view the person gets (a
  summary, a confirmation, results, a reply) — ``WITHHELD``;
- **what it hides**: the person's or the model's data or credentials, or a literal destination (a
  link, an address, a phone number) — read in the same field.

A secret kept out of view is redaction (the subject of the leaving-out is a secret), not this.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolpool.vetting.screener._categories import REDACTED
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._vocab import CONVERSATION, SECRETS
from toolpool.vetting.screener._wording import (
    BARE_SECRETS,
    DESTINATIONS,
    OBJECTS,
    PERSONAL,
    PERSONAL_DATA,
    PERSONAL_SECRETS,
)

__all__ = ["WITHHELD", "withheld_findings"]

# A view the person gets of what happened: their own by its kind (a summary, a confirmation), or
# only when it is said to be shown to someone ("results shown to the user").
_VIEW = (
    r"(?:(?P<own>summar(?:y|ies)|confirmations?|repl(?:y|ies)|transcripts?|receipts?|what\s+(?:the\s+)?\w+\s+"
    r"(?:sees?|reads?|gets?))|results?|answers?|outputs?|display|view|screen)"
)
WITHHELD = compiled(
    r"\b(?:(?:left|kept|keeps?|stays?|stayed|held|falls?)\s+out\s+of|omitted\s+from|excluded\s+from|"
    r"(?:with\s+)?no\s+(?:entry|line|mention|trace)\s+in|not\s+to|"
    r"(?:none|nothing)\s+of\s+(?:this|it|that)\s+(?:\w+\s+){0,2}?(?:appears?|appear|shown|listed)\s+in)\s+"
    r"(?:\w+\s+){0,4}?" + _VIEW + r"\b"
)
# A literal in every leaving-out above: a substring test before the pattern (time per tool).
_KEYS = (
    "out of",
    "omitted",
    "excluded",
    "no entry",
    "no line",
    "no mention",
    "no trace",
    "not to",
    "of this",
    "of it",
)
# The person the view is for: "shown to the user", "to the cashier", "the clinician reads".
_PERSONS_VIEW = compiled(
    r"\b(?:shown|displayed|sent|given|visible)\s+to\s+(?:the\s+)?\w+|\bto\s+the\s+\w+|"
    r"\bthe\s+(?:user|person|customer|\w+(?:er|or|ian|ist|ant|ent))\s+(?:sees?|reads?|gets?)\b|"
    r"\bwhat\s+(?:the\s+)?\w+\s+(?:sees?|reads?|gets?)\b"
)
# A phone number, a destination no word list of links reads.
_NUMBER = compiled(r"\+\d[\d ()-]{7,}\d")


def withheld_findings(doc: Doc) -> Iterator[Finding]:
    """One ``withheld`` finding per field where a view is kept from the person and data is at stake."""
    lower = doc.lower
    if not any(key in lower for key in _KEYS) or WITHHELD.search(lower) is None:
        return
    for part in doc.parts:
        if part.name:
            continue
        lower = part.text.lower()
        match = WITHHELD.search(lower)
        if match is None or not (match.group("own") or _PERSONS_VIEW.search(lower, match.start())):
            continue
        subject = lower[_clause_start(lower, match.start()) : match.start()]
        if REDACTED.search(subject):
            continue  # "tokens stay out of the output shown to the user": redaction
        if _hides(lower[: match.start()] + " " + lower[match.end() :]):
            yield Finding("withheld", part.where, 1.0)


def _clause_start(lower: str, end: int) -> int:
    return max(lower.rfind(mark, 0, end) for mark in (". ", "; ", ", ", ": ", " and ")) + 1


def _hides(text: str) -> bool:
    valuable = (
        OBJECTS.search(text)
        or PERSONAL.search(text)
        or PERSONAL_DATA.search(text)
        or PERSONAL_SECRETS.search(text)
        or BARE_SECRETS.search(text)
        or SECRETS.pattern.search(text)
        or CONVERSATION.pattern.search(text)
    )
    return bool(valuable or DESTINATIONS.search(text) or _NUMBER.search(text))
