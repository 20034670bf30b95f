"""``scripts/apt-install`` (used by ``scripts/bootstrap-tests``): a held apt lock is waited
for, bounded and said, and a failure is one clear line. apt-get and fuser are stand-ins on
PATH here: the real ones would change the machine."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "scripts" / "apt-install"


def _stand_ins(folder: Path, *, lock_held: bool, apt_fails: bool) -> dict[str, str]:
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    log = folder / "apt.log"
    (bin_dir / "fuser").write_text(f"#!/bin/sh\nexit {0 if lock_held else 1}\n")
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexit {1 if apt_fails else 0}\n')
    for stand_in in bin_dir.iterdir():
        stand_in.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "TOOLPOOL_APT_LOCK_WAIT_S": "7"}


def _run(env: dict[str, str], *packages: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *packages], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_a_held_lock_is_announced_and_apt_waits_for_it_within_the_bound(tmp_path: Path) -> None:
    done = _run(_stand_ins(tmp_path, lock_held=True, apt_fails=False), "redis-server")
    assert done.returncode == 0, done.stderr
    assert "another apt or dpkg holds the package lock; waiting up to 7 s" in done.stdout
    calls = (tmp_path / "apt.log").read_text().splitlines()
    assert calls == [
        "-o DPkg::Lock::Timeout=7 update -qq",
        "-o DPkg::Lock::Timeout=7 install -y -qq redis-server",
    ]


def test_a_free_lock_says_nothing_about_waiting(tmp_path: Path) -> None:
    done = _run(_stand_ins(tmp_path, lock_held=False, apt_fails=False), "chromium")
    assert done.returncode == 0 and "waiting" not in done.stdout


def test_a_lock_still_held_at_the_bound_ends_with_one_line_naming_it(tmp_path: Path) -> None:
    done = _run(_stand_ins(tmp_path, lock_held=True, apt_fails=True), "bubblewrap")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "bootstrap-tests: error: apt-get update failed (is the package lock still held after 7 s? "
        "see apt's message above)"
    ]


def test_bootstrap_installs_every_package_through_it() -> None:
    bootstrap = (SCRIPT.parent / "bootstrap-tests").read_text()
    assert "apt-get install" not in bootstrap.replace("(apt-get install", "")
    assert bootstrap.count('"$root/scripts/apt-install"') == 4
