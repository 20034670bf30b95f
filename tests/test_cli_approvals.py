"""``toolpool approvals`` end to end, in subprocesses: a call waits for approval, an operator
lists and approves it, the same call retried in its session runs once; errors are one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import BETA_TOOLS, demo_server, write_config
from tests.test_cli_management import ok, toolpool

NOTE = ["call", "demo_beta", "write_note", "--args", '{"text": "ship it"}', "--json"]


def _config(folder: Path) -> None:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": "each_call"}}
    write_config(folder, demo_server("demo_beta", "beta", beta))


def _called(folder: Path, *extra: str) -> dict[str, Any]:
    result = toolpool(folder, *NOTE, *extra)
    called: dict[str, Any] = json.loads(result.stdout)
    assert result.returncode == (0 if called["ok"] else 1), result.stderr
    return called


def test_an_operator_approves_a_waiting_call_and_its_retry_runs_once(tmp_path: Path) -> None:
    _config(tmp_path)
    waiting = _called(tmp_path)
    assert waiting["code"] == "approval_pending"
    approval_id, session = waiting["meta"]["approval_id"], waiting["session"]
    listed = json.loads(ok(toolpool(tmp_path, "approvals", "list", "--json")))
    assert [(row["id"], row["state"], row["tool"]) for row in listed] == [
        (approval_id, "pending", "write_note")
    ]
    assert listed[0]["arguments"] == '{"text": "ship it"}' and listed[0]["session"] == session
    table = ok(toolpool(tmp_path, "approvals", "list"))
    assert approval_id in table and "demo_beta/write_note" in table

    approved = ok(toolpool(tmp_path, "approvals", "approve", approval_id, "--by", "olga", "--reason", "fine"))
    assert approval_id in approved and "approved" in approved
    assert json.loads(ok(toolpool(tmp_path, "approvals", "list", "--json"))) == []

    ran = _called(tmp_path, "--session", session)
    assert (ran["code"], ran["text"]) == ("ok", "note-1")
    again = _called(tmp_path, "--session", session)
    assert again["code"] == "approval_pending" and again["meta"]["approval_id"] != approval_id
    every = json.loads(ok(toolpool(tmp_path, "approvals", "list", "--all", "--json")))
    assert {row["id"]: row["state"] for row in every} == {
        approval_id: "used",
        again["meta"]["approval_id"]: "pending",
    }
    used = {row["id"]: row for row in every}[approval_id]
    assert (used["decided_by"], used["decided_reason"]) == ("olga", "fine")


def test_an_operator_denies_a_call_and_the_caller_reads_why(tmp_path: Path) -> None:
    _config(tmp_path)
    waiting = _called(tmp_path)
    approval_id = waiting["meta"]["approval_id"]
    denied = json.loads(
        ok(
            toolpool(
                tmp_path,
                "approvals",
                "deny",
                approval_id,
                "--by",
                "olga",
                "--reason",
                "no shipping",
                "--json",
            )
        )
    )
    assert denied["state"] == "denied" and denied["decided_reason"] == "no shipping"
    refused = _called(tmp_path, "--session", waiting["session"])
    assert refused["code"] == "denied" and "no shipping" in refused["text"]


def test_deciding_a_request_that_is_not_pending_fails_in_one_line(tmp_path: Path) -> None:
    _config(tmp_path)
    approval_id = _called(tmp_path)["meta"]["approval_id"]
    ok(toolpool(tmp_path, "approvals", "approve", approval_id, "--by", "olga", "--reason", "yes"))
    twice = toolpool(tmp_path, "approvals", "deny", approval_id, "--by", "olga", "--reason", "no")
    assert twice.returncode == 1
    assert twice.stderr == f"toolpool: error: approval request {approval_id} is approved, not pending\n"
    unknown = toolpool(tmp_path, "approvals", "approve", "apr_unknown", "--by", "olga", "--reason", "yes")
    assert (
        unknown.returncode == 1
        and unknown.stderr.count("\n") == 1
        and "no approval request" in unknown.stderr
    )
    blank = toolpool(tmp_path, "approvals", "approve", approval_id, "--by", "olga", "--reason", " ")
    assert blank.returncode == 1 and "a reason (--reason) is needed" in blank.stderr
