"""The README's library example runs as written, so the README cannot drift from the code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_RUN_S = 120  # a Python start, a demo server's start and handshake, one call


def _library_example() -> str:
    section = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("## Use it as a library", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "the README lost its library example"
    return found.group(1)


def test_the_readmes_library_example_runs_as_written(tmp_path: Path) -> None:
    # Run beside a copy of examples/, so the example's relative path works and its store file
    # (toolpool.db beside the config) lands in the test's folder, not in the repository.
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    done = subprocess.run(
        [sys.executable, "-c", _library_example()],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=_RUN_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "ok alpha:v1\n"
    assert (tmp_path / "examples" / "toolpool.db").exists()
