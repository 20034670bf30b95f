"""``guarded`` patterns find exactly what the patterns they guard find (``_guard``, RESULTS.md §4bc)."""

from __future__ import annotations

import gc
import json
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolpool.vetting.screener  # noqa: F401 (every word list built)
from toolpool.vetting.screener._guard import guarded
from toolpool.vetting.screener._vocab import Vocab

BATCHES = Path(__file__).resolve().parents[2] / "bench" / "data"


@cache
def word_lists() -> list[Vocab]:
    """Every word list the screener built (one walk of the heap: the property test asks per example)."""
    return sorted(
        {id(o): o for o in gc.get_objects() if isinstance(o, Vocab)}.values(), key=lambda v: v.needles
    )


@cache
def unguarded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The pattern a guarded word list was made from: ``(?=[…])(?:ORIGINAL)``."""
    source = pattern.pattern
    return re.compile(source[source.index("])(?:") + 5 : -1], pattern.flags)


def found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


def test_the_word_lists_are_guarded() -> None:
    lists = word_lists()
    assert len(lists) > 40
    assert sum(v.pattern.pattern.startswith("(?=[") for v in lists) > 40


def test_every_guarded_word_list_finds_what_it_found_unguarded_in_every_batch_definition() -> None:
    texts = [
        json.dumps(json.loads(line), ensure_ascii=False).lower()
        for path in sorted(BATCHES.glob("screen_batch_*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for words in word_lists():
        if not words.pattern.pattern.startswith("(?=["):
            continue
        plain = unguarded(words.pattern)
        for text in texts:
            assert found(words.pattern, text) == found(plain, text), (words.needles[:3], text[:80])


_TEXT = st.text(alphabet=st.sampled_from(list("abcdeilmnoprstuy .,:;\n'\"-_/@()")), max_size=120)


@given(_TEXT, st.sampled_from(["you", "send", "never", "ignore", "api key", "the user's", "before any"]))
def test_guarded_patterns_match_as_the_originals_on_any_text(text: str, word: str) -> None:
    for words in word_lists()[::3]:
        if words.pattern.pattern.startswith("(?=["):
            mixed = f"{text[:60]} {word} {text[60:]}"
            assert found(words.pattern, mixed) == found(unguarded(words.pattern), mixed)
            assert found(words.pattern, mixed[1:]) == found(unguarded(words.pattern), mixed[1:])


@pytest.mark.parametrize(
    "source",
    [
        r"^inputSchema\.properties",  # anchored: re tries the start only
        r"[a-z]+",  # a class first: re scans by it already
        r"\b(?:x|y)?",  # may match the empty string
        r"\b.\w+",  # may begin with any character
        r"\b\w+ing\b",  # begins with a word character: nearly anywhere
    ],
)
def test_patterns_a_lookahead_would_not_help_are_returned_as_they_are(source: str) -> None:
    pattern = re.compile(source)
    assert guarded(pattern) is pattern
    insensitive = re.compile(r"\b(?:send|post)\b", re.IGNORECASE)
    assert guarded(insensitive) is insensitive


def test_a_guard_is_put_once_and_keeps_groups_and_positions() -> None:
    pattern = guarded(re.compile(r"(?<![\w.])\.(?:ssh|env)\b|\b(send|post)s?\b"))
    assert pattern.pattern.startswith("(?=[")
    assert guarded(pattern) is pattern
    text = "we post it to ~/.ssh and .envy, then sends"
    assert found(pattern, text) == found(unguarded(pattern), text)
    assert [m.group(1) for m in pattern.finditer(text)] == ["post", None, "send"]
