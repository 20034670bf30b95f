"""The screen judge's cache in the store: one verdict per (definition hash, judge, rubric).

A verdict is written once and never changed: a second process that judged the same
definition meanwhile keeps the first answer (the write lock orders them). Nothing here is
audited: the drops a verdict causes are audited as the pool's ``mcp.desc_rejected`` events.
"""

from __future__ import annotations

import json

from sqlalchemy import insert, select

from toolpool.errors import UsageError
from toolpool.store._codec import canonical, storable
from toolpool.store._database import Database
from toolpool.store._tables import HASH_LENGTH, screen_judgements
from toolpool.vetting.judge._values import Judgement

__all__ = ["Judgements"]

_JUDGE_CHARS = 200
_RUBRIC_CHARS = 32


class Judgements:
    """The screen judge's verdicts (``toolpool.vetting.judge.Judgements``)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def judgement(self, definition_hash: str, judge: str, rubric: str) -> Judgement | None:
        """The verdict ``judge`` gave ``definition_hash`` under ``rubric``, if it gave one.

        Raises:
            UsageError: the store is closed or failed.
        """
        c = screen_judgements.c
        query = select(c.verdict, c.reasons, c.judged_at).where(
            c.definition_hash == definition_hash, c.judge == judge, c.rubric == rubric
        )
        with self._db.read() as connection:
            row = connection.execute(query).one_or_none()
        if row is None:
            return None
        return Judgement(
            drop=row.verdict == "drop", reasons=tuple(json.loads(row.reasons)), judged_at=row.judged_at
        )

    def remember(self, definition_hash: str, judge: str, rubric: str, judgement: Judgement) -> None:
        """Keep ``judgement`` unless a verdict for the same key is kept already.

        Raises:
            UsageError: a key part is malformed, or the store is closed or failed.
        """
        _check(definition_hash, judge, rubric)
        c = screen_judgements.c
        with self._db.write() as tx:
            kept = tx.connection.execute(
                select(c.verdict).where(
                    c.definition_hash == definition_hash, c.judge == judge, c.rubric == rubric
                )
            ).first()
            if kept is not None:
                return
            tx.connection.execute(
                insert(screen_judgements).values(
                    definition_hash=definition_hash,
                    judge=judge,
                    rubric=rubric,
                    verdict="drop" if judgement.drop else "pass",
                    reasons=canonical([storable(reason) for reason in judgement.reasons]),
                    judged_at=judgement.judged_at or tx.at,
                )
            )


def _check(definition_hash: str, judge: str, rubric: str) -> None:
    if not definition_hash.startswith("sha256:") or len(definition_hash) != HASH_LENGTH:
        raise UsageError(f"not a definition hash: {definition_hash[:80]!r}")
    if not 1 <= len(judge) <= _JUDGE_CHARS or not 1 <= len(rubric) <= _RUBRIC_CHARS:
        raise UsageError("a judge's name is 1-200 characters and a rubric version 1-32")
