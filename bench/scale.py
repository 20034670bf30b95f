"""Scale of configuration and tools (issue 16, item 5): 20,000 servers, 100,000 tools.

    .venv/bin/python bench/scale.py [--servers N] [--tools T] [--connect A] [--connect-tools K]
                                    [--sessions S] [--skip-live] [--json]

In a temporary folder (removed afterwards): a configuration of N paged-demo servers naming T
tools in all (T/N each), and its store. Times, each step once (wall and CPU seconds; CPU of
the process that did the work: this one, the CLI child, or the service):

- loading the configuration (``load_config``);
- ``toolpool tools`` as a subprocess, on a new store (it syncs the whole configuration) and
  again;
- importing every server's tools into the store in one batch (``store.tools.record_imports``),
  and ``toolpool import`` of one alias (a real demo server) into the full store;
- ``toolpool serve --http`` on 127.0.0.1: the admin API's tools listing (first page, next
  page, a page deep in it), its servers, and the web UI's tools page (first and deep);
- enabling all T tools in one configuration sync (a release holding them all), then
  disabling one (a release of the whole state again);
- live: connecting A aliases (paged demo servers of K tools each) concurrently through one
  pool, which admits ``toolpool.pool.CONNECTS_AT_ONCE`` at a time; ``pool.snapshot`` on the
  A*K exposed tools; the pool's RSS per 1,000 exposed tools; and the service's RSS per 100
  idle MCP sessions.

Goal: every offline step under 2 s at 20,000 servers and 100,000 tools.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from _configs import paged_server, write_config
from _report import Table, machine, render
from _scale_http import admin_timings, idle_session_rss, serving
from _scale_setup import Timed, alias_of, cli, config_text, imported_tools
from toolpool import Pool, Ticket, load_config
from toolpool.pool import CONNECTS_AT_ONCE
from toolpool.store import Store

GOAL_S = 2.0
_LIVE_TIMEOUT_S = 1800.0  # 100 Python servers started on a busy 2-core machine


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="toolpool-scale-"))
    try:
        steps = _offline(folder / "offline", args)
        if not args.skip_live:
            (folder / "live").mkdir()
            steps.update(anyio.run(_live, folder / "live", args))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(),
        "load": os.getloadavg(),
        "servers": args.servers,
        "tools": args.tools,
        "steps": {name: {"wall_s": t.wall_s, "cpu_s": t.cpu_s, "note": t.note} for name, t in steps.items()},
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(render(_table(args, steps)))
    return 0


def _offline(folder: Path, args: argparse.Namespace) -> dict[str, Timed]:
    folder.mkdir(parents=True)
    per_server = max(1, args.tools // args.servers)
    config = folder / "toolpool.toml"
    config.write_text(config_text(args.servers, per_server), encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith("TOOLPOOL_")}
    steps: dict[str, Timed] = _Steps()
    steps["load_config"] = _in_process(lambda: load_config(config), f"{config.stat().st_size >> 20} MiB")
    steps["toolpool tools (new store)"], shown = cli(config, "tools", env=env)
    steps["toolpool tools (again)"], shown = cli(config, "tools", env=env)
    steps["toolpool tools --json"], _ = cli(config, "tools", "--json", env=env)
    loaded = load_config(config)
    with Store.open(loaded.store_url) as store:
        batch = imported_tools(args.servers, per_server)
        steps["import all servers (one batch)"] = _in_process(
            lambda: store.tools.record_imports(batch, "bench"),
            f"{args.servers} aliases",
        )
    steps["toolpool import (one alias)"], _ = cli(config, "import", alias_of(0), env=env)
    steps["toolpool tools (imported)"], shown = cli(config, "tools", env=env)
    steps["toolpool tools (imported)"] = _noted(
        steps["toolpool tools (imported)"], f"{len(shown.splitlines())} lines"
    )
    steps.update(anyio.run(_over_http, config, env, alias_of(args.servers // 2)))
    enabled = folder / "enabled.toml"
    enabled.write_text(config_text(args.servers, per_server, enabled=True), encoding="utf-8")
    everything = load_config(enabled)
    with Store.open(loaded.store_url) as store:
        policies = {alias: spec.tools for alias, spec in everything.servers.items()}
        steps["enable all tools (one sync)"] = _in_process(lambda: store.tools.sync_policies(policies))
        one = alias_of(0)
        steps["disable one tool (release)"] = _in_process(
            lambda: store.tools.disable(one, "tool_000", "bench"),
            f"{len(store.releases.current_release().content['tools'])} tools in a release",
        )
    return steps


async def _over_http(config: Path, env: dict[str, str], deep_alias: str) -> dict[str, Timed]:
    async with serving(config, env) as server:
        return await anyio.to_thread.run_sync(admin_timings, server, deep_alias)


async def _live(folder: Path, args: argparse.Namespace) -> dict[str, Timed]:
    servers = [paged_server(f"live{n:03d}", args.connect_tools, 500, "legacy") for n in range(args.connect)]
    config = write_config(folder, *servers, pool={"max_tools_per_server": max(args.connect_tools, 1)})
    steps: dict[str, Timed] = _Steps()
    async with Pool(config) as pool:
        rss_before = _rss_kib()
        wall, cpu = time.perf_counter(), time.process_time()
        with anyio.fail_after(_LIVE_TIMEOUT_S):
            async with anyio.create_task_group() as tasks:
                for alias in config.servers:
                    tasks.start_soon(pool.connect, alias)
        exposed = len(pool.snapshot())
        note = f"{exposed} tools exposed, {CONNECTS_AT_ONCE} at a time"
        steps[f"connect {args.connect} aliases"] = Timed(
            time.perf_counter() - wall, time.process_time() - cpu, note
        )
        grown = (_rss_kib() - rss_before) / 1024
        per = grown * 1000 / max(exposed, 1)
        steps["pool RSS per 1,000 exposed tools"] = Timed(0.0, 0.0, f"{per:.1f} MiB ({grown:.0f} MiB in all)")
        ticket = Ticket.allow("scale.*")
        steps["pool.snapshot(ticket), first"] = _in_process(lambda: pool.snapshot(ticket), f"{exposed} tools")
        steps["pool.snapshot(ticket), again"] = _in_process(lambda: pool.snapshot(ticket))
    steps[f"serve: {args.sessions} idle MCP sessions"] = await _idle_sessions(folder, args.sessions)
    return steps


async def _idle_sessions(folder: Path, sessions: int) -> Timed:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TOOLPOOL_")}
    small = folder / "serve"
    await anyio.Path(small).mkdir()
    config = write_config(small, paged_server("one", 3, 50, "legacy")).source
    _, token = cli(config, "tokens", "add", "bench", "--allow", "*", env=env)
    async with serving(config, env) as server:
        return await anyio.to_thread.run_sync(idle_session_rss, server, token.strip(), sessions)


class _Steps(dict[str, Timed]):
    """The steps' timings, each also written to stderr as it is taken (a long run that fails
    late keeps what it measured)."""

    def __setitem__(self, name: str, timed: Timed) -> None:
        super().__setitem__(name, timed)
        sys.stderr.write(f"{name}: {timed.wall_s:.2f} s wall, {timed.cpu_s:.2f} s CPU {timed.note}\n")
        sys.stderr.flush()

    def update(self, other: Any = (), /, **more: Timed) -> None:
        for name, timed in dict(other, **more).items():
            self[name] = timed


def _in_process(step: Any, note: str = "") -> Timed:
    wall, cpu = time.perf_counter(), time.process_time()
    step()
    return Timed(time.perf_counter() - wall, time.process_time() - cpu, note)


def _noted(timed: Timed, note: str) -> Timed:
    return Timed(timed.wall_s, timed.cpu_s, note)


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _table(args: argparse.Namespace, steps: dict[str, Timed]) -> Table:
    table = Table(
        f"Scale: {args.servers} servers, {args.tools} tools (goal: each offline step < {GOAL_S:g} s)",
        ("step", "wall s", "CPU s", "note"),
    )
    for name, timed in steps.items():
        table.rows.append((name, f"{timed.wall_s:.2f}", f"{timed.cpu_s:.2f}", timed.note))
    table.notes.append(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs: CPU s is the steadier figure"
    )
    return table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--servers", type=int, default=20_000)
    parser.add_argument("--tools", type=int, default=100_000, help="tools in all, spread over the servers")
    parser.add_argument("--connect", type=int, default=100, help="aliases connected in the live part")
    parser.add_argument("--connect-tools", type=int, default=1000, help="tools of each connected alias")
    parser.add_argument("--sessions", type=int, default=100, help="idle MCP sessions opened on the service")
    parser.add_argument("--skip-live", action="store_true", help="only the offline steps")
    parser.add_argument("--json", action="store_true")
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
