"""`toolpool audit` and `toolpool audit --verify` on a log that was tampered with: every
malformed row or head is one clear line, never a traceback; --verify exits 1 when the chain is
not intact, with --json too. The CLI runs as a subprocess on a store `toolpool init` made."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

KEY_ENV = "TOOLPOOL_SECRET_KEY"


def toolpool(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != KEY_ENV} | {"NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=folder,
    )


@pytest.fixture(scope="module")
def initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("initialised")
    result = toolpool(folder, "init")
    assert result.returncode == 0, result.stderr
    return folder


@pytest.fixture
def folder(initialised: Path, tmp_path: Path) -> Path:
    """A copy of a store that `toolpool init` made: four events, keyed from the first."""
    copy = tmp_path / "store"
    shutil.copytree(initialised, copy)
    return copy


def _tamper(folder: Path, *statements: str) -> None:
    with sqlite3.connect(folder / "toolpool.db") as database:
        for statement in statements:
            database.execute(statement)


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout


def test_audit_lists_malformed_rows_with_one_line_each(folder: Path) -> None:
    _tamper(
        folder,
        "UPDATE audit_events SET at = 'yesterday' WHERE id = 2",
        "UPDATE audit_events SET detail = '{not json' WHERE id = 3",
        "UPDATE audit_events SET actor = CAST(x'ff' AS TEXT) WHERE id = 4",
        "UPDATE audit_events SET actor = '[/bold]' || char(27) || '[31mred' WHERE id = 1",
    )
    listed = toolpool(folder, "audit")
    _no_traceback(listed)
    assert listed.returncode == 0
    assert "[/bold]\\x1b[31mred" in listed.stdout and "\x1b" not in listed.stdout
    assert listed.stderr.splitlines() == [
        "toolpool: event 2 is malformed: at is not a time: 'yesterday'",
        "toolpool: event 3 is malformed: detail is not JSON: '{not json'",
        "toolpool: event 4 is malformed: actor is not text",
    ]
    rows = json.loads(toolpool(folder, "audit", "--json").stdout)
    assert [(row["id"], row["malformed"] is not None) for row in rows] == [
        (1, False),
        (2, True),
        (3, True),
        (4, True),
    ]
    assert rows[1]["at"] is None and rows[2]["detail"] == {}


def test_audit_verify_names_a_malformed_row_in_one_line_and_exits_1(folder: Path) -> None:
    _tamper(folder, "UPDATE audit_events SET detail = '{not json' WHERE id = 3")
    verified = toolpool(folder, "audit", "--verify")
    _no_traceback(verified)
    assert verified.returncode == 1
    assert verified.stderr.splitlines() == [
        "toolpool: error: audit chain broken at event 3: malformed "
        "(detail is not JSON: '{not json'; 3 events read)"
    ]
    as_json = toolpool(folder, "audit", "--verify", "--json")
    assert as_json.returncode == 1 and len(as_json.stderr.splitlines()) == 1
    verdict = json.loads(as_json.stdout)
    assert (verdict["ok"], verdict["first_bad_id"], verdict["problem"]) == (False, 3, "malformed")


def test_audit_and_verify_survive_a_deleted_head_row(folder: Path) -> None:
    _tamper(folder, "DELETE FROM store_head")
    listed = toolpool(folder, "audit", "--json")
    _no_traceback(listed)
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 4
    verified = toolpool(folder, "audit", "--verify", "--json")
    _no_traceback(verified)
    assert verified.returncode == 1
    assert verified.stderr.splitlines() == [
        "toolpool: error: audit chain broken at its head: head "
        "(the head row (store_head) is missing; 0 events read)"
    ]
    assert json.loads(verified.stdout)["problem"] == "head"


def test_audit_verify_names_renumbered_rows(folder: Path) -> None:
    _tamper(folder, "UPDATE audit_events SET id = id + 1000 WHERE id >= 3")
    verified = toolpool(folder, "audit", "--verify")
    assert verified.returncode == 1
    assert verified.stderr.startswith("toolpool: error: audit chain broken at event 1003: renumbered")
