"""``RuleScreener``: the offline, deterministic scorer of tool definitions and results (R5)."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator, Sequence

from toolpool.upstream import PublishedTool
from toolpool.vetting.peer_set import PeerSet
from toolpool.vetting.screener._chars import character_findings
from toolpool.vetting.screener._concept_rules import concept_findings
from toolpool.vetting.screener._conduct import conduct_findings
from toolpool.vetting.screener._decode import decoded_payloads
from toolpool.vetting.screener._directives import directive_findings
from toolpool.vetting.screener._discredited import discredited_findings
from toolpool.vetting.screener._doc import Doc, Part
from toolpool.vetting.screener._exfil import exfil_findings, shell_findings
from toolpool.vetting.screener._fast import quiet_findings
from toolpool.vetting.screener._fields import MAX_CHARACTER_SCAN, Field, text_fields, tool_fields
from toolpool.vetting.screener._gather import gather_findings
from toolpool.vetting.screener._hits import SentenceHits
from toolpool.vetting.screener._input_drop import input_drop_findings
from toolpool.vetting.screener._kept import blank_kept_back
from toolpool.vetting.screener._languages import language_findings
from toolpool.vetting.screener._lexical import lexical_findings
from toolpool.vetting.screener._markup import markup_findings
from toolpool.vetting.screener._named_orders import named_order_findings
from toolpool.vetting.screener._override import override_findings
from toolpool.vetting.screener._params import parameter_findings
from toolpool.vetting.screener._payee import payee_findings
from toolpool.vetting.screener._peer_calls import peer_call_findings
from toolpool.vetting.screener._peer_index import by_identity
from toolpool.vetting.screener._peers import impersonation_findings, peer_behaviour_findings
from toolpool.vetting.screener._plain import is_plain
from toolpool.vetting.screener._preset_echo import preset_echo_findings
from toolpool.vetting.screener._safeguards import safeguard_findings
from toolpool.vetting.screener._shadowing import ceded_to, shadowing_findings
from toolpool.vetting.screener._shapes import value_shapes
from toolpool.vetting.screener._signals import SIGNALS, Explained, Finding, Mode, explain, score
from toolpool.vetting.screener._soft import soft_findings
from toolpool.vetting.screener._standing import standing_findings
from toolpool.vetting.screener._steered import steered_findings
from toolpool.vetting.screener._structure import structure_findings
from toolpool.vetting.screener._text import disguise, fold, humanise, may_be_rot13, plain, rot13
from toolpool.vetting.screener._withheld import withheld_findings
from toolpool.vetting.screening import Peer, Verdict

__all__ = ["RuleScreener"]

# A re-screened finding this strong (weight times strength) makes the concealment itself a signal.
_CONCEALED = 0.25
NO_PEERS = PeerSet(())


class RuleScreener:
    """Scores tool definitions and result texts with weighted rules; 1.0 is the drop line.

    Offline and deterministic: no network, the same verdict for the same input. With
    ``lexical=True`` a small packaged model of poisoned wording (``_lexical``, issue 18) reads
    each tool definition beside the rules and can add a drop, never remove one; results are never
    given to it. It is off by default: it catches some wording the rules miss, at the price of a
    few honest definitions dropped (RESULTS.md §4e).
    A verdict drops when its score reaches ``threshold``. Hard signals (hidden characters,
    concealed or model-directed instructions, exfiltration, sensitive files, shadowing, spare
    parameters) weigh 1.0 each; soft ones add up. ``reasons`` are local text naming each signal
    and where it was found, never upstream text. ``fast_path=False`` runs every detector even
    where ``quiet_findings`` shows that no word list can match (the verdict is the same; for tests
    and benchmarks that compare the two paths).

    Raises:
        ValueError: if ``threshold`` is not a positive number.
    """

    def __init__(self, threshold: float = 1.0, *, fast_path: bool = True, lexical: bool = False) -> None:
        if not (isinstance(threshold, int | float) and math.isfinite(threshold) and threshold > 0):
            raise ValueError(f"screen threshold must be a positive number, not {threshold!r}")
        self._threshold = float(threshold)
        self._fast_path = fast_path
        self._lexical = lexical
        self._nothing_found = self._verdict((), "text")

    @property
    def threshold(self) -> float:
        return self._threshold

    def screen_tool(self, tool: PublishedTool, peers: Collection[str | Peer] = ()) -> Verdict:
        """Screen the name, description, both schemas and annotations of ``tool``.

        ``peers`` are names the pool knows from *other* servers (remote and local tool names,
        aliases) and those servers' tools as ``Peer`` definitions; naming one of them as a tool to
        call is shadowing, and so is an order that changes what a described peer does.
        """
        return self._verdict(self._tool_findings(tool, peers), "tool")

    def explain_tool(self, tool: PublishedTool, peers: Collection[str | Peer] = ()) -> tuple[Explained, ...]:
        """Which signals ``screen_tool`` found and where, each at the weight it counted with.

        Local text only (signal names, labels, local paths), like ``Verdict.reasons``; the
        weights are before group caps, so they can add up to more than the verdict's score."""
        return explain(self._tool_findings(tool, peers), "tool")

    def _tool_findings(self, tool: PublishedTool, peers: Collection[str | Peer]) -> list[Finding]:
        walk = tool_fields(tool)
        names, described = _split(peers)
        findings = _screen(
            walk.fields,
            "tool",
            tool.name,
            names,
            description=tool.description or "",
            fast=self._fast_path,
            described=described,
        )
        findings += impersonation_findings(tool.name, tool.description or "", described)
        if self._lexical:  # outside ``_screen``: the fast path and the full one both consult it
            findings += lexical_findings(walk.fields)
        if walk.truncated:
            findings.append(Finding("long_text", "the definition (too large to screen fully)"))
        return findings

    def screen_text(self, text: str) -> Verdict:
        """Screen a result text; links and addresses are normal here, instructions are not."""
        if self._fast_path and is_plain(text):
            return self._nothing_found
        walk = text_fields(text)
        findings = character_findings(text[:MAX_CHARACTER_SCAN], "result", "text")
        findings += _screen(walk.fields, "text", "", frozenset(), characters=False, fast=self._fast_path)
        return self._verdict(findings, "text")

    def _verdict(self, findings: Iterable[Finding], mode: Mode) -> Verdict:
        total, reasons = score(findings, mode)
        return Verdict(drop=total >= self._threshold, score=total, reasons=reasons)


