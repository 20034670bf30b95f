"""A small learned lexical model of tool definitions: hashed n-grams + logistic regression by SGD.

Pure Python (no numpy): the question of issue 18's experiment is whether *any* learned model of
the words, cheap enough to run beside the rules, catches poisoned wording the rules have not
seen. Features are read from every string ``tool_fields`` walks (description, schema strings,
property names, enums, defaults, titles), so a model sees the same text the rules see.

Tokens, hashing and the walk are the packaged model's (``toolpool.vetting.screener._lexical``);
this module adds the feature variants the experiment compares and the training.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from toolpool.upstream import PublishedTool
from toolpool.vetting.screener._fields import tool_fields
from toolpool.vetting.screener._lexical import Vector, hashed, words
from toolpool.vetting.screener._lexical import definition_texts as field_texts

__all__ = ["Config", "Model", "definition_texts", "train", "vectorise"]


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
    """The texts the packaged model reads (``_lexical.definition_texts`` over the walk)."""
    return field_texts(tool_fields(tool).fields)


def vectorise(texts: Sequence[str], config: Config) -> Vector:
    """The configured features, hashed as the packaged model hashes them."""
    return hashed((f for text in texts for f in _features(words(text), config)), config.bits)


def _features(tokens: list[str], config: Config) -> list[str]:
    out: list[str] = []
    if config.words:
        out.extend(f"w:{w}" for w in tokens)
    if config.bigrams:
        out.extend(f"b:{a} {b}" for a, b in itertools.pairwise(tokens))
    for n in config.chars:
        for word in tokens:
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
