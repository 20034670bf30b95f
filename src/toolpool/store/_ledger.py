"""The usage ledger's increments: how a batch of call records and usage entries becomes rows,
and the statement that adds them. ``_batch`` runs it in the transaction that stores the call
records, so the ledger's totals always equal theirs; ``_usage`` reads the ledger.

A batch's increments are summed per key first, then added with one upsert per key
(``INSERT ... ON CONFLICT DO UPDATE``, on SQLite and PostgreSQL alike), in key order: two
writers never lock the same rows in opposite orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any, Final

from toolpool.store._codec import storable
from toolpool.store._values import CallRecord, UsageEntry

__all__ = ["COLUMNS", "COUNTERS", "KEY_MAX", "upsert", "usage_rows"]

# A principal, session id or model name is clipped to this many characters in the key: they
# can be any text, and one row's key must fit a database index entry.
KEY_MAX: Final = 128
_KEY: Final = ("day", "principal", "session_id", "alias", "tool", "code")
_CALL_COUNTERS: Final = ("calls", "wait_ms", "bytes_in", "bytes_out")
_ENTRY_COUNTERS: Final = ("lists", "list_tokens", "model_requests", "input_tokens", "output_tokens")
COUNTERS: Final = _CALL_COUNTERS + _ENTRY_COUNTERS
COLUMNS: Final = _KEY + COUNTERS

_Key = tuple[date, str, str, str, str, str]


def usage_rows(records: Sequence[CallRecord], entries: Sequence[UsageEntry]) -> list[tuple[Any, ...]]:
    """The increments for the calls of ``records`` and the counts of ``entries``: one row of
    ``COLUMNS`` per key of the batch (the day a ``date``), in key order."""
    sums: dict[_Key, list[float]] = {}
    for record in records:
        counts = _counts(
            sums, _key(record.at, record.principal, record.session_id, record.alias, record.tool, record.code)
        )
        counts[0] += 1
        counts[1] += record.duration_ms
        counts[2] += record.bytes_in
        counts[3] += record.bytes_out
    for entry in entries:
        counts = _counts(sums, _key(entry.at, entry.principal, entry.session_id, entry.alias, entry.tool, ""))
        counts[4] += entry.lists
        counts[5] += entry.list_tokens
        counts[6] += entry.model_requests
        counts[7] += entry.input_tokens
        counts[8] += entry.output_tokens
    return [(*key, *_typed(sums[key])) for key in sorted(sums)]


def upsert(mark: str) -> str:
    """The statement that adds one row of ``COLUMNS`` to its key's counts; ``mark`` is the
    driver's placeholder."""
    added = ", ".join(f"{name} = usage_ledger.{name} + excluded.{name}" for name in COUNTERS)
    marks = ", ".join([mark] * len(COLUMNS))
    return (
        f"INSERT INTO usage_ledger ({', '.join(COLUMNS)}) VALUES ({marks}) "  # noqa: S608
        f"ON CONFLICT ({', '.join(_KEY)}) DO UPDATE SET {added}"
    )


def _key(at: datetime, principal: str | None, session: str | None, alias: str, tool: str, code: str) -> _Key:
    return (
        at.astimezone(UTC).date(),
        _clip(principal),
        _clip(session),
        storable(alias),
        _clip(tool),
        storable(code),
    )


def _clip(text: str | None) -> str:
    return "" if text is None else storable(text[:KEY_MAX])


def _counts(sums: dict[_Key, list[float]], key: _Key) -> list[float]:
    counts = sums.get(key)
    if counts is None:
        counts = sums[key] = [0.0] * len(COUNTERS)
    return counts


def _typed(counts: Sequence[float]) -> tuple[int | float, ...]:
    """The wait in milliseconds stays a float; every other counter is an integer."""
    return (int(counts[0]), float(counts[1]), *(int(value) for value in counts[2:]))
