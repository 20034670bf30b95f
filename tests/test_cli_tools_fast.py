"""``toolpool tools`` shows what it always showed, however it reads the store: the table and
``--json`` are compared byte for byte with what the command wrote before it read a synced
SQLite store on the driver alone and built its columns directly (``expected_rows`` and
``expected_table`` below restate that behaviour from the store's full API), on a small
configuration (rich's table) and one past ``RICH_ROWS_MAX`` (plain columns), on the first run
(a new store, synced), again (the driver's read), and after another process's change (a sync
of what differs) — with every state a row can show: forbidden, not imported, disabled,
enabled, pinned, changed, dropped with reasons, approved to write."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

from toolpool import load_config
from toolpool._hashing import definition_hash
from toolpool.cli._rows import RICH_ROWS_MAX, print_columns, print_record_columns
from toolpool.store import ImportedTool, ListedState, Store
from toolpool.store._sqlite_read import SHOWN_SQL, shown_of, sqlite_file, synced_shown

_TIMEOUT_S = 300.0
_WIDTH = 200  # the terminal's width for rich's table, in the command and in the expectation
_HEADERS = ("alias", "tool", "action", "effect", "state", "verdict", "pin")
_CELL_MAX = 60  # cli._rows: a plain column's widest cell; longer ones are clipped with "…"
_LONG = "t" * 70  # a tool name the plain table clips
_ODD = ('ünïcode "quoted" \\ back', "tab\there\nnewline", "\x1b[31mred")


def _write_config(folder: Path, servers: int) -> Path:
    """``servers`` aliases of four tools each (one forbidden, one that writes), a long name on
    the first; the order is not the store's (aliases counted down)."""
    lines = ["[pool]", "max_tools_per_server = 10"]
    for number in reversed(range(servers)):
        alias = f"srv{number:04d}"
        lines += [f"[servers.{alias}]", 'transport = "stdio"', 'command = "python"']
        names = ["zeta", "alpha", "writer", "gone"] + ([_LONG] if number == 0 else [])
        for name in names:
            action = "false" if name == "gone" else f'"{alias}.{name[:20]}"'
            effect = "write" if name == "writer" else "read"
            lines += [f"[servers.{alias}.tools.{name}]", f"action = {action}", f'effect = "{effect}"']
    path = folder / "toolpool.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _definition(name: str, version: int) -> dict[str, Any]:
    return {"name": name, "description": f"{name} v{version}", "inputSchema": {"type": "object"}}


def _import(store: Store, alias: str, names: list[str], version: int, *, dropped: bool = False) -> None:
    tools = []
    for name in names:
        definition = _definition(name, version)
        verdict, reasons = ("drop", _ODD) if dropped and name == "zeta" else ("pass", ())
        tools.append(ImportedTool(name, definition, definition_hash(definition), verdict, 1.0, reasons))
    store.tools.record_import(alias, tools, "test")


def _make_states(config: Path, servers: int) -> None:
    """Every state a row can show, spread over the aliases (srv0000 keeps the odd ones)."""
    with Store.open(load_config(config).store_url) as store:
        for number in range(0, servers, 2):  # the odd aliases stay never imported
            alias = f"srv{number:04d}"
            _import(store, alias, ["zeta", "alpha", "writer"], 1, dropped=number == 0)
            if number % 4 == 0:
                store.tools.enable(alias, "alpha", "ana")
            definition = _definition("alpha", 1)
            store.pins.approve_pin(alias, "alpha", definition, definition_hash(definition), "ana")
            if number % 8 == 0:
                store.tools.approve_write(alias, "writer", "Ana Ö.", "reviewed\tit", "ana")
        # srv0000/alpha was approved at version 1; importing version 2 changes its pin.
        _import(store, "srv0000", ["zeta", "alpha", "writer"], 2, dropped=True)
        # A pin of a tool never imported: pinned (no definition differs from it).
        definition = _definition("alpha", 1)
        store.pins.approve_pin("srv0001", "alpha", definition, definition_hash(definition), "ana")


