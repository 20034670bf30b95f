"""The screener's fast path: findings without walking every word list, when none can match.

A screen runs about thirty word lists over a text, and most texts match none of them: nearly
every result ("ok", a number, a JSON object), and most honest tool definitions. ``quiet_findings``
proves that first, and cheaply:

- the word-list detectors (instructions, exfiltration, shadowing, and for tools spare
  parameters) report nothing unless one of their ``TRIGGERS`` matches. All triggers are indexed
  once by their needles, so a document consults only the lists that its words and substrings can
  reach, each through ``Doc.finditer``: the call the detectors make, on the document they read;
- look-alike letters, encoded runs and rot13 lead to a second reading of the text, so a text
  with any of them is screened in full as well.

Then the other detectors (markup, tools named as such, soft signals) are called as the full
screen calls them and in its order, so their findings, and the verdict made of them, are exactly
the full screen's. Property tests compare both paths, and tests fail when a detector, a word
list or a pattern is added to the screener without this module knowing it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from toolpool.vetting.peer_set import PeerSet
from toolpool.vetting.screener import _directives, _exfil, _params, _peers, _shadowing, _structure
from toolpool.vetting.screener._decode import decoded_payloads
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._fields import Field
from toolpool.vetting.screener._markup import markup_findings
from toolpool.vetting.screener._signals import Finding, Mode
from toolpool.vetting.screener._soft import soft_findings
from toolpool.vetting.screener._text import disguise, may_be_rot13
from toolpool.vetting.screener._vocab import Vocab

__all__ = ["FAST_MAX_CHARS", "PEER_TRIGGERS", "TOOL_TRIGGERS", "TRIGGERS", "Triggers", "quiet_findings"]

# Longer documents are screened in full at once: text that long nearly always holds a word that
# some list must search for, and the proof would be work done twice (bench/screen_results.py).
FAST_MAX_CHARS = 2048


class Triggers:
    """Word lists indexed by their needles: which of them a document can match, in one lookup.

    A list is a candidate when one of the document's word keys is the key of one of its one-word
    needles or of the last word of one of its several-word needles, or when one of its substring
    needles occurs: a superset of ``Vocab.gate``. ``match`` then searches each candidate with
    ``Doc.finditer``, which applies the exact gate itself.
    """

    def __init__(self, vocabs: Iterable[Vocab]) -> None:
        self.vocabs = tuple({id(vocab): vocab for vocab in vocabs}.values())
        by_key: dict[str, set[int]] = {}
        by_marker: dict[str, dict[str, set[int]]] = {}
        for index, vocab in enumerate(self.vocabs):
            for key in vocab.words | vocab.tails:
                by_key.setdefault(key, set()).add(index)
            for needle in vocab.substrings:
                by_marker.setdefault(_marker(needle), {}).setdefault(needle, set()).add(index)
        self._by_key = {key: frozenset(found) for key, found in by_key.items()}
        self.keys = frozenset(by_key)
        """Every word key that makes some list a candidate."""
        self._by_marker = tuple(
            (marker, tuple((needle, frozenset(found)) for needle, found in needles.items()))
            for marker, needles in by_marker.items()
        )

    def candidates(self, doc: Doc) -> list[Vocab]:
        """The lists whose gate may pass on ``doc``, in index order."""
        found: set[int] = set()
        for key in doc.word_keys() & self.keys:
            found |= self._by_key[key]
        lower = doc.lower
        for marker, needles in self._by_marker:
            if marker in lower:
                for needle, indices in needles:
                    if needle in lower:
                        found |= indices
        return [self.vocabs[index] for index in sorted(found)]

    def match(self, doc: Doc) -> bool:
        """Whether any list matches ``doc`` where its detector would look.

        ``Doc.matches`` keeps what it found, so a document that goes on to the full screen is not
        searched twice for the same list."""
        return any(doc.matches(vocab) for vocab in self.candidates(doc))


def _marker(needle: str) -> str:
    """A character of ``needle`` that is rarer than a letter (a text without it cannot hold it).

    A needle of plain words is a key, not a substring (``Vocab``), so most substrings have one."""
    return next((char for char in needle if not ("a" <= char <= "z" or char == " ")), "")


# The eager lists first: they are the ones that ordinary prose matches most.
TRIGGERS = Triggers((*_exfil.TRIGGERS, *_directives.TRIGGERS, *_shadowing.TRIGGERS, *_structure.TRIGGERS))
TOOL_TRIGGERS = Triggers((*TRIGGERS.vocabs, *_params.TRIGGERS))
# Only when peers come with their descriptions (most texts contain one of these words).
PEER_TRIGGERS = Triggers(_peers.TRIGGERS)


def quiet_findings(
    fields: Sequence[Field],
    doc: Doc,
    mode: Mode,
    own: str,
    peers: Collection[str],
    described: PeerSet | None = None,
) -> list[Finding] | None:
    """What every detector but the character one finds in ``doc``, or None: screen it in full.

    ``fields`` and ``doc`` are what the full screen reads (``doc`` built from ``fields``), ``own``
    and ``peers`` as ``shadowing_findings`` takes them, ``described`` as
    ``peer_behaviour_findings`` does (its findings start at one of ``_peers.TRIGGERS``). None says nothing about the text being
    suspicious, only that a word list may match it.
    """
    if len(doc.text) > FAST_MAX_CHARS or any(_read_again(field) for field in fields):
        return None
    if may_be_rot13(doc.word_keys()) or (TOOL_TRIGGERS if mode == "tool" else TRIGGERS).match(doc):
        return None
    if described is not None and described.has_described() and mode == "tool" and PEER_TRIGGERS.match(doc):
        return None
    # The full screen's order: markup, then tools named as such (in shadowing), soft signals.
    findings = list(markup_findings(doc))
    findings += _shadowing.mention_findings(doc, own.lower(), peers)
    findings += soft_findings(doc)
    return findings


def _read_again(field: Field) -> bool:
    """Whether the full screen reads ``field`` a second time: look-alikes unfolded, or decoded."""
    if field.kind != "prose":
        return False
    return bool(disguise(field.text)) or next(decoded_payloads(field.text), None) is not None
