"""First-use rough edges of the CLI, each with the line a new user now sees (issue 19)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.test_cli_management import ok, toolpool
from toolpool.store._tables import ALEMBIC_VERSION_TABLE


def _calls_audited(folder: Path) -> list[tuple[str, str, str]]:
    events = json.loads(ok(toolpool(folder, "audit", "--json", "--limit", "200")))
    return [
        (event["resource"], event["detail"]["code"], event["detail"].get("reason", ""))
        for event in events
        if event["action"] == "call"
    ]


def _one_line(result: object) -> str:
    stderr = str(getattr(result, "stderr", ""))
    assert getattr(result, "returncode", 0) == 1 and "Traceback" not in stderr
    (line,) = stderr.strip().splitlines()
    return line


def test_calling_a_forbidden_or_disabled_tool_says_which_and_is_audited(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    forbidden = _one_line(toolpool(tmp_path, "call", "demo_alpha", "process_info"))
    assert (
        "demo_alpha/process_info is forbidden (action = false)" in forbidden
        and "toolpool enable" not in forbidden
    )
    disabled = _one_line(toolpool(tmp_path, "call", "demo_alpha", "echo", "--args", '{"text": "x"}'))
    assert "demo_alpha/echo is not enabled" in disabled and "toolpool enable" in disabled
    assert _calls_audited(tmp_path) == [
        ("demo_alpha/process_info", "tool_disabled", "forbidden"),
        ("demo_alpha/echo", "tool_disabled", "disabled"),
    ]
    refused = _one_line(toolpool(tmp_path, "enable", "demo_alpha", "process_info"))
    assert "forbidden" in refused


def test_a_call_without_the_key_its_resource_is_made_of_is_invalid_arguments_naming_it(
    tmp_path: Path,
) -> None:
    ok(toolpool(tmp_path, "init"))
    ok(toolpool(tmp_path, "enable", "demo_alpha", "lookup"))
    for arguments in ("{}", '{"key": null}'):
        result = toolpool(tmp_path, "call", "demo_alpha", "lookup", "--args", arguments, "--json")
        envelope = json.loads(result.stdout)
        assert result.returncode == 1
        assert envelope["code"] == "invalid_arguments"
        assert "'key' is required" in envelope["text"]


def test_approve_write_refuses_a_read_tool_and_a_tool_never_imported_and_audits_it(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    approve = ("--by", "ana", "--reason", "notes")
    read_tool = _one_line(toolpool(tmp_path, "approve-write", "demo_alpha", "lookup", *approve))
    assert "demo_alpha/lookup reads" in read_tool and "toolpool enable demo_alpha lookup" in read_tool
    unseen = _one_line(toolpool(tmp_path, "approve-write", "demo_beta", "write_note", *approve))
    assert "never imported" in unseen and "toolpool import demo_beta" in unseen
    unknown = _one_line(toolpool(tmp_path, "approve-write", "nobody", "x", *approve))
    assert "nobody/x is not in the configuration" in unknown
    states = {row["tool"]: row["state"] for row in json.loads(ok(toolpool(tmp_path, "tools", "--json")))}
    assert states["lookup"] == states["write_note"] == "disabled"
    events = json.loads(ok(toolpool(tmp_path, "audit", "--json", "--limit", "200")))
    assert [e["resource"] for e in events if e["action"] == "tool.approve_write_refused"] == [
        "demo_alpha/lookup",
        "demo_beta/write_note",
    ]
    ok(toolpool(tmp_path, "import", "demo_beta"))
    assert (
        json.loads(ok(toolpool(tmp_path, "approve-write", "demo_beta", "write_note", *approve, "--json")))[
            "state"
        ]
        == "enabled"
    )


def test_tools_shows_effect_forbidden_for_an_action_false_tool(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    rows = {row["tool"]: row for row in json.loads(ok(toolpool(tmp_path, "tools", "--json")))}
    assert (rows["process_info"]["effect"], rows["process_info"]["state"]) == ("forbidden", "forbidden")
    assert rows["lookup"]["effect"] == "read" and rows["write_note"]["effect"] == "write"
    table = ok(toolpool(tmp_path, "tools"))
    (line,) = [line for line in table.splitlines() if "process_info" in line]
    assert line.count("forbidden") == 2


def test_with_no_config_in_the_folder_it_says_toolpool_init_writes_one(tmp_path: Path) -> None:
    line = _one_line(toolpool(tmp_path, "tools"))
    assert "no such config file" in line and "`toolpool init` writes one here" in line


def test_secrets_delete_removes_a_secret_and_a_missing_one_is_one_line(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    ok(toolpool(tmp_path, "secrets", "set", "api_token", stdin="value-1\n"))
    assert json.loads(ok(toolpool(tmp_path, "secrets", "delete", "api_token", "--json")))["deleted"] is True
    assert json.loads(ok(toolpool(tmp_path, "secrets", "list", "--json"))) == []
    assert "there is no secret 'api_token'" in _one_line(toolpool(tmp_path, "secrets", "delete", "api_token"))


def test_import_reports_its_progress_on_stderr_and_keeps_json_on_stdout_clean(tmp_path: Path) -> None:
    ok(toolpool(tmp_path, "init"))
    result = toolpool(tmp_path, "import", "demo_alpha", "--json")
    assert sorted(row["tool"] for row in json.loads(ok(result))) == ["echo", "lookup", "process_info"]
    progress = result.stderr.strip().splitlines()
    assert (
        progress[0]
        == "toolpool: import demo_alpha: starting or reaching the server, listing and vetting its tools"
    )
    assert progress[1].startswith("toolpool: import demo_alpha: 3 tools listed, screened and stored (")


def test_a_store_a_newer_toolpool_wrote_is_one_line_for_commands_with_and_without_a_pool(
    tmp_path: Path,
) -> None:
    ok(toolpool(tmp_path, "init"))
    with sqlite3.connect(tmp_path / "toolpool.db") as database:
        database.execute(f"UPDATE {ALEMBIC_VERSION_TABLE} SET version_num = '0999'")  # noqa: S608 - our constant
    for command in (("tools",), ("call", "demo_alpha", "lookup", "--args", '{"key": "k1"}')):
        line = _one_line(toolpool(tmp_path, *command))
        assert "the store's schema (revision 0999) cannot be upgraded by this toolpool" in line
