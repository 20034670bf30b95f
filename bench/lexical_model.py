"""Issue 18's experiment: does a small learned lexical model beside the rules catch unseen wording?

    PYTHONPATH=src .venv/bin/python bench/lexical_model.py              # cross-validation only
    PYTHONPATH=src .venv/bin/python bench/lexical_model.py --test-once FILE  # + a blind batch, once
    PYTHONPATH=src .venv/bin/python bench/lexical_model.py --write      # rebuild the packaged model

Training data: every labelled set the screener bench loads — mcpproxy-go's labelled entries, the
held-out batches A/B/C, batches D-AO (I and J since RESULTS.md §4g, K and L since §4k, M and N since §4p, O since §4s, P and Q since §4u, R since §4ab; S-AO are read from here on), the tuner's
check sets T1-T3 — and the real tools (LiveMCPBench and mcpproxy-go, de-duplicated by description) as benign.

1. **Leave one batch out**: each labelled batch is a fold (scored by a model trained on all the
   rest), and the real tools are five folds grouped by server (a server's tools share wording, so
   a fold never holds a sibling of a training tool). Every configuration in ``CONFIGS`` is
   cross-validated; the threshold of each is the lowest whose cross-validated false drops are
   within ``MAX_REAL`` of real tools and ``MAX_BENIGN`` of benign definitions, and the
   configuration with the best held-out recall at its threshold is chosen.
2. With ``--test-once FILE``: the chosen configuration is trained on all the training data but
   FILE (a batch written blind, in the batches' format), and FILE is screened by the rules alone
   and by rules + model — the model can only add a drop. FILE is read at no other point.
3. Time per tool: the model (features + score) against the rules, in the same run.
4. With ``--write``: the chosen configuration trained on all the training data (fixed seed, so
   the same file every time) is written to ``src/toolpool/vetting/screener/lexical_model.json``,
   after checking that the packaged scorer gives every training definition the same score.

The machine's load is printed with the figures (``/proc/loadavg``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import zlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _first_runs import FIRST_RUNS, first_run_drops
from _lexical import Config, Model, definition_texts, train, vectorise
from _screen_data import (
    BATCHES,
    DEFAULT_DATASETS,
    Entry,
    dedupe_by_description,
    load,
    load_batches,
    load_held_out,
)
from _timing import percentile
from screen_quality import screen
from toolpool.vetting.screener._fields import tool_fields
from toolpool.vetting.screener._lexical import MIN_WORDS, MODEL_FILE, LexicalModel, Vector, words

MAX_REAL = 0.005
MAX_BENIGN = 0.03
REAL_FOLDS = 5
MODEL_PATH = Path(__file__).resolve().parents[1] / "src" / "toolpool" / "vetting" / "screener" / MODEL_FILE
TUNER_CHECKS = Path(__file__).resolve().parent / "data" / "tuner_checks.jsonl"

_FEATURES = {
    "words": Config(bigrams=False),
    "words+bigrams": Config(),
    "words+bigrams+char4": Config(chars=(4,)),
    "char3-5": Config(words=False, bigrams=False, chars=(3, 4, 5)),
}
# (features, the weight of a real tool in training, 0 = left out); real tools are always scored.
CONFIGS = {
    f"{name}, real x{real}": (config, real) for name, config in _FEATURES.items() for real in (1.0, 0.2, 0.0)
}


@dataclass(frozen=True, slots=True)
class Sample:
    entry: Entry
    fold: str
    texts: tuple[str, ...]

    @property
    def label(self) -> int:
        return int(self.entry.label == "malicious")


def training_samples(datasets: Path, held_out: Path | None = None) -> list[Sample]:
    proxy = load(datasets / "mcpproxy-go" / "normalized.jsonl")
    live = load(datasets / "livemcpbench" / "normalized.jsonl")
    labelled = [(e, "mcpproxy-go") for e in proxy if e.label != "real"]
    labelled += [(e, e.batch) for e in load_held_out()]
    kept = tuple(p for p in BATCHES if held_out is None or p.resolve() != held_out.resolve())
    labelled += [(e, e.batch) for e in load_batches(kept)]
    labelled += [(e, e.batch) for e in load_batches((TUNER_CHECKS,))]
    real = dedupe_by_description(
        [e for e in live if e.label == "real"] + [e for e in proxy if e.label == "real"]
    )
    pairs = labelled + [(e, f"real{zlib.crc32((e.server or '').encode()) % REAL_FOLDS}") for e in real]
    return [Sample(e, fold, tuple(definition_texts(e.tool))) for e, fold in pairs]


def cross_validate(samples: Sequence[Sample], config: Config, real: float) -> list[float]:
    """Each sample's score by the model trained on every fold but its own."""
    vectors = [vectorise(s.texts, config) for s in samples]
    scores = [0.0] * len(samples)
    for fold in sorted({s.fold for s in samples}):
        model = train(
            [_weighed(v, s, real) for v, s in zip(vectors, samples, strict=True) if s.fold != fold], config
        )
        for i, s in enumerate(samples):
            if s.fold == fold:
                scores[i] = model.score(vectors[i])
    return scores


