"""Many rows in one driver ``executemany`` inside a SQLAlchemy transaction.

SQLAlchemy's executemany builds and processes every row's parameters in Python (1.7 s of the
2 s that 100,000 new tool states took on a first sync). Here the rows are tuples already as
the driver binds them, written with the driver's own ``executemany`` on the transaction's
connection: the same transaction, the same rows. Only for values that need no type
processing but ``moment``'s (text, integers, booleans — which SQLite stores as 0/1 either way
— None, and moments).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from toolpool.errors import UsageError

__all__ = ["Writer", "bound_moment"]


def bound_moment(moment: datetime, *, sqlite: bool) -> Any:
    """``moment`` as ``UTCDateTime`` stores it: naive UTC text on SQLite (SQLAlchemy's format,
    which its reads parse and its comparisons match), an aware UTC datetime on PostgreSQL.

    Raises:
        UsageError: ``moment`` is naive.
    """
    if moment.tzinfo is None:
        raise UsageError("the store keeps moments with their zone: got a naive datetime")
    utc = moment.astimezone(UTC)
    return utc.replace(tzinfo=None).isoformat(" ", "microseconds") if sqlite else utc


class Writer:
    """The driver's view of one transaction's connection: its parameter mark and moments."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.sqlite = connection.dialect.name == "sqlite"
        self.mark = "?" if self.sqlite else "%s"
        self._last: tuple[datetime, Any] | None = None  # a sync's rows share one moment

    def moment(self, moment: datetime) -> Any:
        """``bound_moment`` on this connection's database."""
        if self._last is None or self._last[0] is not moment:
            self._last = (moment, bound_moment(moment, sqlite=self.sqlite))
        return self._last[1]

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert ``rows`` (tuples of ``columns``' values as the driver binds them)."""
        if not rows:
            return
        marks = ", ".join([self.mark] * len(columns))
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"  # noqa: S608
        self._many(sql, rows)

    def update(
        self, table: str, columns: Sequence[str], keys: Sequence[str], rows: Sequence[tuple[Any, ...]]
    ) -> None:
        """Set ``columns`` of the rows found by ``keys``: each row's tuple holds the columns'
        values, then the keys'."""
        if not rows:
            return
        assignments = ", ".join(f"{column} = {self.mark}" for column in columns)
        where = " AND ".join(f"{key} = {self.mark}" for key in keys)
        self._many(f"UPDATE {table} SET {assignments} WHERE {where}", rows)  # noqa: S608

    def _many(self, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
        error = self.connection.dialect.loaded_dbapi.Error
        cursor = self.connection.connection.cursor()
        try:
            cursor.executemany(sql, rows)
        except error as exc:  # as SQLAlchemy's own executemany raises it
            raise DBAPIError.instance(sql, None, exc, error) from exc
        finally:
            cursor.close()
