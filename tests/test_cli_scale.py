"""A large configuration: ``toolpool tools`` on 2,000 servers stays fast and writes one release.

Syncing the configuration used to take one write transaction per alias and write a release
of the whole state for each one that changed: quadratic, minutes at 20,000 servers. Now
every alias is synced in one transaction with one release (``bench/scale.py`` measures the
full size; this is the same path at a tenth of it).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from toolpool import load_config
from toolpool.store import Store

_SERVERS = 2000
# CPU seconds of the command, generous for a busy 2-core machine (about 5 s there, most of
# it Python start-up and imports); one release per alias took minutes.
_CPU_BOUND_S = 40.0
_WALL_BOUND_S = 300.0


def _config(folder: Path) -> Path:
    lines = []
    for number in range(_SERVERS):
        lines += [f"[servers.s{number:04d}]", 'transport = "stdio"', 'command = "python"']
        lines += [f"[servers.s{number:04d}.tools.lookup]", f'action = "s{number}.lookup"', 'effect = "read"']
    path = folder / "toolpool.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_toolpool_tools_on_2000_servers_lists_them_all_quickly_and_writes_one_release(tmp_path: Path) -> None:
    config = _config(tmp_path)
    before = _children_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "toolpool", "tools", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=_WALL_BOUND_S,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    spent = _children_cpu() - before
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[2:]  # past the header and its rule
    assert len(rows) == _SERVERS
    assert rows[0].split()[:2] == ["s0000", "lookup"]
    assert spent < _CPU_BOUND_S
    with Store.open(load_config(config).store_url) as store:
        release = store.releases.current_release()
    assert release.number <= 2  # the store's first release, then the one sync (not one per alias)
    assert release.change == f"policy.sync {_SERVERS} servers"
