"""``toolpool usage``: the usage ledger (billing) summed per principal, session, alias, tool or
day, as a table, CSV or JSON; ``--quotas``: each principal's quota, used / limit."""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    app,
    cell,
    fail,
    load,
    out,
    print_json,
    printable,
    secret_key,
)
from toolpool.errors import UsageError
from toolpool.store import USAGE_KEYS, UsageBy, UsageTotal  # values only: no SQLAlchemy

__all__ = ["COLUMNS", "usage", "usage_row"]

BY_CHOICES: tuple[UsageBy, ...] = tuple(USAGE_KEYS)
# Every total's counts, in the order the table, the CSV and the JSON give them.
COLUMNS = (
    "calls",
    "errors",
    "codes",
    "wait_ms",
    "bytes_in",
    "bytes_out",
    "lists",
    "list_tokens",
    "model_requests",
    "input_tokens",
    "output_tokens",
)
_HEADERS = (
    "calls",
    "errors",
    "by code",
    "wait ms",
    "in B",
    "out B",
    "lists",
    "list tok",
    "model req",
    "in tok",
    "out tok",
)


@app.command()
def usage(
    by: Annotated[
        str, typer.Option("--by", help=f"Sum per {', '.join(BY_CHOICES)} (the alias and tool for 'tool').")
    ] = "principal",
    since: Annotated[
        str | None,
        typer.Option("--since", help="From this UTC day on: 2026-01-31, or a moment with an offset."),
    ] = None,
    as_csv: Annotated[
        bool, typer.Option("--csv", help="Print CSV (a header, then one row per key).")
    ] = False,
    quotas: Annotated[
        bool,
        typer.Option("--quotas", help="Each principal's quota: used / limit in the current UTC period."),
    ] = False,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """The usage ledger: calls, errors by code, wait time, bytes, tool-list tokens shown and
    model tokens, summed per principal, session, alias, tool or day.

    Rows whose tool is @list count tool lists shown to models and clients; rows whose alias is
    @model count model requests and the tokens their providers reported. The store is read
    as it is: nothing is written.
    """
    chosen = _choice(by)
    if as_csv and as_json:
        fail("--csv and --json: choose one")
    if quotas:
        if as_csv:
            fail("--quotas prints a table or JSON: drop --csv")
        _print_quotas(config, as_json)
        return
    from toolpool.store import Store  # cli._common says why here

    day = None if since is None else _day(since)
    loaded = load(config)
    with Store.open(loaded.store_url, key=secret_key(loaded)) as store:
        totals = store.usage.totals(chosen, day)
    keys = USAGE_KEYS[chosen]
    if as_json:
        print_json([usage_row(total) for total in totals])
    elif as_csv:
        _write_csv(keys, totals)
    else:
        _print_table(keys, totals, day is not None)


def _print_quotas(config: Path, as_json: bool) -> None:
    """``--quotas``: the calls that reached an upstream and their wait, against each quota."""
    loaded = load(config)
    from toolpool.calls import quota_standings  # the call pipeline: slow to import
    from toolpool.store import Store

    with Store.open(loaded.store_url, key=secret_key(loaded)) as store:
        standings = quota_standings(loaded.principals, store, datetime.now(UTC))
    if as_json:
        print_json([standing.as_dict() for standing in standings])
        return
    if not standings:
        out.print("no quotas: set quota_calls or quota_wait_s under [principals.NAME]", highlight=False)
        return
    table = Table("principal", "period", "calls", "wait s", "renews (UTC)", "state")
    for standing in standings:
        table.add_row(
            cell(standing.principal or "-"),
            standing.period,
            f"{standing.calls} / {_limit(standing.calls_limit)}",
            f"{standing.wait_s:.1f} / {_limit(standing.wait_limit_s)}",
            f"{standing.renews:%Y-%m-%d %H:%M}",
            "exceeded" if standing.exceeded else "ok",
        )
    out.print(table)


def _limit(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _choice(by: str) -> UsageBy:
    for choice in BY_CHOICES:
        if by == choice:
            return choice
    shown = by if len(by) <= 40 else by[:39] + "\u2026"
    return fail(f"--by {printable(repr(shown))}: choose one of {', '.join(BY_CHOICES)}")  # type: ignore[no-any-return]


def _day(since: str) -> date:
    from toolpool.store import usage_day

    try:
        return usage_day(since)
    except UsageError as exc:
        return fail(f"--since {printable(str(exc))}")  # type: ignore[no-any-return]


def usage_row(total: UsageTotal) -> dict[str, object]:
    """One total as plain data: ``key`` (its key's columns), then ``COLUMNS``."""
    return {
        "key": dict(total.key),
        "calls": total.calls,
        "errors": total.errors,
        "codes": dict(total.codes),
        "wait_ms": round(total.wait_ms, 3),
        "bytes_in": total.bytes_in,
        "bytes_out": total.bytes_out,
        "lists": total.lists,
        "list_tokens": total.list_tokens,
        "model_requests": total.model_requests,
        "input_tokens": total.input_tokens,
        "output_tokens": total.output_tokens,
    }


def _codes(codes: object) -> str:
    assert isinstance(codes, dict)
    return " ".join(f"{code}={count}" for code, count in sorted(codes.items()) if code != "ok")


def _write_csv(keys: Sequence[str], totals: Sequence[UsageTotal]) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([*keys, *COLUMNS])
    for total in totals:
        row = usage_row(total)
        writer.writerow(
            [
                *(total.key[key] for key in keys),
                *(_codes(row[n]) if n == "codes" else row[n] for n in COLUMNS),
            ]
        )


def _print_table(keys: Sequence[str], totals: Sequence[UsageTotal], since: bool) -> None:
    if not totals:
        out.print("no usage recorded" + (" since that day" if since else ""), highlight=False)
        return
    table = Table(*keys, *_HEADERS)
    for total in totals:
        row = usage_row(total)
        table.add_row(
            *(cell(total.key[key] or "-") for key in keys),
            *(cell(_codes(row[n]) if n == "codes" else str(row[n])) for n in COLUMNS),
        )
    out.print(table)
