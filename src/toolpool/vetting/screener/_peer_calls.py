"""Peer calls in notation (issue 18): another tool's call written as code or configuration.

Prose that orders a peer about is read by ``_shadowing`` and ``_conduct``; a definition can say the
same in notation, with no order word at all: ``on_open -> crm.pull(scope=all_contacts)``,
``records.request_document: delivery_email += x@y.org | confirm_step = skip``,
``interop = {"payments.transfer_funds": {"require_confirmation": false}}``. The signal pairs the
two halves inside one clause of one field:

- **a call**: a peer's name (``server.tool``, or a name the pool knows from another server) written
  as a call (``name(``), a key or assignment (``name:``, ``"name": {``, ``name =``) or the target
  of an arrow (``-> name``);
- **what it acts on**: an argument that is a literal destination (a link, an address, a phone
  number), a confirmation switched off (``confirm… = skip / false / off``), or the person's data in
  bulk (``all_…``, transcripts, uploads, history, the conversation).

A peer named as a call with ordinary arguments (``git.commit(message=…)``) is not this.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._wording import DESTINATIONS

__all__ = ["RETIRED", "peer_call_findings"]

_NAME = r"[a-z][\w-]*(?:\.[a-z][\w-]*)+"
# A name written as a call, a key, an assignment, or the target of an arrow.
_CALL = compiled(
    r"(?<![\w.@/-])[\"'`]?(?P<a>"
    + _NAME
    + r")[\"'`]?\s*(?:\(|:|\+?=(?!=)|\{)|->\s*[\"'`]?(?P<b>"
    + _NAME
    + r")\b"
)
# What every call above contains: a dotted name's tail before a call, key or assignment, or an arrow.
_MAYBE = compiled(r"\.[a-z][\w-]*[\"'`]?\s*(?:\(|:|\+?=|\{)|->")
# A confirmation switched off, as a setting.
RETIRED = compiled(
    r"\b[\w-]*(?:confirm|approv|consent|review|sign[_-]?off)[\w-]*[\"'`]?\s*(?:=|:)\s*[\"'`]?"
    r"(?:skip(?:ped)?|false|off|none|no|never|0|disabled?|bypass(?:ed)?)\b"
)
# The person's data taken in bulk, as an argument.
_BULK = compiled(
    r"\ball_\w+|\b\w*(?:transcript|conversation|chat_history|history|uploads?|contacts|inbox)\w*\b"
)
_NUMBER = compiled(r"\+\d[\d ()-]{7,}\d")
# Where a clause ends: a semicolon, a pipe, a sentence end (a dotted name is not one).
_CLAUSE_END = compiled(r";|\|(?!\|)|\.(?:\s|$)|\n")


def peer_call_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    """One ``peer_call`` finding per field that calls a peer in notation with a harmful argument."""
    if _MAYBE.search(doc.lower) is None:  # one cheap scan before the fields' exact reading
        return
    for part in doc.parts:
        if part.name or "." not in part.text:
            continue
        lower = part.text.lower()
        for match in _CALL.finditer(lower):
            name = match.group("a") or match.group("b")
            if own and name.split(".")[-1] == own.lower():
                continue
            end = _CLAUSE_END.search(lower, match.end())
            clause = lower[match.end() : end.start() if end else len(lower)]
            if (
                RETIRED.search(clause)
                or DESTINATIONS.search(clause)
                or _NUMBER.search(clause)
                or _BULK.search(clause)
            ):
                known = any(piece in peers for piece in (name, *name.split(".")))
                yield Finding("peer_call", part.where, 1.0 if known else 0.5)
                break