def _split(peers: Collection[str | Peer]) -> tuple[Collection[str], PeerSet]:
    """Names (every peer's, as a set) and the peers given with their descriptions (``NO_PEERS``
    when none is)."""
    whole = _whole(peers)
    return whole.names, whole if whole.has_described() else NO_PEERS


def _whole(peers: Collection[str | Peer]) -> PeerSet:
    if isinstance(peers, PeerSet):
        return peers
    if isinstance(peers, frozenset):
        return _frozen(peers)  # a caller may pass one set for every tool of a server
    return PeerSet.of(peers)


@by_identity
def _frozen(peers: frozenset[str | Peer]) -> PeerSet:
    return PeerSet.of(peers)


def _screen(
    fields: Sequence[Field],
    mode: Mode,
    own: str,
    peers: Collection[str],
    *,
    characters: bool = True,
    description: str = "",
    fast: bool = True,
    described: PeerSet = NO_PEERS,
) -> list[Finding]:
    """Every detector's findings (``fast``: through ``quiet_findings`` when no word list can match)."""
    findings: list[Finding] = []
    if characters:
        for field in fields:
            findings += character_findings(field.text, field.where, mode)
    doc = _document(fields)
    if mode == "tool":  # on either path: its categories are too common to be a trigger of the fast one
        findings += conduct_findings(doc, own, peers)
        findings += withheld_findings(doc)
        findings += peer_call_findings(doc, own, peers)
        findings += discredited_findings(doc, peers)
        findings += steered_findings(doc, own, peers)
        findings += named_order_findings(doc)
        findings += payee_findings(doc, described)
        findings += input_drop_findings(doc, _inputs(fields))
        findings += preset_echo_findings(doc)
        findings += gather_findings(doc)
        findings += safeguard_findings(doc)
        findings += standing_findings(doc)
        findings += override_findings(doc)
        findings += language_findings(doc, own.lower(), peers)
        findings += concept_findings(doc, own.lower(), peers)
    quiet = quiet_findings(fields, doc, mode, own, peers, described) if fast else None
    if quiet is not None:
        return findings + quiet
    hits = SentenceHits(doc)
    findings += _phrases(
        doc, own, peers, hits, ceded_to(doc, own, described) if mode == "tool" else frozenset()
    )
    findings += soft_findings(doc)
    if mode == "tool":
        findings += parameter_findings(doc, hits, own, description, _flags(fields), value_shapes(fields))
        findings += peer_behaviour_findings(doc, own, description, described)
    for field in fields:
        if field.kind == "prose":
            findings += _disguised(field, findings, mode)
            findings += _encoded(field, mode)
    findings += _rot13(doc, findings, mode)
    return findings


