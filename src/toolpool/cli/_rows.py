"""Tables and JSON for the terminal at any size: rich's boxes for a screenful, plain columns
beyond; JSON records written without the standard encoder's slow indenting path.

rich measures and wraps every cell of a table before it prints one; for the 100,000 rows of
``toolpool tools`` on a 20,000-server configuration that took a minute. Past a screenful
nobody reads boxes anyway, so a long table is written as plain aligned columns (each cell
made printable and clipped), in one write. Each column is checked and padded as a whole
(a few C-level passes), not cell by cell in Python.

``json.dumps(..., indent=2)`` runs json's pure-Python encoder (about 1 s for 100,000 rows);
``print_record_columns`` writes the same bytes from the C string escaper, column by column.
Both take columns, not rows: whoever builds 100,000 rows builds them column by column too.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rich.table import Table

from toolpool.cli._common import clip, out, print_json, printable

__all__ = ["RICH_ROWS_MAX", "print_columns", "print_record_columns"]

RICH_ROWS_MAX = 1000
_CELL_MAX = 60  # a plain column is at most this wide; longer cells are clipped with "…"
_escaped: Callable[[str], str] = json.encoder.encode_basestring_ascii  # what json.dumps writes


def print_columns(headers: Sequence[str], columns: Sequence[Sequence[str]], title: str | None = None) -> None:
    """The table of ``columns`` (one per header, of equal length) under ``headers``: a rich
    table up to ``RICH_ROWS_MAX`` rows, plain columns after."""
    rows = len(columns[0]) if columns else 0
    if rows <= RICH_ROWS_MAX:
        table = Table(*headers, title=title)
        for row in zip(*columns, strict=True):
            table.add_row(*row)
        out.print(table)
        return
    plain = [_plain_column(column) for column in columns]
    widths = [max(len(header), _longest(column)) for header, column in zip(headers, plain, strict=True)]
    line = "  ".join(f"%-{width}s" for width in widths)
    lines = [(line % tuple(headers)).rstrip(), (line % tuple("-" * width for width in widths)).rstrip()]
    # A column with one value on every row (an effect, a verdict, a pin) is written into the
    # line's format once, not formatted again on each row.
    parts, varying = [], []
    for column, width in zip(plain, widths, strict=True):
        if _same(column):
            parts.append(column[0].ljust(width).replace("%", "%%"))
        else:
            parts.append(f"%-{width}s")
            varying.append(column)
    row_line = "  ".join(parts)
    if varying:
        lines += map(str.rstrip, map(row_line.__mod__, zip(*varying, strict=True)))
    else:
        lines += [(row_line % ()).rstrip()] * rows
    if title is not None:
        lines.insert(0, title)
    sys.stdout.write("\n".join(lines) + "\n")


def print_record_columns(keys: Sequence[str], columns: Sequence[Sequence[Any]]) -> None:
    """``print_json`` of the records ``{key: value}`` of each row of ``columns`` (one per key),
    byte for byte, written column by column when every column holds strings, None, or lists
    (or tuples) of strings; otherwise through ``print_json``."""
    if not columns or not len(columns[0]):
        print_json([])
        return
    fields, varying = [], []
    for key, column in zip(keys, columns, strict=True):
        value = _json_field(column)
        if value is None:
            print_json([dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)])
            return
        field, values = value
        fields.append(f"    {_escaped(key)}: {field}")
        if values is not None:
            varying.append(values)
    record = "  {\n" + ",\n".join(fields) + "\n  }"
    if varying:
        body = ",\n".join(map(record.__mod__, zip(*varying, strict=True)))
    else:
        body = ",\n".join([record % ()] * len(columns[0]))
    sys.stdout.write("[\n" + body + "\n]\n")


def _json_field(column: Sequence[Any]) -> tuple[str, Sequence[str] | None] | None:
    """How a record writes ``column``'s value: a format field and the values it takes, or the
    JSON itself when the value is the same on every row (no values); None if a value is of a
    kind ``_json_column`` does not write."""
    if _same(column):
        rendered = _json_column(column[:1])
        return None if rendered is None else (rendered[0].replace("%", "%%"), None)
    if _bare(column):
        return '"%s"', column  # nothing to escape: the strings go in as they are
    rendered = _json_column(column)
    return None if rendered is None else ("%s", rendered)


def _same(column: Sequence[Any]) -> bool:
    """Every value of ``column`` equals the first (compared in C; equal objects are often one)."""
    return column.count(column[0]) == len(column)


def _bare(column: Sequence[Any]) -> bool:
    """Strings that json.dumps writes as they are, between quotes: ASCII, printable, no quote
    and no backslash."""
    if set(map(type, column)) != {str}:
        return False
    text = "".join(column)
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def _json_column(values: Sequence[Any]) -> list[str] | None:
    """Each value as json.dumps(indent=2) writes it inside a record, or None if one is of
    another kind."""
    kinds = set(map(type, values))
    if kinds == {str}:
        return list(map(_escaped, values))
    if kinds <= {str, type(None)}:
        return ["null" if value is None else _escaped(value) for value in values]
    if kinds and kinds <= {list, tuple} and {type(item) for value in values for item in value} <= {str}:
        return [
            "[\n" + ",\n".join("      " + _escaped(item) for item in value) + "\n    ]" if value else "[]"
            for value in values
        ]
    return None


def _plain_column(column: Sequence[str]) -> Sequence[str]:
    if _same(column):
        return column if column[0] == _plain(column[0]) else [_plain(column[0])] * len(column)
    if "".join(column).isprintable() and _longest(column) <= _CELL_MAX:
        return column  # the common case: nothing to change, found in two C-level passes
    return [_plain(cell) for cell in column]


def _longest(column: Sequence[str]) -> int:
    """The longest cell's length; a column of one value is measured once."""
    return len(column[0]) if _same(column) else max(map(len, column))


def _plain(cell: str) -> str:
    if not cell.isprintable():
        cell = printable(cell)
    return cell if len(cell) <= _CELL_MAX else clip(cell, _CELL_MAX)
