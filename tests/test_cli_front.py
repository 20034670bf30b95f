"""The command line's front: --version, shell completion, plain --help, one-line usage errors."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer.main

import toolpool
from toolpool.cli import app
from toolpool.cli._front import run_app

PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


def _command_paths() -> list[tuple[str, ...]]:
    """Every command and subcommand of the CLI, as the words that name it."""
    paths: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children is None:
            paths.append(path)
            return
        for name, child in children.items():
            walk(child, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ended:
        run_app(list(args))
    captured = capsys.readouterr()
    code = ended.value.code
    return (code if isinstance(code, int) else 1), captured.out, captured.err


def test_the_version_is_the_one_the_package_was_built_with(capsys: pytest.CaptureFixture[str]) -> None:
    project = tomllib.loads(PYPROJECT.read_text())
    # One home: pyproject.toml takes the version from the module that toolpool imports.
    assert project["project"]["dynamic"] == ["version"]
    assert (PYPROJECT.parent / project["tool"]["hatch"]["version"]["path"]).resolve() == (
        Path(toolpool.__file__).parent / "_version.py"
    ).resolve()
    declared = importlib.metadata.version("toolpool")  # what the installed build recorded
    assert toolpool.__version__ == declared
    assert _run(capsys, "--version") == (0, f"toolpool {declared}\n", "")


def test_importing_toolpool_never_loads_the_package_metadata_machinery() -> None:
    probe = "import sys, toolpool; print(toolpool.__version__, 'importlib.metadata' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == [toolpool.__version__, "False"]


def test_help_shows_no_type_after_flags_and_the_everyday_commands_first(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.setenv("NO_COLOR", "1")
    code, shown, _ = _run(capsys, "--help")
    assert code == 0
    assert "<bool>" not in shown
    commands = [line.split()[1] for line in shown.splitlines() if line.startswith("│ ") and line[2].isalpha()]
    assert commands[:4] == ["init", "import", "tools", "enable"]
    assert commands.index("run") > commands.index("serve")
    _, audit_help, _ = _run(capsys, "audit", "--help")
    assert "--verify" in audit_help and "<bool>" not in audit_help and "<int>" in audit_help


@pytest.mark.parametrize("path", _command_paths(), ids=" ".join)
def test_a_usage_error_is_one_line_for_every_command(
    capsys: pytest.CaptureFixture[str], path: tuple[str, ...]
) -> None:
    code, shown, said = _run(capsys, *path, "--no-such-option")
    assert code == 2
    assert shown == ""
    assert (
        said
        == f"toolpool: error: No such option: --no-such-option (see `toolpool {' '.join(path)} --help`)\n"
    )


def test_a_missing_required_option_is_one_line_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, said = _run(capsys, "approve-write", "demo_beta", "write_note", "--reason", "notes")
    assert code == 2
    assert said.splitlines() == [
        "toolpool: error: Missing option '--by'. (see `toolpool approve-write --help`)"
    ]


def test_an_unknown_command_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, said = _run(capsys, "enabel")
    assert code == 2
    assert len(said.splitlines()) == 1 and "No such command 'enabel'" in said and "'enable'" in said


def test_shell_completion_completes_command_names() -> None:
    env = {
        **os.environ,
        "_TOOLPOOL_COMPLETE": "complete_bash",
        "COMP_WORDS": "toolpool approve-w",
        "COMP_CWORD": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "toolpool"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert (done.returncode, done.stdout.split()) == (0, ["approve-write"])
    script = subprocess.run(
        [sys.executable, "-m", "toolpool", "--show-completion", "bash"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SHELL": "/bin/bash"},
        check=False,
    )
    assert script.returncode == 0 and "_TOOLPOOL_COMPLETE=complete_bash" in script.stdout