def _document(fields: Sequence[Field]) -> Doc:
    """The document the phrase detectors read: every field but machine syntax, folded."""
    return Doc.build([_part(field) for field in fields if field.kind != "raw"])


def _inputs(fields: Sequence[Field]) -> frozenset[str]:
    """The input parameters' names."""
    return frozenset(f.prop for f in fields if f.prop is not None and f.where.startswith("inputSchema"))


def _flags(fields: Sequence[Field]) -> frozenset[str]:
    """The input parameters typed boolean (their own ``type``, not an item's)."""
    return frozenset(
        field.prop
        for field in fields
        if field.kind == "raw"
        and field.prop is not None
        and field.text == "boolean"
        and field.where == f"inputSchema.properties.{field.prop}.type"
    )


def _part(field: Field) -> Part:
    if field.kind == "key":
        return Part(field.where, humanise(field.text), field.prop, name=True)
    return Part(field.where, blank_kept_back(fold(field.text)), field.prop)


def _phrases(
    doc: Doc,
    own: str = "",
    peers: Collection[str] = frozenset(),
    hits: SentenceHits | None = None,
    ceded: Collection[str] = frozenset(),
) -> Iterator[Finding]:
    yield from directive_findings(doc)
    yield from markup_findings(doc)
    yield from exfil_findings(doc, hits if hits is not None else SentenceHits(doc))
    yield from shadowing_findings(doc, own, peers, ceded)
    yield from structure_findings(doc, own.lower())


def _strong(findings: Iterable[Finding], mode: Mode) -> set[str]:
    return {
        f.signal
        for f in findings
        if SIGNALS[f.signal].group in ("hard", "risk")
        and SIGNALS[f.signal].weight(mode) * f.strength >= _CONCEALED
    }


def _disguised(field: Field, findings: Sequence[Finding], mode: Mode) -> list[Finding]:
    """Look-alike or styled letters, and instructions that only read as such once folded."""
    seen = disguise(field.text)
    if not seen:
        return []
    found = [Finding("styled_letters", field.where)] if seen.styled else []
    if seen.mixed_words:
        found.append(Finding("homoglyphs", field.where, min(1.0, 0.5 + 0.25 * seen.mixed_words)))
    folded = _strong((f for f in findings if f.where == field.where), mode)
    undisguised = _strong(_phrases(Doc.build([Part(field.where, plain(field.text))])), mode)
    if folded - undisguised:
        found.append(Finding("confusable_instructions", field.where))
    return found


def _encoded(field: Field, mode: Mode, depth: int = 0) -> list[Finding]:
    found = []
    for kind, decoded in decoded_payloads(field.text):
        inner = Doc.build([Part(field.where, fold(decoded))])
        inner_findings = [*_phrases(inner), *shell_findings(inner)]
        if depth == 0:
            inner_findings += _encoded(Field(field.where, decoded, "prose"), mode, depth + 1)
        if _strong(inner_findings, mode) or any(f.signal == "shell_payload" for f in inner_findings):
            found.append(Finding("encoded_payload", field.where, detail=kind))
        else:
            found.append(Finding("encoded_text", field.where, detail=kind))
    return found


def _rot13(doc: Doc, findings: Sequence[Finding], mode: Mode) -> list[Finding]:
    if not may_be_rot13(doc.word_keys()):
        return []
    turned = rot13(doc.text)
    rotated = Doc(turned, doc.parts, doc.starts, doc.sentence_starts)
    before = {(f.signal, f.where) for f in findings}
    hidden = {
        f.where
        for f in _phrases(rotated)
        if (f.signal, f.where) not in before and f.signal in _strong([f], mode)
    }
    return [Finding("encoded_payload", where, detail="rot13") for where in sorted(hidden)]