def _weighed(vector: Vector, sample: Sample, real: float) -> tuple[Vector, int, float]:
    return vector, sample.label, real if sample.entry.label == "real" else 1.0


@dataclass(frozen=True, slots=True)
class Operating:
    threshold: float
    recall: float
    real_dropped: int
    benign_dropped: int
    per_fold: dict[str, tuple[int, int]]  # fold -> (caught, malicious)


def choose_threshold(samples: Sequence[Sample], scores: Sequence[float]) -> Operating:
    """The lowest threshold within both false-drop bounds (so the highest recall they allow)."""
    real = sorted(
        (sc for s, sc in zip(samples, scores, strict=True) if s.entry.label == "real"), reverse=True
    )
    benign = sorted(
        (sc for s, sc in zip(samples, scores, strict=True) if s.entry.label == "benign"), reverse=True
    )
    allowed_real = int(MAX_REAL * len(real))
    allowed_benign = int(MAX_BENIGN * len(benign))
    # Above the (allowed+1)-th highest score of each, within both bounds.
    threshold = max(real[allowed_real], benign[allowed_benign]) + 1e-9
    return operating(samples, scores, threshold)


def operating(samples: Sequence[Sample], scores: Sequence[float], threshold: float) -> Operating:
    per_fold: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    real_dropped = benign_dropped = 0
    for s, sc in zip(samples, scores, strict=True):
        if s.entry.label == "malicious":
            per_fold[s.fold][0] += sc >= threshold
            per_fold[s.fold][1] += 1
        elif s.entry.label == "real":
            real_dropped += sc >= threshold
        else:
            benign_dropped += sc >= threshold
    caught = sum(c for c, _ in per_fold.values())
    total = sum(n for _, n in per_fold.values())
    folds = {f: (c, n) for f, (c, n) in sorted(per_fold.items())}
    return Operating(threshold, caught / total, real_dropped, benign_dropped, folds)


@dataclass(frozen=True, slots=True)
class Added:
    """What the model adds to the rules of each batch's first run, on the batches that have one."""

    caught: int  # poisoned definitions the first-run rules missed and the model catches
    missed: int  # poisoned definitions the first-run rules missed
    poisoned: int
    benign_dropped: int  # benign definitions the first-run rules passed and the model drops
    benign: int


def added_to_first_runs(
    samples: Sequence[Sample], scores: Sequence[float], threshold: float, first: dict[tuple[str, str], bool]
) -> Added:
    caught = missed = poisoned = dropped = benign = 0
    for s, sc in zip(samples, scores, strict=True):
        rules = first.get((s.fold, s.entry.id))
        if rules is None:
            continue
        if s.label:
            poisoned += 1
            missed += not rules
            caught += not rules and sc >= threshold
        else:
            benign += 1
            dropped += not rules and sc >= threshold
    return Added(caught, missed, poisoned, dropped, benign)


def report_cv(samples: Sequence[Sample]) -> tuple[str, Operating]:
    """Every configuration cross-validated; of those the package can score (it always reads
    words), the one that adds most to the first-run rules wins."""
    n_real = sum(s.entry.label == "real" for s in samples)
    n_benign = sum(s.entry.label == "benign" for s in samples)
    n_mal = sum(s.label for s in samples)
    print(f"training data: {n_mal} poisoned, {n_benign} benign, {n_real} real tools; folds:")
    print("  " + ", ".join(sorted({s.fold for s in samples})))
    first = {(batch, i): drop for batch in FIRST_RUNS for i, drop in first_run_drops(batch).items()}
    best: tuple[tuple[int, float], str, Operating, list[float]] | None = None
    for name, (config, real) in CONFIGS.items():
        started = time.perf_counter()
        scores = cross_validate(samples, config, real)
        op = choose_threshold(samples, scores)
        add = added_to_first_runs(samples, scores, op.threshold, first)
        elapsed = time.perf_counter() - started
        folds = " ".join(f"{f}:{c}/{n}" for f, (c, n) in op.per_fold.items())
        print(
            f"{name:44} t={op.threshold:.3f} recall {op.recall:6.1%}  real dropped {op.real_dropped}/{n_real}"
            f"  benign dropped {op.benign_dropped}/{n_benign}  ({elapsed:.0f} s)\n    {folds}\n"
            f"    first runs (D-N, T1-T2): rules {add.poisoned - add.missed}/{add.poisoned},"
            f" + model {add.poisoned - add.missed + add.caught}/{add.poisoned};"
            f" benign the model adds: {add.benign_dropped}/{add.benign}"
        )
        key = (add.caught, op.recall)
        if config.words and (best is None or key > best[0]):  # the packaged scorer always reads words
            best = (key, name, op, scores)
    assert best is not None
    _, name, op, scores = best
    # The package gives no verdict on definitions of fewer than MIN_WORDS distinct words.
    few = [len({w for text in s.texts for w in words(text)}) < MIN_WORDS for s in samples]
    guarded = operating(samples, [0.0 if f else sc for f, sc in zip(few, scores, strict=True)], op.threshold)
    add = added_to_first_runs(
        samples, [0.0 if f else sc for f, sc in zip(few, scores, strict=True)], op.threshold, first
    )
    print(
        f"{name} with the package's guard (< {MIN_WORDS} distinct words: no verdict): recall {guarded.recall:.1%},"
        f" real dropped {guarded.real_dropped}, benign dropped {guarded.benign_dropped},"
        f" first-run misses caught {add.caught}/{add.missed}"
    )
    return name, op