def expected_rows(config: Path) -> list[dict[str, Any]]:
    """The rows ``toolpool tools --json`` wrote before this change, from the store's full API."""
    loaded = load_config(config)
    with Store.open(loaded.store_url) as store:
        states = {(state.alias, state.name): state for state in store.tools.tool_states()}
    rows = []
    for alias, spec in loaded.servers.items():
        for name, policy in spec.tools.items():
            state, action = states.get((alias, name)), policy.action
            if action is False:
                shown = "forbidden"
            else:
                shown = "not imported" if state is None else "enabled" if state.enabled else "disabled"
            pin = "-"
            if state is not None and state.approved_hash is not None:
                pin = "changed" if state.current_hash not in (None, state.approved_hash) else "pinned"
            rows.append(
                {
                    "alias": alias,
                    "tool": name,
                    "local_name": f"mcp__{alias}__{name}",
                    "action": action or None,
                    "effect": "forbidden" if action is False else policy.effect,
                    "state": shown,
                    "verdict": None if state is None else state.verdict,
                    "reasons": [] if state is None else list(state.reasons),
                    "pin": pin,
                    "write_approved_by": None if state is None else state.write_approved_by,
                }
            )
    return rows


def expected_table(rows: list[dict[str, Any]]) -> str:
    """The table ``toolpool tools`` printed before this change: rich's up to RICH_ROWS_MAX
    rows, then plain columns (cells printable, clipped, padded with ``%-Ns``, lines stripped)."""
    cells = [
        (
            row["alias"],
            row["tool"],
            row["action"] or "-",
            row["effect"],
            row["state"],
            row["verdict"] or "-",
            row["pin"],
        )
        for row in rows
    ]
    if len(cells) <= RICH_ROWS_MAX:
        table = Table(*_HEADERS)
        for row in cells:
            table.add_row(*row)
        buffer = io.StringIO()
        Console(file=buffer, width=_WIDTH, no_color=True, color_system=None).print(table)
        return buffer.getvalue()
    return _plain_table(_HEADERS, cells)


def _plain_table(headers: tuple[str, ...], cells: list[tuple[str, ...]]) -> str:
    clipped = [tuple(_clip(cell) for cell in row) for row in cells]
    widths = [max(len(header), *(len(row[i]) for row in clipped)) for i, header in enumerate(headers)]
    line = "  ".join(f"%-{width}s" for width in widths)
    lines = [line % headers, line % tuple("-" * width for width in widths)]
    lines += [line % row for row in clipped]
    return "".join(text.rstrip() + "\n" for text in lines)


def _clip(cell: str) -> str:
    """A plain cell as it was: each character not printable as its escape, then clipped."""
    cell = "".join(char if char.isprintable() else repr(char)[1:-1] for char in cell)
    if len(cell) <= _CELL_MAX:
        return cell
    flat = " ".join(cell.split())
    return flat if len(flat) <= _CELL_MAX else flat[: _CELL_MAX - 1] + "…"


