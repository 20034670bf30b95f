"""`toolpool usage`: the usage ledger summed per principal, session, alias, tool or day, as a
table, CSV or JSON, from a day on; bad input is one line and a non-zero exit. The CLI runs as
a subprocess on a SQLite store filled through the store's own API."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ALPHA_TOOLS, demo_server, usage_of_records, write_config
from toolpool.store import LISTING, MODEL, USAGE_KEYS, CallRecord, Store, UsageEntry

DAY_ONE = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
DAY_TWO = DAY_ONE + timedelta(days=1)
RECORDS = [
    CallRecord("s1", "ana", "demo_alpha", "lookup", "ok", 2.5, 10, 100, at=DAY_ONE),
    CallRecord("s1", "ana", "demo_alpha", "lookup", "denied", 0.5, 10, 60, at=DAY_ONE),
    CallRecord("s1", "ana", "demo_alpha", "echo", "ok", 1.0, 12, 30, at=DAY_TWO),
    CallRecord("s2", "bob", "demo_alpha", "lookup", "invalid_arguments", 0.25, 9, 70, at=DAY_TWO),
]
ENTRIES = [
    UsageEntry("ana", "s1", "demo_alpha", LISTING, lists=3, list_tokens=360, at=DAY_ONE),
    UsageEntry(
        "ana", "s1", MODEL, "scripted", model_requests=2, input_tokens=500, output_tokens=25, at=DAY_TWO
    ),
]


def toolpool(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "250"}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args, "--config", str(folder / "toolpool.toml")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=folder,
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("usage")
    config = write_config(made, demo_server("demo_alpha", "alpha", ALPHA_TOOLS))
    with Store.open(config.store_url) as store:
        store.calls.record_calls(RECORDS[:2], usage=ENTRIES[:1])
        store.calls.record_calls(RECORDS[2:], usage=ENTRIES[1:])
    return made


def _json(folder: Path, *args: str) -> list[dict[str, Any]]:
    result = toolpool(folder, "usage", "--json", *args)
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout))


def _one_line_error(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("toolpool: error: ") and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("by", list(USAGE_KEYS))
def test_usage_by_each_key_as_json_sums_what_the_call_records_say(folder: Path, by: str) -> None:
    columns = USAGE_KEYS[by]  # type: ignore[index]
    rows = _json(folder, "--by", by)
    got = {
        tuple(row["key"][c] for c in columns): (
            row["calls"],
            row["errors"],
            row["codes"],
            row["wait_ms"],
            row["bytes_in"],
            row["bytes_out"],
        )
        for row in rows
        if row["calls"]
    }
    assert got == usage_of_records(RECORDS, columns)
    assert sum(row["list_tokens"] for row in rows) == 360
    assert sum(row["input_tokens"] for row in rows) == 500 and sum(row["output_tokens"] for row in rows) == 25


def test_usage_by_tool_shows_the_markers_of_tool_lists_and_model_requests(folder: Path) -> None:
    rows = {(row["key"]["alias"], row["key"]["tool"]): row for row in _json(folder, "--by", "tool")}
    assert set(rows) == {
        ("demo_alpha", "echo"),
        ("demo_alpha", "lookup"),
        ("demo_alpha", "@list"),
        ("@model", "scripted"),
    }
    assert (rows["demo_alpha", "@list"]["lists"], rows["demo_alpha", "@list"]["list_tokens"]) == (3, 360)
    assert rows["@model", "scripted"]["model_requests"] == 2


def test_the_default_table_has_a_row_per_principal(folder: Path) -> None:
    result = toolpool(folder, "usage")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    ana = next(line for line in lines if " ana " in line)
    assert "denied=1" in ana and "360" in ana and "500" in ana
    assert any(" bob " in line and "invalid_arguments=1" in line for line in lines)


@pytest.mark.parametrize("since", ["2026-03-15", "2026-03-14T20:00:00-08:00"])
def test_since_starts_at_a_utc_day(folder: Path, since: str) -> None:
    rows = _json(folder, "--by", "day", "--since", since)
    assert [(row["key"]["day"], row["calls"]) for row in rows] == [("2026-03-15", 2)]


def test_csv_is_a_header_and_one_row_per_key(folder: Path) -> None:
    result = toolpool(folder, "usage", "--by", "principal", "--csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["principal"] for row in rows] == ["ana", "bob"]
    assert (rows[0]["calls"], rows[0]["errors"], rows[0]["codes"], rows[0]["list_tokens"]) == (
        "3",
        "1",
        "denied=1",
        "360",
    )
    assert rows[1]["codes"] == "invalid_arguments=1"


def test_a_day_with_nothing_recorded_says_so(folder: Path) -> None:
    result = toolpool(folder, "usage", "--since", "2999-01-01")
    assert (result.returncode, result.stdout.strip()) == (0, "no usage recorded since that day")
    assert _json(folder, "--since", "2999-01-01") == []
    empty = toolpool(folder, "usage", "--csv", "--by", "tool", "--since", "2999-01-01")
    assert (
        empty.stdout
        == "alias,tool,calls,errors,codes,wait_ms,bytes_in,bytes_out,lists,list_tokens,model_requests,input_tokens,output_tokens\n"
    )


def test_a_bad_by_is_one_line_and_exits_non_zero(folder: Path) -> None:
    _one_line_error(
        toolpool(folder, "usage", "--by", "user"),
        "--by 'user': choose one of principal, session, alias, tool, day",
    )
    _one_line_error(toolpool(folder, "usage", "--by", "x\x1b[31m" * 30), "choose one of")


@pytest.mark.parametrize("since", ["2026-02-30", "2026-03-15T00:00:00"])
def test_a_bad_since_is_one_line_and_exits_non_zero(folder: Path, since: str) -> None:
    _one_line_error(
        toolpool(folder, "usage", "--since", since), "is not a day (2026-01-31) or a moment with an offset"
    )


def test_csv_and_json_together_is_one_line(folder: Path) -> None:
    _one_line_error(toolpool(folder, "usage", "--csv", "--json"), "--csv and --json: choose one")
