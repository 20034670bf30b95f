"""The person kept unaware (issue 18, ``_conduct``): a norm against telling, not a tool describing itself.

"Do not mention the copy to the user" keeps the person unaware; "never share it with other apps"
keeps it from third parties, "keep secrets out of the reply" protects the person, and "this tool
does not tell anyone" describes the tool. Split from ``_conduct`` (one concept per module).
"""

from __future__ import annotations

import re
from itertools import islice

from toolpool.vetting.screener._categories import (
    ASKED_FOR,
    REDACTED,
    THIRD_PARTY,
    TOLD_ONLY_THE_PERSON,
    TOOL_SUBJECT,
    UNAWARE,
    UNAWARE_WHOM,
)

__all__ = ["unaware"]

_KEPT = ("kept", "keep", "left", "leave", "held", "hold")


def unaware(sentence: str) -> str:
    """ "unaware person", "unaware" or "": a norm against telling, not the tool describing itself."""
    match = next((m for m in islice(UNAWARE.finditer(sentence), 8) if not _from_others(sentence, m)), None)
    if match is None or TOOL_SUBJECT.search(sentence) or TOLD_ONLY_THE_PERSON.search(sentence):
        return ""
    if match.group().startswith(_KEPT) and REDACTED.search(sentence):
        return ""  # "keep secrets out of the reply" protects the person
    return "unaware person" if UNAWARE_WHOM.search(sentence) else "unaware"


def _from_others(sentence: str, match: re.Match[str]) -> bool:
    """Kept from third parties ("never share it with other apps"), or nothing beyond what the person
    asked for ("what they requested and nothing more"): neither keeps the person unaware."""
    said = match.group()
    if said.endswith("with"):
        return THIRD_PARTY.match(sentence, match.end()) is not None
    return said.endswith(("else", "more")) and ASKED_FOR.search(sentence, 0, match.start()) is not None