def _tools(config: Path, *more: str) -> str:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TOOLPOOL_")}
    done = subprocess.run(
        [sys.executable, "-m", "toolpool", "tools", "--config", str(config), *more],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        env=env | {"NO_COLOR": "1", "COLUMNS": str(_WIDTH), "TERM": "dumb"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _runs(config: Path) -> Iterator[str]:
    """The three kinds of run, each named: the caller runs both outputs, then checks them."""
    yield "first"  # changes since the last sync: the listing kept beside the config is synced
    # A sync gives every tool named a row; one without (written in between, no release) shows
    # as not imported until the next sync.
    path = sqlite_file(load_config(config).store_url)
    assert path is not None
    with sqlite3.connect(path) as database:
        database.execute("DELETE FROM tool_states WHERE alias = 'srv0001' AND name = 'zeta'")
    yield "again"  # the store holds this text's sync: the driver's read
    with Store.open(load_config(config).store_url) as store:  # another process's change
        store.tools.disable("srv0000", "alpha", "bob")
        store.tools.enable("srv0002", "zeta", "bob")
    yield "after another process's change"  # a sync of the listing kept beside the config


@pytest.mark.parametrize("servers", [3, 300], ids=["rich table", "plain columns"])
def test_the_table_and_json_are_byte_for_byte_what_they_were(tmp_path: Path, servers: int) -> None:
    config = _write_config(tmp_path, servers)
    _tools(config)  # creates the store, so that states can be made in it
    _make_states(config, servers)
    seen: list[dict[str, Any]] = []
    for run in _runs(config):
        shown, table = _tools(config, "--json"), _tools(config)
        rows = expected_rows(config)  # after the runs: the state they synced and read
        assert (len(rows) > RICH_ROWS_MAX) == (servers == 300)
        assert shown == json.dumps(rows, indent=2) + "\n", run
        assert table == expected_table(rows), run
        seen += rows
    assert {row["state"] for row in seen} == {"forbidden", "not imported", "disabled", "enabled"}
    assert {row["pin"] for row in seen} == {"-", "pinned", "changed"}
    assert any(row["reasons"] for row in seen) and any(row["write_approved_by"] for row in seen)
    assert any(len(row["tool"]) > _CELL_MAX for row in seen)


def test_the_drivers_read_answers_only_for_a_synced_store_at_this_schema(tmp_path: Path) -> None:
    config = _write_config(tmp_path, 2)
    _tools(config)
    url = load_config(config).store_url
    text_hash = json.loads((tmp_path / ".toolpool.toml.listing").read_bytes().partition(b"\n")[0])["hash"]
    shown = synced_shown(url, text_hash)
    assert shown is not None and len(shown) == 9  # every tool named, the forbidden ones too
    assert synced_shown(url, "sha256:" + "0" * 64) is None  # another text: not synced
    with Store.open(url) as store:
        _import(store, "srv0000", ["alpha"], 1)
        store.tools.enable("srv0000", "alpha", "bob")  # a release since the sync
    assert synced_shown(url, text_hash) is None
    assert synced_shown(url.replace("toolpool.db", "missing.db"), text_hash) is None
    assert not (tmp_path / "missing.db").exists()  # nothing is created
    _tools(config)  # synced again
    assert synced_shown(url, text_hash) is not None
    path = sqlite_file(url)
    assert path is not None
    with sqlite3.connect(path) as database:
        database.execute("UPDATE toolpool_schema_version SET version_num = '0999'")
    assert synced_shown(url, text_hash) is None  # another schema: the store is opened as always


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:////tmp/x/toolpool.db", "/tmp/x/toolpool.db"),
        ("sqlite:///toolpool.db", "toolpool.db"),
        ("sqlite:///:memory:", None),
        ("sqlite:///file:x.db?mode=ro&uri=true", None),
        ("sqlite:////tmp/a%20b.db", None),
        ("sqlite:///", None),
        ("sqlite://host/x.db", None),
        ("sqlite+pysqlite:///x.db", None),
        ("postgresql+psycopg://u@h/db", None),
    ],
)
def test_only_a_plain_sqlite_file_url_is_read_on_the_driver(url: str, path: str | None) -> None:
    assert sqlite_file(url) == path


def test_the_shown_query_says_what_shown_of_says_of_each_listed_state(tmp_path: Path) -> None:
    config = _write_config(tmp_path, 8)
    _tools(config)
    _make_states(config, 8)
    url = load_config(config).store_url
    with Store.open(url) as store:
        states: dict[tuple[str, str], ListedState] = dict(store.tools.listed_states())
    path = sqlite_file(url)
    assert path is not None
    with sqlite3.connect(path) as database:
        rows = database.execute(SHOWN_SQL).fetchall()
    by_sql = {(row[0], row[1]): (row[2], row[3], tuple(json.loads(row[4] or "[]")), row[5]) for row in rows}
    assert by_sql == {key: shown_of(state) for key, state in states.items()}
    # disabled, enabled (a write approval), pinned, enabled and pinned, enabled and changed
    assert {code for code, *_ in by_sql.values()} == {0, 1, 2, 3, 5}


@pytest.mark.parametrize(
    "constant",
    ["read", "50% off", "%s%%", "x" * 70, "tab\there", "", 'ünï "q" \\ b'],
    ids=["plain", "percent", "format", "long", "control", "empty", "escapes"],
)
def test_a_column_with_one_value_is_written_as_every_row_would_be(
    constant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = RICH_ROWS_MAX + 5
    varying = [f"t{number}%d" for number in range(rows)]
    columns = [varying, [constant] * rows, [None] * rows, [()] * rows, [("a%", "b")] * rows]
    keys = ("tool", "same", "none", "empty", "list")
    print_record_columns(keys, columns)
    records = [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]
    assert capsys.readouterr().out == json.dumps(records, indent=2) + "\n"
    for table in ([varying, [constant] * rows], [[constant] * rows, [constant] * rows]):
        print_columns(("tool", "same"), table)
        assert capsys.readouterr().out == _plain_table(("tool", "same"), list(zip(*table, strict=True)))