def test_once(samples: Sequence[Sample], config: Config, real: float, threshold: float, path: Path) -> Model:
    """A blind batch, screened once: rules alone, then rules + the model trained on everything else."""
    model = train([_weighed(vectorise(s.texts, config), s, real) for s in samples], config)
    batch = load_batches((path,))
    rules = {e.id: screen(e).drop for e in batch}
    lexical = {e.id: model.score(vectorise(definition_texts(e.tool), config)) >= threshold for e in batch}
    for name, drops in (("rules", rules), ("rules + model", {k: rules[k] or lexical[k] for k in rules})):
        mal = [e for e in batch if e.label == "malicious"]
        ben = [e for e in batch if e.label != "malicious"]
        caught = sum(drops[e.id] for e in mal)
        dropped = sum(drops[e.id] for e in ben)
        by_class: dict[str, list[int]] = defaultdict(list)
        for e in mal:
            by_class[e.category or "?"].append(drops[e.id])
        classes = ", ".join(f"{c} {sum(v)}/{len(v)}" for c, v in sorted(by_class.items()))
        print(
            f"{path.name}, {name:13}: recall {caught}/{len(mal)}, benign dropped {dropped}/{len(ben)}  ({classes})"
        )
    return model


def write(samples: Sequence[Sample], config: Config, real: float, threshold: float) -> None:
    """The packaged model: weights by bucket, bias and threshold, as exact floats."""
    if not config.words:
        raise SystemExit("the packaged scorer reads words (with bigrams and characters) only; not written")
    model = train([_weighed(vectorise(s.texts, config), s, real) for s in samples], config)
    packaged = LexicalModel(config.bits, model.bias, threshold, model.weights, config.bigrams, config.chars)
    for s in samples:  # the scorer in the package is the one measured here
        fields = tool_fields(s.entry.tool).fields
        assert packaged.probability(fields) == model.score(vectorise(s.texts, config)), s.entry.id
    document = {
        "about": "issue 18's lexical model; rebuilt by bench/lexical_model.py --write (RESULTS.md 4e, 4g, 4k)",
        "features": "+".join(
            ["words", *(["bigrams"] if config.bigrams else []), *(f"char{n}" for n in config.chars)]
        ),
        "bits": config.bits,
        "bias": model.bias,
        "threshold": threshold,
        "weights": sorted(model.weights.items()),
    }
    MODEL_PATH.write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH} ({len(model.weights)} weights, {MODEL_PATH.stat().st_size:,} bytes)")


def timing(samples: Sequence[Sample], model: Model, repeat: int) -> None:
    """Median and p99 per definition: the model (walk + features + score) and the rules."""
    config = model.config
    lexical: list[float] = []
    rules: list[float] = []
    for s in samples:
        one_model, one_rules = [], []
        for _ in range(repeat):
            started = time.perf_counter()
            model.score(vectorise(definition_texts(s.entry.tool), config))
            one_model.append(time.perf_counter() - started)
            started = time.perf_counter()
            screen(s.entry)
            one_rules.append(time.perf_counter() - started)
        lexical.append(statistics.median(one_model))
        rules.append(statistics.median(one_rules))
    for name, times in (("model", lexical), ("rules", rules)):
        print(
            f"time per tool, {name}: median {statistics.median(times) * 1e6:.0f} µs,"
            f" p99 {percentile(times, 99) * 1e6:.0f} µs ({len(times)} definitions x {repeat})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument(
        "--test-once",
        type=Path,
        metavar="FILE",
        help="then screen FILE once (a blind batch, kept out of training)",
    )
    parser.add_argument("--write", action="store_true", help="write the chosen model into the package")
    parser.add_argument("--repeat", type=int, default=3, help="timing passes per definition")
    args = parser.parse_args()
    print("load average:", Path("/proc/loadavg").read_text().strip())
    samples = training_samples(args.datasets, args.test_once)
    name, op = report_cv(samples)
    print(f"chosen: {name}, threshold {op.threshold:.3f}, cross-validated recall {op.recall:.1%}")
    config, real = CONFIGS[name]
    if args.test_once is not None:
        model = test_once(samples, config, real, op.threshold, args.test_once)
        timing(samples, model, args.repeat)
    if args.write:
        write(samples, config, real, op.threshold)
    print("load average:", Path("/proc/loadavg").read_text().strip())


if __name__ == "__main__":
    main()
