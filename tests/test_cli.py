"""The command line: real processes, one clear line on bad input, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[1] / "examples" / "toolpool.toml"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A copy of the example config in the test's folder, so its store lives there too."""
    copy = tmp_path / "toolpool.toml"
    copy.write_text(EXAMPLE.read_text())
    return copy


def toolpool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "toolpool", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def test_help_explains_the_commands() -> None:
    result = toolpool("--help")
    assert result.returncode == 0
    for command in ("demo", "tools", "call"):
        assert command in result.stdout


def test_demo_tells_the_whole_story_and_every_step_behaves() -> None:
    result = toolpool("demo", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    steps = {step["step"]: step for step in report["steps"]}
    assert report["ok"] is True
    assert all(step["code"] == step["expected"] for step in steps.values())
    codes = [step["code"] for step in report["steps"]]
    for code in ("unknown_tool", "denied", "invalid_arguments", "mcp_remote_error", "mcp_timeout", "refused"):
        assert code in codes
    assert steps["call alpha's lookup in the reply that connected it (gate 1)"]["code"] == "unknown_tool"
    assert steps["call alpha's lookup in the next request"]["text"].count("alpha:v1") == 1
    assert steps["the Subagent was shown no MCP or management tool (R16)"]["code"] == "no_tools"
    mismatch = steps["connect demo_mismatch: exact-set rule (R2)"]
    assert "R2: the server does not publish 1 tool ('delete_all')" in mismatch["why"]
    assert "delete_all" not in mismatch["text"]  # the model is told it was refused, not the server's names
    requests = [entry for entry in report["transcript"] if entry["kind"] == "request"]
    lead = [entry for entry in requests if entry["agent"] == "lead"]
    assert "mcp__demo_alpha__lookup" not in lead[0]["tools"]
    assert "mcp__demo_alpha__lookup" in lead[1]["tools"]
    assert all(entry["tools"] == [] for entry in requests if entry["agent"].startswith("subagent"))
    assert any(event["action"] == "call" for event in report["audit"])


def test_tools_lists_the_policy_with_states(example: Path) -> None:
    result = toolpool("tools", "--config", str(example), "--json")
    rows = {(row["alias"], row["tool"]): row for row in json.loads(result.stdout)}
    assert rows[("demo_alpha", "lookup")]["state"] == "enabled"
    assert rows[("demo_alpha", "process_info")]["state"] == "forbidden"
    assert rows[("demo_mismatch", "lookup")]["state"] == "disabled"


def test_call_goes_through_every_gate_and_prints_the_result(example: Path) -> None:
    result = toolpool("call", "demo_alpha", "lookup", "--args", '{"key": "k2"}', "--config", str(example))
    assert (result.returncode, result.stdout.strip()) == (0, "alpha:v2")


def test_a_refused_call_exits_non_zero_with_its_code(example: Path) -> None:
    result = toolpool(
        "call", "demo_alpha", "lookup", "--args", '{"key": 1}', "--config", str(example), "--json"
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["code"] == "invalid_arguments"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("call", "nobody", "x"), "unknown alias 'nobody'"),
        (("call", "demo_alpha", "lookup", "--args", "{oops"), "--args is not JSON"),
        (("call", "demo_alpha", "lookup", "--args", "[1]"), "--args must be a JSON object"),
        (("call", "demo_alpha", "lookup", "--args", "[" * 5000 + "]" * 5000), "--args is nested too deeply"),
        (("call", "demo_mismatch", "lookup"), "R2: the server does not publish"),
    ],
)
def test_bad_input_ends_with_one_clear_line(example: Path, args: tuple[str, ...], message: str) -> None:
    result = toolpool(*args, "--config", str(example))
    assert result.returncode == 1
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_broken_config_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "toolpool.toml").write_text('[servers.a]\ntransport = "stdio"\ncommand = "x"\nspeed = 3\n')
    result = toolpool("tools", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == f"toolpool: error: {tmp_path / 'toolpool.toml'}:4: servers.a.speed: unknown key"
    )


def test_a_missing_config_says_how_to_point_at_one(tmp_path: Path) -> None:
    result = toolpool("tools", cwd=tmp_path)
    assert result.returncode == 1
    assert "pass --config PATH" in result.stderr
    assert "`toolpool init` writes one here" in result.stderr


def test_the_example_config_is_the_demo_config_that_ships_in_the_package() -> None:
    packaged = Path(__file__).parents[1] / "src" / "toolpool" / "demo" / "toolpool.toml"
    assert EXAMPLE.read_text() == packaged.read_text()


def test_the_demo_names_a_refused_connections_failed_rules_and_counts_the_audit_tail() -> None:
    result = toolpool("demo")
    assert result.returncode == 0, result.stderr
    (why,) = [line for line in result.stdout.splitlines() if "why (the operator's view)" in line]
    assert "R2: the server does not publish" in why and "R2: the server publishes 2 tools" in why
    (heading,) = [line for line in result.stdout.splitlines() if line.startswith("audit trail")]
    shown, total = re.fullmatch(r"audit trail \(last (\d+) of (\d+) events\):", heading).groups()  # type: ignore[union-attr]
    assert int(shown) == 12 < int(total)
    events = result.stdout.split(heading)[1]
    assert len([line for line in events.splitlines() if line.startswith("  #")]) == 12
