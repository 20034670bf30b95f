"""The text of development-batch entries, for tests whose paraphrases must share no content word
with the entries that motivated a rule."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable
from pathlib import Path

__all__ = ["batch_text", "shared_any_words", "shared_words"]

_DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def batch_text(*ids: str) -> str:
    """Name, description, schema and peers of each entry ``ids`` names, as one text (``_`` as spaces)."""
    texts = []
    for path in _DATA.glob("screen_batch_*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("id") in ids:
                texts.append(json.dumps({k: row[k] for k in ("name", "description", "inputSchema", "peers")}))
    assert len(texts) == len(ids)
    return " ".join(texts).replace("_", " ")


def shared_words(cases: Iterable[str], ids: Iterable[str], structure: Collection[str]) -> dict[str, str]:
    """Each content word (``test_screener_structure.content_words``) that a case shares with the entries
    ``ids``, beside the case, words of ``structure`` aside: empty when the cases are true paraphrases."""
    from tests.vetting.test_screener_structure import content_words

    motivating = content_words(batch_text(*ids))
    return {word: case for case in cases for word in (content_words(case) - set(structure)) & motivating}


_WORD = re.compile(r"\w+")


def shared_any_words(cases: Iterable[str], ids: Iterable[str], structure: Collection[str] = ()) -> set[str]:
    """The words of four letters or more, in any language, that the cases share with the entries ``ids``,
    words of ``structure`` aside: empty when the cases are true paraphrases (for probes not in English)."""
    motivating = {w for w in _WORD.findall(batch_text(*ids).lower()) if len(w) > 3}
    used = {w for case in cases for w in _WORD.findall(case.lower()) if len(w) > 3}
    return (used & motivating) - set(structure)
