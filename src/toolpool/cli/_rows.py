"""Tables for the terminal at any size: rich's boxes for a screenful, plain columns beyond.

rich measures and wraps every cell of a table before it prints one; for the 100,000 rows of
``toolpool tools`` on a 20,000-server configuration that took a minute. Past a screenful
nobody reads boxes anyway, so a long table is written as plain aligned columns (each cell
made printable and clipped), in one write.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rich.table import Table

from toolpool.cli._common import clip, out, printable

__all__ = ["RICH_ROWS_MAX", "print_rows"]

RICH_ROWS_MAX = 1000
_CELL_MAX = 60  # a plain column is at most this wide; longer cells are clipped with "…"


def print_rows(headers: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> None:
    """``rows`` under ``headers``: a rich table up to ``RICH_ROWS_MAX`` rows, plain columns after."""
    if len(rows) <= RICH_ROWS_MAX:
        table = Table(*headers, title=title)
        for row in rows:
            table.add_row(*row)
        out.print(table)
        return
    cells = [list(headers)] + [[_plain(cell) for cell in row] for row in rows]
    widths = [max(len(row[index]) for row in cells) for index in range(len(headers))]
    cells.insert(1, ["-" * width for width in widths])
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    if title is not None:
        lines.insert(0, title)
    sys.stdout.write("\n".join(lines) + "\n")


def _plain(cell: str) -> str:
    if not cell.isprintable():
        cell = printable(cell)
    return cell if len(cell) <= _CELL_MAX else clip(cell, _CELL_MAX)
