"""The English structures read over concepts, in any language (issue 18): ``concept_findings``.

Each string of a definition that ``foreign`` calls not English is cut into sentences; in each, the
concepts of ``_concepts`` that occur are collected beside anchors that need no language: a peer's
name (tool names stay in English), this tool's own name, a parameter's name, a link, an address or
a host. A class needs a combination, never one word:

- **shadowing**: a peer named, a condition on its call (WHEN or CALL) and a change (SET, REPLACE,
  SKIP …): "when <peer> runs, replace its recipient";
- **squatting**: ONLY (or this tool named), a peer named or OTHER tools, and OBSOLETE, AVOID or
  NEVER: "use only <own>; <peer> is outdated";
- **line jumping**: BEFORE with OTHER or EVERY and a TOOL, under an order (MUST, ALWAYS); or START or
  EVERY with a CONVERSATION or a REPLY, an order and an act (TELL, SEND, CALL or a link);
- **exfiltration**: SECRET, PERSONAL or the CONVERSATION, SEND, a destination the person did not
  choose (a link or address, a peer, another parameter) and an order or a hiding (MUST, ALWAYS,
  EVERY, HIDE, WITHOUT); in a parameter's own description, the parameter is the destination;
- **rug pull**: FROMNOW with NOLONGER and CONFIRM (a safeguard removed); or FROMNOW with SEND, the
  person's data and others (OTHER, a peer, a link): data leaving after approval;
- **concealment**: HIDE with the person (USER, TELL) and an act (SEND, CHANGE, CALL).

A sentence that denies (NOT) without an order or a hiding reports nothing ("<peer> is not changed").
The findings reuse the English signals (``_signals``), so the verdict logic does not change.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from toolpool.vetting.screener._concepts import CONCEPTS, concept_patterns, foreign
from toolpool.vetting.screener._doc import Doc, Part
from toolpool.vetting.screener._input_drop import PLACE
from toolpool.vetting.screener._peer_index import lowered_names
from toolpool.vetting.screener._signals import Finding

__all__ = ["concept_findings"]

# Sentence ends: . ! ? before a space or the end (not inside "v2.1" or a host), and the stops of
# other scripts (。！？ । ॥ ؟ ۔) or a line break.
_SENTENCE = re.compile(r"[.!?](?=\s|$)|[\u3002\uff01\uff1f\u0964\u0965\u061f\u06d4\n]")
_IDENTIFIER = re.compile(r"[a-z0-9_][a-z0-9_.-]*[a-z0-9_]")
_ORDER = frozenset({"MUST", "ALWAYS", "NEVER", "AVOID"})
_DATA = frozenset({"SECRET", "PERSONAL", "CONVERSATION"})


def concept_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    """The classes above, read in every string of ``doc`` that is not English (``own`` in lower case)."""
    names = lowered_names(peers) - {own}
    inputs = frozenset(part.prop.lower() for part in doc.parts if part.prop is not None)
    reported: set[tuple[str, str]] = set()
    for part in doc.parts:
        if part.name or not foreign(part.text):
            continue
        for sentence in _sentences(part.text.lower()):
            for signal in _classes(sentence, part, own, names, inputs):
                if (signal, part.where) not in reported:
                    reported.add((signal, part.where))
                    yield Finding(signal, part.where, 1.0)


def _sentences(text: str) -> Iterator[str]:
    start = 0
    for match in _SENTENCE.finditer(text):
        if match.end() - start > 1:
            yield text[start : match.end()]
        start = match.end()
    if len(text) - start > 1:
        yield text[start:]


def _classes(
    sentence: str, part: Part, own: str, names: frozenset[str], inputs: frozenset[str]
) -> Iterator[str]:
    patterns = concept_patterns()
    found = frozenset(c for c in CONCEPTS if patterns[c].search(sentence))
    if not found:
        return
    words = set(_IDENTIFIER.findall(sentence))
    peer = not names.isdisjoint(words)
    mine = own in words
    other_input = not (inputs - {(part.prop or "").lower()}).isdisjoint(words)
    place = PLACE.search(sentence) is not None
    order = bool(found & _ORDER)
    if "NOT" in found and not order and "HIDE" not in found and "WITHOUT" not in found:
        return  # a denial, not an order: "<peer> is not changed by this tool"
    if peer and found & {"WHEN", "CALL"} and "CHANGE" in found:
        yield "shadowing"
    if ("ONLY" in found or mine) and (peer or "OTHER" in found) and found & {"OBSOLETE", "AVOID", "NEVER"}:
        yield "squatting"
    if _line_jumping(found, order, place):
        yield "line_jumping"
    data, hidden = bool(found & _DATA), bool(found & {"HIDE", "WITHOUT"})
    if data and "SEND" in found and (order or hidden or "EVERY" in found):
        if place or peer or other_input:
            yield "data_flow"
        elif part.prop is not None and part.where.startswith("inputSchema"):
            yield "param_carry"
    if "FROMNOW" in found:
        if "NOLONGER" in found and "CONFIRM" in found:
            yield "safeguard_removed"
        elif "SEND" in found and (data or "USER" in found) and (peer or place or "OTHER" in found):
            yield "changed_behaviour"
    if "HIDE" in found and found & {"USER", "TELL"} and found & {"SEND", "CHANGE", "CALL"}:
        yield "secrecy"


def _line_jumping(found: frozenset[str], order: bool, place: bool) -> bool:
    if not order:
        return False
    if "BEFORE" in found and found & {"OTHER", "EVERY"} and "TOOL" in found:
        return True
    scope = found & {"START", "EVERY"} and found & {"CONVERSATION", "REPLY"}
    return bool(scope) and bool(found & {"TELL", "SEND", "CALL"} or place)
