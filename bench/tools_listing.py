"""``toolpool tools`` at scale, base against head, alternated (issue 16, item 5).

    PYTHONPATH=src .venv/bin/python bench/tools_listing.py WORLD BASE_SRC HEAD_SRC [--rounds N]

WORLD is a folder holding ``toolpool.toml`` and its store. When it does not exist it is made
(by this process's toolpool, ~2 min): 20,000 servers x 5 tools (``bench/_scale_setup``), a
first ``toolpool tools`` (the store synced), every tool imported in one batch, three tools
enabled, and ``toolpool tools`` again. Each arm gets its
own copy of the folder (the listing kept beside a configuration names its path), one
untimed run to keep its listing, then ``toolpool tools`` and ``toolpool tools --json`` are
run as subprocesses, base and head alternately, ``--rounds`` times each. Prints user+sys CPU
and wall seconds per run, and fails when the two arms' outputs differ by a byte. The
machine's speed varies 2-3x over hours here: only figures from one run compare.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world", type=Path)
    parser.add_argument("base", type=Path, help="the base's src folder")
    parser.add_argument("head", type=Path, help="the head's src folder")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="toolpool-tools-"))
    try:
        if not args.world.exists():
            _make_world(args.world)
        arms = {name: _copy(args.world, work / name) for name in ("base", "head")}
        sources = {"base": args.base.resolve(), "head": args.head.resolve()}
        for name, folder in arms.items():
            _run(folder, sources[name], [])  # keeps this copy's listing
        print(f"# {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC; load {_load()}")
        print("| command | base CPU s (wall) | head CPU s (wall) |")
        print("|---|---|---|")
        for flags in ([], ["--json"]):
            times: dict[str, list[str]] = {"base": [], "head": []}
            outputs: dict[str, bytes] = {}
            for _ in range(args.rounds):
                for name, folder in arms.items():
                    cpu, wall, output = _run(folder, sources[name], flags)
                    times[name].append(f"{cpu:.2f} ({wall:.2f})")
                    if outputs.setdefault(name, output) != output:
                        raise SystemExit(f"{name}: the output changed between runs")
            if outputs["base"] != outputs["head"]:
                raise SystemExit(f"toolpool tools {' '.join(flags)}: the outputs differ")
            lines = outputs["head"].count(b"\n")
            label = " ".join(["toolpool tools", *flags]) + f" ({lines:,} lines)"
            print(f"| {label} | {', '.join(times['base'])} | {', '.join(times['head'])} |")
        print(f"# load after: {_load()}; outputs equal byte for byte")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _make_world(world: Path, servers: int = 20_000, per_server: int = 5) -> None:
    from _scale_setup import config_text, imported_tools
    from toolpool import load_config
    from toolpool.store import Store

    world.mkdir(parents=True)
    config = world / "toolpool.toml"
    config.write_text(config_text(servers, per_server), encoding="utf-8")
    env = dict(os.environ, NO_COLOR="1")
    toolpool = [sys.executable, "-m", "toolpool"]
    subprocess.run([*toolpool, "tools"], cwd=world, env=env, check=True, stdout=subprocess.DEVNULL)
    with Store.open(load_config(config).store_url) as store:
        store.tools.record_imports(imported_tools(servers, per_server), "bench")
    for alias, tool in (("s00001", "tool_000"), ("s00002", "tool_001"), ("s00003", "tool_002")):
        subprocess.run(
            [*toolpool, "enable", alias, tool], cwd=world, env=env, check=True, stdout=subprocess.DEVNULL
        )
    subprocess.run([*toolpool, "tools"], cwd=world, env=env, check=True, stdout=subprocess.DEVNULL)


def _copy(world: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("toolpool.toml", "toolpool.db"):
        shutil.copy2(world / name, folder / name)
    return folder


def _run(folder: Path, src: Path, flags: list[str]) -> tuple[float, float, bytes]:
    env = dict(os.environ, PYTHONPATH=str(src), NO_COLOR="1", COLUMNS="100")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # run as installed: from compiled bytecode
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "toolpool", "tools", *flags], cwd=folder, env=env, stdout=subprocess.PIPE
    )
    assert child.stdout is not None
    output = child.stdout.read()
    child.stdout.close()
    _, status, usage = os.wait4(child.pid, 0)  # the child's own rusage: user + system CPU
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"toolpool tools {' '.join(flags)} failed in {folder}")
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, wall, output


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])


if __name__ == "__main__":
    sys.exit(main())
