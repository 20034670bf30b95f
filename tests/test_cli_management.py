"""The management CLI end to end, in a temporary folder: init -> import -> tools -> enable ->
call -> audit --verify, plus secrets from stdin, write approvals, stats, and a tampered log."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

KEY_ENV = "TOOLPOOL_SECRET_KEY"


def toolpool(folder: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != KEY_ENV} | {"NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=folder,
        input=stdin,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_whole_flow_from_init_to_a_verified_audit_log(tmp_path: Path) -> None:
    init = json.loads(ok(toolpool(tmp_path, "init", "--json")))
    assert stat.S_IMODE((tmp_path / "toolpool.key").stat().st_mode) == 0o600
    assert (tmp_path / "toolpool.db").exists() and init["next"]

    imported = json.loads(ok(toolpool(tmp_path, "import", "demo_alpha", "--json")))
    assert {(row["tool"], row["state"], row["verdict"]) for row in imported} == {
        ("lookup", "disabled", "pass"),
        ("echo", "disabled", "pass"),
        ("process_info", "forbidden", "pass"),
    }
    before = {row["tool"]: row["state"] for row in json.loads(ok(toolpool(tmp_path, "tools", "--json")))}
    assert before["lookup"] == "disabled"

    refused = toolpool(tmp_path, "call", "demo_alpha", "lookup", "--args", '{"key": "k1"}')
    assert refused.returncode == 1 and "not enabled" in refused.stderr

    enabled = json.loads(ok(toolpool(tmp_path, "enable", "demo_alpha", "lookup", "--json")))
    assert enabled["state"] == "enabled" and enabled["release"] > 1
    assert (
        ok(toolpool(tmp_path, "call", "demo_alpha", "lookup", "--args", '{"key": "k1"}')).strip()
        == "alpha:v1"
    )

    verified = json.loads(ok(toolpool(tmp_path, "audit", "--verify", "--json")))
    assert verified["ok"] and verified["checked"] >= 5
    actions = [
        event["action"] for event in json.loads(ok(toolpool(tmp_path, "audit", "--json", "--limit", "50")))
    ]
    assert "tool.import" in actions and "tool.enable" in actions and "call" in actions
    stats = json.loads(ok(toolpool(tmp_path, "stats", "--json")))
    assert any(row["tool"] == "lookup" and row["codes"] == {"ok": 1} for row in stats)


def test_a_write_tool_needs_an_approval_with_who_and_why(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    ok(toolpool(tmp_path, "import", "demo_beta"))
    refused = toolpool(tmp_path, "enable", "demo_beta", "write_note")
    assert refused.returncode == 1
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    approved = json.loads(
        ok(
            toolpool(
                tmp_path,
                "approve-write",
                "demo_beta",
                "write_note",
                "--by",
                "ana",
                "--reason",
                "notes",
                "--json",
            )
        )
    )
    assert approved["state"] == "enabled" and approved["write_approved_by"] == "ana"
    assert (
        ok(toolpool(tmp_path, "call", "demo_beta", "write_note", "--args", '{"text": "hi"}')).strip()
        == "note-1"
    )


def test_secrets_are_read_from_stdin_stored_encrypted_and_listed_by_name_only(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    ok(toolpool(tmp_path, "secrets", "set", "api_token", stdin="s3cret-value-123\n"))
    assert json.loads(ok(toolpool(tmp_path, "secrets", "list", "--json"))) == [
        {"name": "api_token", "principal": ""}
    ]
    with sqlite3.connect(tmp_path / "toolpool.db") as database:
        stored = b"".join(str(row).encode() for row in database.execute("SELECT * FROM secrets"))
        audited = "".join(str(row) for row in database.execute("SELECT * FROM audit_events"))
    assert b"s3cret-value-123" not in stored and "s3cret-value-123" not in audited
    empty = toolpool(tmp_path, "secrets", "set", "blank", stdin="")
    assert empty.returncode == 1 and "empty" in empty.stderr


def test_secrets_per_principal_are_set_listed_by_name_and_principal_and_deleted(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    ok(toolpool(tmp_path, "secrets", "set", "gh", "--principal", "ana", stdin="ana-value-wxyz\n"))
    ok(toolpool(tmp_path, "secrets", "set", "gh", "--principal", "bob", stdin="bob-value-wxyz\n"))
    ok(toolpool(tmp_path, "secrets", "set", "gh", stdin="pool-value-wxyz\n"))
    listed = json.loads(ok(toolpool(tmp_path, "secrets", "list", "--json")))
    assert listed == [
        {"name": "gh", "principal": ""},
        {"name": "gh", "principal": "ana"},
        {"name": "gh", "principal": "bob"},
    ]
    table = ok(toolpool(tmp_path, "secrets", "list"))
    assert "ana" in table and "(pool-wide)" in table and "value" not in table
    ok(toolpool(tmp_path, "secrets", "delete", "gh", "--principal", "ana"))
    remaining = json.loads(ok(toolpool(tmp_path, "secrets", "list", "--json")))
    assert [entry["principal"] for entry in remaining] == ["", "bob"]
    missing = toolpool(tmp_path, "secrets", "delete", "gh", "--principal", "ana")
    assert missing.returncode == 1 and "no secret 'gh' for principal 'ana'" in missing.stderr
    with sqlite3.connect(tmp_path / "toolpool.db") as database:
        audited = "".join(str(row) for row in database.execute("SELECT * FROM audit_events"))
    # Whole values with letters outside hex: a digit run could turn up in a hash by chance.
    assert "secret.delete" in audited and "value-wxyz" not in audited


def test_secrets_need_a_key_and_say_where_it_comes_from(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    (tmp_path / "toolpool.key").unlink()
    result = toolpool(tmp_path, "secrets", "set", "api_token", stdin="value-123\n")
    assert result.returncode == 1 and "TOOLPOOL_SECRET_KEY" in result.stderr


def test_audit_verify_reports_the_first_row_edited_by_hand(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    ok(toolpool(tmp_path, "import", "demo_alpha"))
    ok(toolpool(tmp_path, "enable", "demo_alpha", "echo"))
    with sqlite3.connect(tmp_path / "toolpool.db") as database:
        database.execute("UPDATE audit_events SET actor = 'mallory' WHERE id = 3")
    result = toolpool(tmp_path, "audit", "--verify")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "toolpool: error: audit chain broken at event 3: edited "
        "(its content no longer gives its hash; 3 events read)"
    )


def test_init_never_overwrites_an_existing_config(tmp_path: Path) -> None:
    (tmp_path / "toolpool.toml").write_text("# mine\n")
    result = toolpool(tmp_path, "init")
    assert result.returncode == 1 and "already exists" in result.stderr
    assert (tmp_path / "toolpool.toml").read_text() == "# mine\n"


def test_import_takes_in_a_configuration_edited_since_the_store_last_synced_it(tmp_path: Path) -> None:
    # import syncs the whole configuration only when the store does not hold this very text:
    # an edit to another server's policy must still land in the store.
    ok(toolpool(tmp_path, "init", "--json"))
    ok(toolpool(tmp_path, "tools", "--json"))  # the store now holds the configuration as written
    config = tmp_path / "toolpool.toml"
    text = config.read_text(encoding="utf-8")
    lookup = '[servers.demo_beta.tools.lookup]\naction = "beta.lookup"\neffect = "read"\n'
    assert lookup in text
    config.write_text(
        text.replace(lookup, "[servers.demo_beta.tools.lookup]\naction = false\n"), encoding="utf-8"
    )
    ok(toolpool(tmp_path, "import", "demo_alpha", "--json"))
    with sqlite3.connect(tmp_path / "toolpool.db") as database:
        stored = database.execute(
            "SELECT action FROM tool_states WHERE alias = 'demo_beta' AND name = 'lookup'"
        ).fetchall()
    assert stored == [(None,)]  # forbidden now: no action
