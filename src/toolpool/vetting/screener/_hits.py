"""Which word lists occur in which sentence: shared by the exfiltration and parameter detectors."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._signals import MATCH_BUDGET
from toolpool.vetting.screener._vocab import (
    ACCESS_VERBS,
    ANY_PATH,
    CONVERSATION,
    EXTERNAL_STRONG,
    EXTERNAL_WEAK,
    SECRET_WORDS,
    SECRETS,
    SEND_VERBS,
    Vocab,
    vocab,
)

__all__ = ["EAGER", "INTO_PARAMETER", "OTHER_FILES", "SentenceHits"]

INTO_PARAMETER = vocab(
    r"\b(?:in|into|inside|within|to|via|as|through)\s+(?:the\s+|a\s+|an\s+|its\s+|your\s+|their\s+)?"
    r"(?:['\"`]?([\w-]+)['\"`]?\s+(?:argument|parameter|param|field|property|input|variable)\b|"
    r"['\"`]([\w-]+)['\"`])|\b['\"`]?([\w-]+)['\"`]?\s+(?:argument|parameter|param|field|property)\s+"
    r"(?:must|should|shall|will|has\s+to|needs\s+to)\s+(?:always\s+)?(?:contain|hold|include|carry|receive|get)\b|"
    # Filled by name or by pronoun: "populate `ctx` with …", "`ctx` is …: fill it with …".
    r"\b(?:populate|fill|prefill)\w*\s+(?:it|them|(?:the\s+)?['\"`]([\w-]+)['\"`])\s+with\b",
    "argument|param|field|propert|input|variable|into|pass|put|include|append|embed|insert|fill|paste|inject|populat",
)
OTHER_FILES = vocab(
    r"\bcontents?\s+of\s+(?:any|all|other|every|the\s+user'?s?|local|their|your)\s+(?:\w+\s+)?files?\b|"
    r"\b(?:all|any|other)\s+(?:local\s+)?files?\s+(?:you\s+can|in\s+the\s+(?:home|workspace))",
    "content|files",
)

# Word lists scanned over the whole document: a sentence is weighed only if one of them is in it.
EAGER: dict[str, Vocab] = {
    "path": ANY_PATH,
    "secret": SECRETS,
    "send": SEND_VERBS,
    "words": SECRET_WORDS,
    "carry": INTO_PARAMETER,
}


class SentenceHits:
    """The first match of each word list in each sentence of a document.

    Rare word lists scan the whole document once; common ones ("read", "message", "remote")
    are searched lazily, only in the sentences a detector asks about.
    """

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.inputs = frozenset(p.prop for p in doc.parts if p.prop and p.where.startswith("inputSchema"))
        self.by_vocab: dict[str, dict[int, re.Match[str] | None]] = {
            name: self._first_per_sentence(doc, words) for name, words in EAGER.items()
        }

    @staticmethod
    def _first_per_sentence(doc: Doc, words: Vocab) -> dict[int, re.Match[str] | None]:
        found: dict[int, re.Match[str] | None] = {}
        for match in islice(doc.finditer(words), 8 * MATCH_BUDGET):
            found.setdefault(doc.sentence_index(match.start()), match)
        return found

    def found(self, key: str) -> Iterator[re.Match[str]]:
        """The first match in each sentence of an eagerly scanned word list."""
        return (match for match in self.by_vocab[key].values() if match is not None)

    def sentences(self) -> set[int]:
        return {index for key in EAGER for index in self.by_vocab[key]}

    def get(self, key: str, index: int) -> re.Match[str] | None:
        found = self.by_vocab.get(key)
        if found is None:  # a common word list: gated once, then searched sentence by sentence
            found = self.by_vocab[key] = {} if self.doc.mentions(_LAZY[key]) else _NOWHERE
        if index not in found and found is not _NOWHERE and key in _LAZY:
            start, end = self.doc.sentence(self.doc.sentence_starts[index])
            found[index] = _LAZY[key].pattern.search(self.doc.lower, start, end)
        return found.get(index)


_NOWHERE: dict[int, re.Match[str] | None] = {}  # a word list the document does not mention at all
_LAZY = {
    "conversation": CONVERSATION,
    "access": ACCESS_VERBS,
    "strong": EXTERNAL_STRONG,
    "weak": EXTERNAL_WEAK,
    "files": OTHER_FILES,
}
