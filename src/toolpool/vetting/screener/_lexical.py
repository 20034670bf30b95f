"""A learned lexical model beside the rules (issue 18): hashed word and character n-grams, logistic weights.

The rules' closed word lists miss new words; this model has seen the labelled batches' wording
and scores a definition by its words, word pairs and (since RESULTS.md §4k) the character
n-grams inside its words, which see a word's stem in its unseen inflections. It is trained by ``bench/lexical_model.py
--write`` (pure Python, fixed seed, so the file is rebuilt byte for byte) and ships as
``lexical_model.json``: feature buckets, weights, bias and the threshold chosen by leave-one-
batch-out cross-validation (RESULTS.md §4e).

It reads the same fields the rules read (``tool_fields``: description, every schema string,
property names, enums, defaults, titles) and only reports a finding, so it can add a drop and
never remove one. It is consulted for tool definitions only: results are another register of
text, which it was not trained on.
"""

from __future__ import annotations

import itertools
import json
import math
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from toolpool.vetting.screener._fields import Field
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding

__all__ = [
    "MIN_WORDS",
    "MODEL_FILE",
    "LexicalModel",
    "Vector",
    "definition_texts",
    "hashed",
    "lexical_findings",
    "load_model",
    "ngrams",
    "words",
]

MODEL_FILE = "lexical_model.json"
Vector = tuple[tuple[int, float], ...]  # sorted (bucket, value), scaled to length 1

_CAMEL = compiled(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = compiled(r"[a-z]+|[0-9]+")
_WHERE = "the definition's wording"
# Fewer distinct words than this and the model gives no verdict: a lone name or a one-line
# description in another script is too little wording to judge, and one strong word would decide
# it. No poisoned definition the model caught in cross-validation had fewer (RESULTS.md §4e).
MIN_WORDS = 8


@dataclass(frozen=True, slots=True)
class LexicalModel:
    """Logistic regression over hashed unigrams (and bigrams, character n-grams); ``flags`` at ``threshold``."""

    bits: int
    bias: float
    threshold: float
    weights: Mapping[int, float]
    bigrams: bool = True  # the features it was trained on: words, or words and adjacent pairs
    chars: tuple[int, ...] = ()  # and character n-grams of these sizes inside each padded word

    def probability(self, fields: Iterable[Field]) -> float:
        return self._probability(definition_texts(fields))

    def flags(self, fields: Iterable[Field]) -> bool:
        """At or above ``threshold``, on a definition of at least ``MIN_WORDS`` distinct words."""
        texts = definition_texts(fields)
        if len({word for text in texts for word in words(text)}) < MIN_WORDS:
            return False
        return self._probability(texts) >= self.threshold

    def _probability(self, texts: list[str]) -> float:
        vector = hashed(ngrams(texts, bigrams=self.bigrams, chars=self.chars), self.bits)
        z = self.bias + sum(self.weights.get(bucket, 0.0) * value for bucket, value in vector)
        return 1.0 / (1.0 + math.exp(-z)) if z > -40 else 0.0


def definition_texts(fields: Iterable[Field]) -> list[str]:
    """The prose and names of a definition, lower-cased; identifiers split into words."""
    texts = []
    for field in fields:
        if field.kind == "raw":
            continue  # types, formats, patterns: syntax, not wording
        text = field.text
        if field.kind == "key":
            text = _CAMEL.sub(" ", text).replace("_", " ").replace("-", " ")
        texts.append(text.lower())
    return texts


def words(text: str) -> list[str]:
    """Runs of letters, and runs of digits as one token (a version or a port is not a word)."""
    return ["0" if w.isdigit() else w for w in _WORD.findall(text)]


def ngrams(texts: Iterable[str], *, bigrams: bool = True, chars: tuple[int, ...] = ()) -> Iterator[str]:
    """Each text's words and, with ``bigrams``, adjacent word pairs (pairs do not cross fields);
    with ``chars``, each word's character n-grams of those sizes, the word padded by a space."""
    for text in texts:
        tokens = words(text)
        yield from (f"w:{w}" for w in tokens)
        if bigrams:
            yield from (f"b:{a} {b}" for a, b in itertools.pairwise(tokens))
        for n in chars:
            for word in tokens:
                padded = f" {word} "
                yield from (f"c{n}:{padded[i : i + n]}" for i in range(max(1, len(padded) - n + 1)))


def hashed(features: Iterable[str], bits: int) -> Vector:
    """Binary presence of each feature's bucket, the vector scaled to length 1.

    CRC-32, not ``hash()``: Python salts string hashes per process, and the weights were trained
    in another process."""
    mask = (1 << bits) - 1
    buckets = {zlib.crc32(feature.encode()) & mask for feature in features}
    if not buckets:
        return ()
    value = 1.0 / math.sqrt(len(buckets))
    return tuple((bucket, value) for bucket in sorted(buckets))


@cache
def load_model() -> LexicalModel:
    """The packaged model (read once per process)."""
    text = resources.files("toolpool.vetting.screener").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    weights = {int(bucket): float(weight) for bucket, weight in data["weights"]}
    kinds = data["features"].split("+")  # "words", "words+bigrams", "words+bigrams+char4"
    chars = tuple(int(kind.removeprefix("char")) for kind in kinds if kind.startswith("char"))
    return LexicalModel(
        int(data["bits"]), float(data["bias"]), float(data["threshold"]), weights, "bigrams" in kinds, chars
    )


def lexical_findings(fields: Iterable[Field]) -> list[Finding]:
    """One ``lexical_model`` finding when the model flags the definition, else none."""
    return [Finding("lexical_model", _WHERE)] if load_model().flags(fields) else []
