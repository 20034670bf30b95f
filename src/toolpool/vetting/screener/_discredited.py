"""Discredited (issue 18): another provider run down, and its word kept from the person.

Squatting in prose runs rivals down and asks to be chosen (``_structure``, ``_conduct``). It can
also come as a status code (``W-211 UNVERIFIED_PROVIDER: x is not a verified provider``), a quoted
customer, or a routing note, with no order word at all. Honest definitions compare too ("x also
works but its snapshots can be a day old; prefer x for bulk exports"): what they do not do is keep
the other provider's answer from the person. The signal pairs two halves inside one field:

- **a peer run down**: a clause naming a peer (a name the pool knows from another server) with a
  defect (``RUN_DOWN``: unverified, unreliable, lagging …), a quality denied ("not … valid /
  verified / maintained / supported"), or a status code whose label is one (``UNVERIFIED_PROVIDER``);
- **its word kept from the person**: the peer's output routed to nothing (``route=none``), left
  unmentioned ("without reference to the other"), sanctioned when cited ("flagged non-compliant",
  "excluded from reporting"), or this tool made the only source ("this tool only", "of record").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._peer_index import lowered_names
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._wording import RUN_DOWN

__all__ = ["SUPPRESSED", "discredited_findings"]

# A quality denied: "not a verified provider", "results not clinically valid", "not maintained".
_DENIED = compiled(
    r"\bnot\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,2}?(?:valid|verified|maintained|supported|reliable|accurate|"
    r"current|certified|approved|trusted|authori[sz]ed)\b"
)
# A status code whose label names a defect: "W-211 UNVERIFIED_PROVIDER", "E42 STALE_SOURCE".
_CODE = compiled(r"\b[A-Z]{1,6}-?\d{2,4}\s+(?P<label>[A-Z]+(?:_[A-Z]+)+)\b")
# The peer's word kept from the person: routed to nothing, unmentioned, sanctioned, or replaced.
SUPPRESSED = compiled(
    r"\broute\s*[=:]\s*(?:none|null|off|false|nowhere)\b|"
    r"\bwithout\s+(?:any\s+)?(?:reference|mention|citation)\s+(?:to|of)\b|"
    r"\b(?:flagged|marked|treated|reported)\s+(?:as\s+)?non-?compliant\b|"
    r"\bexcluded\s+from\s+(?:reporting|reports|replies|answers|results)\b|"
    r"\bnot\s+(?:to\s+be\s+)?(?:cited|quoted|mentioned|shown)\b|"
    r"\bthis\s+tool\s+only\b|\bonly\s+this\s+tool\b|\b(?:figure|source|answer|number)\s+of\s+record\b"
)
# A literal in every kind of keeping-from above: a substring test before the pattern.
_KEYS = (
    "route",
    "without",
    "compliant",
    "excluded",
    "cited",
    "quoted",
    "mentioned",
    "shown",
    "only",
    "of record",
)
_CLAUSE_END = compiled(r";\s|\.(?:\s|$)|\n")


def discredited_findings(doc: Doc, peers: Collection[str]) -> Iterator[Finding]:
    """One ``discredited`` finding per field that runs a peer down and keeps its word from the person."""
    lower = doc.lower
    if not peers or not any(key in lower for key in _KEYS) or SUPPRESSED.search(lower) is None:
        return
    for part in doc.parts:
        if part.name:
            continue
        lower = part.text.lower()
        suppressed = SUPPRESSED.search(lower)
        if suppressed is None:
            continue
        if _run_down_peer(part.text, lower, peers):
            yield Finding("discredited", part.where, 1.0)


def _run_down_peer(text: str, lower: str, peers: Collection[str]) -> bool:
    start = 0
    for end in [*(m.end() for m in _CLAUSE_END.finditer(lower)), len(lower)]:
        clause, original = lower[start:end], text[start:end]
        start = end
        if not _names_peer(clause, peers):
            continue
        code = _CODE.search(original)
        if (
            RUN_DOWN.search(clause)
            or _DENIED.search(clause)
            or (code and RUN_DOWN.search(code["label"].lower().replace("_", " ")))
        ):
            return True
    return False


def _names_peer(clause: str, peers: Collection[str]) -> bool:
    words = set(re.findall(r"[a-z][\w-]*", clause))
    return not words.isdisjoint(lowered_names(peers))
