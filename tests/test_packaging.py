"""The wheel and the sdist carry everything toolpool needs at run time (the store's
migrations, the web UI's templates and static files, ``py.typed``, the demo's config), and the
wheel, installed in a fresh venv, runs ``toolpool demo``.

The fresh venv gets the wheel only (``--no-deps --no-index``); its dependencies come from the
venv running the tests through a ``.pth`` line, so the test needs no network and stays near a
minute. The wheel's own ``toolpool`` is checked to be the one that runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_BUILD_S = 300  # an isolated build first installs hatchling into a venv of its own
_DEMO_S = 300  # the demo starts five servers and runs 28 steps; ~35 s on a loaded 2-core machine
RUN_TIME_FILES = (
    "toolpool/py.typed",
    "toolpool/demo/toolpool.toml",
    "toolpool/vetting/screener/lexical_model.json",
    "toolpool/vetting/screener/concept_lexicon.json",
    "toolpool/store/migrations/env.py",
    "toolpool/store/migrations/script.py.mako",
    "toolpool/serve/ui/templates/base.html",
    "toolpool/serve/ui/templates/login.html",
    "toolpool/serve/ui/static/ui.css",
    "toolpool/serve/ui/static/live.js",
)

pytestmark = pytest.mark.packaging


def _tracked_package_files() -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "src/toolpool"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    return {line.removeprefix("src/") for line in listed.stdout.splitlines()}


def _clean_env(bin_dir: Path, home: Path) -> dict[str, str]:
    """No PYTHONPATH (it would put the checkout's src/ ahead of the wheel), a HOME of its own."""
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
    }


def test_the_wheel_installed_in_a_fresh_venv_runs_the_demo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # sdist first, then the wheel built from the sdist: a file the sdist lost fails here too
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        check=False,
        capture_output=True,
        text=True,
        timeout=_BUILD_S,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("toolpool-*.whl")
    (sdist,) = dist.glob("toolpool-*.tar.gz")
    in_wheel = {name for name in zipfile.ZipFile(wheel).namelist() if name.startswith("toolpool/")}
    assert in_wheel == _tracked_package_files()
    assert set(RUN_TIME_FILES) <= in_wheel
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {f"src/{name}" for name in RUN_TIME_FILES} | {"LICENSE", "pyproject.toml"} <= in_sdist
    assert not [name for name in in_sdist if ".venv" in name or "node_modules" in name]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    env = _clean_env(venv / "bin", tmp_path)
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import toolpool; print(toolpool.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert Path(where.stdout.strip()).is_relative_to(site)

    workdir = tmp_path / "work"
    workdir.mkdir()
    demo = subprocess.run(
        [str(venv / "bin" / "toolpool"), "demo"],
        cwd=workdir,
        capture_output=True,
        text=True,
        env=env,
        timeout=_DEMO_S,
        check=False,
    )
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "all as expected" in demo.stdout
