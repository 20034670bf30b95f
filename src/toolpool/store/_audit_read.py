"""Reading the audit log as it is in the database, whatever someone wrote into it.

Nothing here trusts a column's type: SQLite keeps any value in any column (a blob, a number,
text that is not UTF-8, which ``sqlite3`` cannot even decode), and PostgreSQL keeps moments
that Python cannot hold (``infinity``). So each text column is read as the bytes of its text
(SQLite) and each moment as text in one fixed format, then parsed here: a row that does not
parse comes back with ``malformed`` saying why, never as an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    LargeBinary,
    Select,
    Text,
    case,
    cast,
    func,
    literal,
    select,
    type_coerce,
)
from sqlalchemy.engine import RowMapping

from toolpool.store._audit_format import HASH, MAC
from toolpool.store._tables import audit_events, store_head
from toolpool.store._values import AuditEvent

__all__ = ["ChainHead", "ChainRow", "event_of", "read_head", "recent_rows", "rows"]

_PAGE = 2000
_TEXT_COLUMNS = ("actor", "action", "resource", "detail", "prev_hash", "hash", "mac")
# The store writes moments to SQLite in this form; PostgreSQL's to_char below matches it.
_MOMENT = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})")
_PG_MOMENT = "YYYY-MM-DD HH24:MI:SS.US BC"  # "... AD" for every moment the store can write
_NOT_TEXT = b"\xff"  # what a non-text SQLite value reads as: never valid UTF-8
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SHOWN = 40  # characters of a bad value quoted in a reason
_HEAD_COLUMNS = ("audit_last_id", "audit_last_hash", "audit_v2_from", "audit_keyed_from", "audit_mac")
_HEAD_INTEGERS = frozenset({"audit_last_id", "audit_v2_from", "audit_keyed_from"})


@dataclass(frozen=True, slots=True)
class ChainRow:
    """One audit row as read. A ``malformed`` row (why, in one line) has empty values (the
    Unix epoch, ``{}``, ``""``) where it could not be read: it is reported, never hashed."""

    id: int
    at: datetime
    actor: str
    action: str
    resource: str
    detail_text: str
    detail: Mapping[str, Any]
    prev_hash: str
    hash: str
    mac: str | None
    malformed: str | None


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The ``store_head`` row's audit fields, checked to be of the right shape."""

    last_id: int
    last_hash: str
    v2_from: int
    keyed_from: int | None
    mac: str | None


def rows(connection: Connection, after_id: int | None = None, limit: int | None = None) -> Iterator[ChainRow]:
    """Rows in id order, after ``after_id``, at most ``limit``; read in pages."""
    left = limit
    while left is None or left > 0:
        page_size = _PAGE if left is None else min(_PAGE, left)
        query = _select(connection).order_by(audit_events.c.id).limit(page_size)
        if after_id is not None:
            query = query.where(audit_events.c.id > after_id)
        page = connection.execute(query).all()
        for raw in page:
            yield _parse(raw._mapping)
        if len(page) < page_size:
            return
        after_id = page[-1].id
        left = None if left is None else left - len(page)


def recent_rows(connection: Connection, action: str, limit: int, newer_than_id: int) -> list[ChainRow]:
    """The newest rows of ``action`` with an id above ``newer_than_id``, newest first (the id
    bound keeps this a short range scan on a log of millions)."""
    query = (
        _select(connection)
        .where(audit_events.c.id > newer_than_id, audit_events.c.action == action)
        .order_by(audit_events.c.id.desc())
        .limit(limit)
    )
    return [_parse(raw._mapping) for raw in connection.execute(query).all()]


def read_head(connection: Connection) -> ChainHead | str:
    """The head, or one line saying why there is no usable head."""
    sqlite = connection.dialect.name == "sqlite"
    columns: list[ColumnElement[Any]] = [store_head.c[name] for name in _HEAD_COLUMNS]
    if sqlite:  # as for rows: no value may reach sqlite3 as text it cannot decode
        columns = [
            _sqlite_integer(column) if name in _HEAD_INTEGERS else _sqlite_text(column)
            for name, column in zip(_HEAD_COLUMNS, columns, strict=True)
        ]
    found = connection.execute(select(*columns).where(store_head.c.id == 1)).all()
    if not found:
        return "the head row (store_head) is missing"
    unreadable: list[str] = []
    values: list[Any] = [
        value if name in _HEAD_INTEGERS else _text(name, value, unreadable)
        for name, value in zip(_HEAD_COLUMNS, found[0], strict=True)
    ]
    last_id, last_hash, v2_from, keyed_from, mac = values
    problems = [
        _check(isinstance(last_id, int) and last_id >= 0, "audit_last_id", last_id),
        _check(
            isinstance(last_hash, str) and HASH.fullmatch(last_hash) is not None, "audit_last_hash", last_hash
        ),
        _check(isinstance(v2_from, int) and v2_from >= 1, "audit_v2_from", v2_from),
        _check(
            keyed_from is None or (isinstance(keyed_from, int) and keyed_from >= 1),
            "audit_keyed_from",
            keyed_from,
        ),
        _check(mac is None or (isinstance(mac, str) and MAC.fullmatch(mac) is not None), "audit_mac", mac),
    ]
    bad = unreadable + [problem for problem in problems if problem]
    if bad:
        return "the head row (store_head) is malformed: " + "; ".join(bad)
    return ChainHead(last_id, last_hash, v2_from, keyed_from, mac)


