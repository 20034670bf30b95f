"""The usage ledger (billing): per UTC day, principal, session, alias, tool and Envelope code —
calls, wait time, bytes in and out, tool-list tokens shown to models and clients, and the
tokens models reported.

Only ``store.calls.record_calls`` writes it, in the transaction that stores the call records it
counts, so its totals always equal theirs (``_ledger`` makes the rows).

Rows that are not calls have the code ``""`` and a marker that no real alias or remote tool
name can be (both patterns exclude ``@``, R3):

- a tool list shown: ``alias`` is the alias whose tools were shown, ``tool`` is ``LISTING``;
- a model request: ``alias`` is ``MODEL``, ``tool`` the model's name (``openai:gpt-4.1``).

A principal, session id or model name is clipped to ``KEY_MAX`` characters in the key: they
can be any text, and one row's key must fit a database index entry.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import UTC, date, datetime, time
from typing import Final

from sqlalchemy import Connection, RowMapping, func, select

from toolpool.errors import UsageError
from toolpool.store._database import Database
from toolpool.store._ledger import COUNTERS, KEY_MAX
from toolpool.store._tables import call_records, usage_ledger
from toolpool.store._values import USAGE_KEYS, UsageBy, UsageTotal

__all__ = ["BY", "KEY_MAX", "LISTING", "MODEL", "Usage", "usage_day"]

LISTING: Final = "@list"
MODEL: Final = "@model"
# The ledger's key columns for each way of summing it.
BY: Final = USAGE_KEYS
_DATE: Final = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_MOMENT: Final = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})\Z"
)


class Usage:
    """The usage ledger, summed: ``store.usage``. It is written with the call records
    (``store.calls.record_calls``)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def totals(self, by: UsageBy, since: date | None = None) -> list[UsageTotal]:
        """The ledger summed per principal, session, alias, (alias, tool) or UTC day, from the
        day ``since`` on, in key order.

        Raises:
            UsageError: ``by`` is none of those.
        """
        if by not in BY:
            raise UsageError(f"cannot sum usage by {by!r}: use one of {', '.join(BY)}")
        with self._db.read() as connection:
            return _totals(connection, BY[by], since)

    def spent(self, since: datetime, codes: Collection[str]) -> dict[str, tuple[int, float]]:
        """Per principal: the calls with one of ``codes`` from ``since`` on, and their summed
        durations in seconds. Quotas are seeded from it when a pool starts, so that a restart
        does not reset them. A period that starts at midnight UTC (a day, a month) is read
        from the ledger; an hour from the call records, since the ledger counts whole days."""
        wanted = sorted(codes)
        if since.astimezone(UTC).time() == time(0):
            c = usage_ledger.c
            query = (
                select(c.principal, func.sum(c.calls), func.sum(c.wait_ms))
                .where(c.day >= since.astimezone(UTC).date(), c.code.in_(wanted))
                .group_by(c.principal)
            )
        else:
            r = call_records.c
            query = (
                select(r.principal, func.count(), func.sum(r.duration_ms))
                .where(r.at >= since, r.code.in_(wanted))
                .group_by(r.principal)
            )
        with self._db.read() as connection:
            rows = connection.execute(query).all()
        return {str(row[0] or ""): (int(row[1] or 0), float(row[2] or 0) / 1000) for row in rows}


def usage_day(text: str) -> date:
    """The UTC day that ``--since`` or ``since=`` names: ``2026-01-31``, or a moment with an
    offset (``2026-01-31T18:00:00-08:00`` is 2026-02-01). The ledger counts whole days.

    Raises:
        UsageError: anything else, in one line.
    """
    given = text.strip()
    try:
        if _DATE.match(given):
            return date.fromisoformat(given)
        if _MOMENT.match(given):
            moment = datetime.fromisoformat(given.upper().replace("Z", "+00:00"))
            return moment.astimezone(UTC).date()
    except (ValueError, OverflowError):
        pass
    shown = given if len(given) <= 40 else given[:39] + "\u2026"
    raise UsageError(f"{shown!r} is not a day (2026-01-31) or a moment with an offset (2026-01-31T12:00:00Z)")


def _totals(connection: Connection, columns: tuple[str, ...], since: date | None) -> list[UsageTotal]:
    c = usage_ledger.c
    keys = [c[name] for name in columns]
    sums = [func.sum(c[name]).label(name) for name in COUNTERS]
    query = select(*keys, c.code, *sums).group_by(*keys, c.code).order_by(*keys, c.code)
    if since is not None:
        query = query.where(c.day >= since)
    grouped: dict[tuple[str, ...], list[RowMapping]] = {}
    for row in connection.execute(query).mappings():
        grouped.setdefault(tuple(_text(row[name]) for name in columns), []).append(row)
    return [_total(dict(zip(columns, key, strict=True)), rows) for key, rows in grouped.items()]


def _text(value: object) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


def _total(key: dict[str, str], rows: Sequence[RowMapping]) -> UsageTotal:
    """One key's rows (one per code) summed. PostgreSQL sums integers as numerics: each sum
    is made an int (or, for the wait, a float) here."""

    def total(name: str) -> int:
        return sum(int(row[name] or 0) for row in rows)

    codes = {str(row["code"]): int(row["calls"]) for row in rows if row["code"] and row["calls"]}
    return UsageTotal(
        key=key,
        calls=total("calls"),
        errors=sum(count for code, count in codes.items() if code != "ok"),
        codes=codes,
        wait_ms=sum(float(row["wait_ms"] or 0) for row in rows),
        bytes_in=total("bytes_in"),
        bytes_out=total("bytes_out"),
        lists=total("lists"),
        list_tokens=total("list_tokens"),
        model_requests=total("model_requests"),
        input_tokens=total("input_tokens"),
        output_tokens=total("output_tokens"),
    )
