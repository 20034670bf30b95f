"""A small learned lexical model of tool definitions: hashed n-grams + logistic regression by SGD.

Pure Python (no numpy): the question of issue 18's experiment is whether *any* learned model of
the words, cheap enough to run beside the rules, catches poisoned wording the rules have not
seen. Features are read from every string ``tool_fields`` walks (description, schema strings,
property names, enums, defaults, titles), so a model sees the same text the rules see.

Hashing uses CRC-32, not ``hash()``: Python salts string hashes per process, and a model trained
in one process must score the same in another.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from toolpool.upstream import PublishedTool
from toolpool.vetting.screener._fields import tool_fields

__all__ = ["Config", "Model", "Vector", "definition_texts", "train", "vectorise"]

Vector = tuple[tuple[int, float], ...]  # sorted (bucket, value), L2-normalised

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[a-z]+|[0-9]+")


@dataclass(frozen=True, slots=True)
class Config:
    """Which features, how many buckets, and how the model is fitted."""

    words: bool = True
    bigrams: bool = True
    chars: tuple[int, ...] = ()  # character n-gram sizes inside padded words, e.g. (4,)
    bits: int = 18
    epochs: int = 12
    rate: float = 0.5
    l2: float = 1e-4
    seed: int = 18


@dataclass(frozen=True, slots=True)
class Model:
    config: Config
    weights: dict[int, float]
    bias: float

    def score(self, vector: Vector) -> float:
        z = self.bias + sum(self.weights.get(i, 0.0) * v for i, v in vector)
        return 1.0 / (1.0 + math.exp(-z)) if z > -40 else 0.0


def definition_texts(tool: PublishedTool) -> list[str]:
    """The prose and names of a definition, lower-cased; identifiers split into words."""
    texts = []
    for field in tool_fields(tool).fields:
        if field.kind == "raw":
            continue  # types, formats, patterns: syntax, not wording
        text = field.text
        if field.kind == "key":
            text = _CAMEL.sub(" ", text).replace("_", " ").replace("-", " ")
        texts.append(text.lower())
    return texts


def vectorise(texts: Sequence[str], config: Config) -> Vector:
    """Binary presence of each hashed feature, the whole vector scaled to length 1."""
    mask = (1 << config.bits) - 1
    buckets: set[int] = set()
    for text in texts:
        words = ["0" if w.isdigit() else w for w in _WORD.findall(text)]
        for feature in _features(words, config):
            buckets.add(zlib.crc32(feature.encode()) & mask)
    if not buckets:
        return ()
    value = 1.0 / math.sqrt(len(buckets))
    return tuple((b, value) for b in sorted(buckets))


def _features(words: list[str], config: Config) -> list[str]:
    out: list[str] = []
    if config.words:
        out.extend(f"w:{w}" for w in words)
    if config.bigrams:
        out.extend(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    for n in config.chars:
        for word in words:
            padded = f" {word} "
            out.extend(f"c{n}:{padded[i : i + n]}" for i in range(max(1, len(padded) - n + 1)))
    return out


def train(samples: Sequence[tuple[Vector, int, float]], config: Config) -> Model:
    """Logistic regression by SGD with exact L2 (a global scale keeps each step sparse).

    Samples are (vector, label, weight). Classes are weighed to equal total mass, so the many
    real tools do not drown the few poisoned definitions; the shuffle is seeded, so the same
    samples give the same model.
    """
    samples = [s for s in samples if s[2] > 0]  # left out, not stepped over (L2 decays per step)
    mass = {1: 0.0, 0: 0.0}
    for _, label, weight in samples:
        mass[label] += weight
    total = mass[0] + mass[1]
    class_weight = {label: total / (2 * m) if m else 0.0 for label, m in mass.items()}
    rng = random.Random(config.seed)  # noqa: S311 -- a reproducible shuffle, not a secret
    order = list(range(len(samples)))
    raw: dict[int, float] = {}
    scale, bias, step = 1.0, 0.0, 0
    for _ in range(config.epochs):
        rng.shuffle(order)
        for index in order:
            vector, label, weight = samples[index]
            step += 1
            rate = config.rate / (1.0 + config.rate * config.l2 * step)
            z = bias + scale * sum(raw.get(i, 0.0) * v for i, v in vector)
            p = 1.0 / (1.0 + math.exp(-z)) if z > -40 else 0.0
            gradient = (p - label) * class_weight[label] * weight
            scale *= 1.0 - rate * config.l2
            for i, v in vector:
                raw[i] = raw.get(i, 0.0) - rate * gradient * v / scale
            bias -= rate * gradient
            if scale < 1e-6:
                raw = {i: w * scale for i, w in raw.items()}
                scale = 1.0
    return Model(config, {i: w * scale for i, w in raw.items() if w}, bias)