def event_of(row: ChainRow) -> AuditEvent:
    """The row as the store hands it out."""
    return AuditEvent(
        id=row.id,
        at=row.at,
        actor=row.actor,
        action=row.action,
        resource=row.resource,
        detail=row.detail,
        prev_hash=row.prev_hash,
        hash=row.hash,
        malformed=row.malformed,
    )


def _select(connection: Connection) -> Select[Any]:
    if connection.dialect.name == "sqlite":
        texts = [_sqlite_text(audit_events.c[name]).label(name) for name in _TEXT_COLUMNS]
        at = _sqlite_text(audit_events.c.at).label("at")
    else:
        texts = [type_coerce(audit_events.c[name], Text).label(name) for name in _TEXT_COLUMNS]
        at = func.to_char(func.timezone("UTC", audit_events.c.at), _PG_MOMENT).label("at")
    return select(audit_events.c.id, at, *texts)


def _sqlite_text(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """The UTF-8 bytes of a text value, NULL for NULL, and invalid UTF-8 for anything else."""
    kind = func.typeof(column)
    return case(
        (kind == "text", cast(column, LargeBinary)),
        (kind == "null", None),
        else_=literal(_NOT_TEXT, LargeBinary),
    )


def _sqlite_integer(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """An integer as is, NULL for NULL, and a word for anything else (text included)."""
    kind = func.typeof(column)
    return case((kind == "integer", column), (kind == "null", None), else_=literal("not an integer"))


def _parse(raw: RowMapping) -> ChainRow:
    problems: list[str] = []
    row_id = raw["id"]
    if not isinstance(row_id, int):
        problems.append(f"id is not an integer: {_show(row_id)}")
        row_id = -1
    texts = {name: _text(name, raw[name], problems) for name in ("at", *_TEXT_COLUMNS)}
    for name in ("actor", "action", "resource", "detail", "prev_hash", "hash"):
        if texts[name] is None and not any(problem.startswith(name) for problem in problems):
            problems.append(f"{name} is missing")
    at = _moment(texts["at"], problems)
    detail = _detail(texts["detail"], problems)
    for name, pattern in (("prev_hash", HASH), ("hash", HASH), ("mac", MAC)):
        value = texts[name]
        if value is not None and pattern.fullmatch(value) is None:
            problems.append(f"{name} is not a {'MAC' if name == 'mac' else 'hash'}: {_show(value)}")
    mac = texts["mac"]
    return ChainRow(
        id=row_id,
        at=at or _EPOCH,
        actor=texts["actor"] or "",
        action=texts["action"] or "",
        resource=texts["resource"] or "",
        detail_text=texts["detail"] or "",
        detail=detail or {},
        prev_hash=texts["prev_hash"] or "",
        hash=texts["hash"] or "",
        mac=None if problems else mac,
        malformed="; ".join(problems) or None,
    )


def _text(name: str, value: Any, problems: list[str]) -> str | None:
    if value is None or isinstance(value, str):
        return value
    try:
        return bytes(value).decode("utf-8")
    except (TypeError, UnicodeDecodeError):
        problems.append(f"{name} is not text")
        return None


def _moment(text: str | None, problems: list[str]) -> datetime | None:
    if text is None:
        if not any(problem.startswith("at ") for problem in problems):
            problems.append("at is not a moment the database can give")
        return None
    match = _MOMENT.fullmatch(text.removesuffix(" AD"))
    try:
        if match is None:
            raise ValueError(text)
        year, month, day, hour, minute, second, micro = (int(part) for part in match.groups())
        return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC)
    except ValueError:
        problems.append(f"at is not a time: {_show(text)}")
        return None


def _detail(text: str | None, problems: list[str]) -> Mapping[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        problems.append(f"detail is not JSON: {_show(text)}")
        return None
    if not isinstance(value, dict):
        problems.append(f"detail is not a JSON object: {_show(text)}")
        return None
    return value


def _check(good: bool, name: str, value: object) -> str:
    return "" if good else f"{name} is {_show(value)}"


def _show(value: object) -> str:
    """A bad value for one line of text: quoted with escapes, cut short."""
    shown = repr(value)
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + "…"
