"""The judge's values: a cached judgement, one review's outcome, and where judgements are kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

__all__ = ["JudgeVerdict", "Judgement", "Judgements", "MemoryJudgements"]


@dataclass(frozen=True, slots=True)
class Judgement:
    """What a judge decided about one definition: ``reasons`` are the model's words, already
    made safe to store and show (bounded, no control characters), but still untrusted."""

    drop: bool
    reasons: tuple[str, ...] = ()
    judged_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """One review: a judgement, or the reason there is none (``failure``, local text; the
    rules' verdict then stands). ``cached``: no model call was made."""

    judgement: Judgement | None
    failure: str | None = None
    cached: bool = False
    truncated: bool = False

    @property
    def drop(self) -> bool:
        return self.judgement is not None and self.judgement.drop


class Judgements(Protocol):
    """Where judgements are kept, keyed by definition hash, judge name and rubric version
    (``Store.judgements``, or ``MemoryJudgements``)."""

    def judgement(self, definition_hash: str, judge: str, rubric: str) -> Judgement | None: ...

    def remember(self, definition_hash: str, judge: str, rubric: str, judgement: Judgement) -> None: ...


class MemoryJudgements:
    """Judgements kept in memory, for a pool without a store."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str, str], Judgement] = {}

    def judgement(self, definition_hash: str, judge: str, rubric: str) -> Judgement | None:
        return self._kept.get((definition_hash, judge, rubric))

    def remember(self, definition_hash: str, judge: str, rubric: str, judgement: Judgement) -> None:
        self._kept.setdefault((definition_hash, judge, rubric), judgement)
