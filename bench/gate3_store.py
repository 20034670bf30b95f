"""Gate 3 at call time: what ``store.tools.is_enabled`` costs, against raw queries on the same
file, and what the pool's gate 3 from memory (``store.cached``) costs instead.

    .venv/bin/python bench/gate3_store.py [--calls N] [--tools T] [--change-tools C] [--postgres URL] [--json]

A SQLite store in a temporary folder gets T tools over 10 aliases (half of them enabled).
Arms, interleaved in blocks with the order rotating every round, each call timed alone (and
CPU time per call over each arm's blocks):

- ``store.tools.is_enabled`` for an enabled tool, and for a disabled one (one query);
- ``store.cached.is_enabled``, which a pool calls (on SQLite memory while the WAL index's
  header reads the same, ``toolpool.store._wal_signal``; on PostgreSQL memory after the
  NOTIFY count);
- ``store.releases.version`` (a query), and ``store.cached.release``;
- ``PRAGMA data_version`` alone, on a plain connection, and ``os.stat`` of the file: the
  two parts of the signal;
- baseline: the very query ``is_enabled`` runs, on a plain ``sqlite3`` connection to the file;
- baseline: the cheapest lookup there is, ``enabled`` by primary key, on that connection;
- in situ: the query and the memory arms while another process appends audit events as fast
  as it can (WAL: readers do not wait for the writer), as a pool's recorder does after each
  call.

With ``--postgres``, in a store of C tools there (default 100,000, half enabled): the first
``store.cached`` answer after a release change (the head read, the answers forgotten, one
row read), against loading the whole enabled set again (the alternative design).

Goal: median of ``store.tools.is_enabled`` <= 50 µs on SQLite. ``--postgres URL`` repeats the
store and raw arms on PostgreSQL (a fresh schema, dropped afterwards); no goal there.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import select
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg

from _report import Table, machine, render
from _timing import percentile
from toolpool.config import ToolPolicy
from toolpool.store import ImportedTool, SecretKey, Store

GOAL_US = 50.0
_ALIASES = 10
_WRITER_MAX_S = 300.0  # the load process stops by itself even if this one dies
GATE_SQL = (
    "SELECT 1 FROM tool_states t JOIN servers s ON s.alias = t.alias "
    "WHERE t.alias = ? AND t.name = ? AND t.enabled AND s.enabled"
)
PK_SQL = "SELECT enabled FROM tool_states WHERE alias = ? AND name = ?"
DATA_VERSION_SQL = "PRAGMA data_version"
ENABLED_SET_SQL = (
    "SELECT t.alias, t.name FROM tool_states t JOIN servers s ON s.alias = t.alias "
    "WHERE t.enabled AND s.enabled"
)
_CHANGES = 12  # release changes timed in the C-tool store: each writes a release of C/2 tools


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.writer:
        return _write_load(args.writer, args.key)
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(),
        "goal_median_us": GOAL_US,
        "tools": args.tools,
        "calls_per_arm": args.calls,
    }
    with tempfile.TemporaryDirectory(prefix="toolpool-bench-") as scratch:
        path = Path(scratch, "toolpool.db")
        results["sqlite"] = _bench_sqlite(path, args.tools, args.calls)
    if args.postgres:
        with _pg_schema(args.postgres) as url:
            results["postgresql"] = _bench_postgres(url, args.tools, args.calls)
        if args.change_tools:
            with _pg_schema(args.postgres) as url:
                results["after_a_change"] = _bench_change(url, args.change_tools)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(_heading(results))
        for backend in ("sqlite", "postgresql"):
            if backend in results:
                print("\n" + render(_table(backend, results[backend], args.calls)))
        if "after_a_change" in results:
            change = results["after_a_change"]
            title = f"after a release change, {change['tools']} tools ({change['enabled']} enabled)"
            print("\n" + render(_table(title, change, change["changes"])))
    return 0


def _populate(store: Store, tools: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """T tools over the aliases, every other one enabled; one enabled and one disabled tool."""
    per_alias = max(1, tools // _ALIASES)
    for a in range(_ALIASES):
        alias = f"alias{a}"
        names = [f"tool{n:05d}" for n in range(per_alias)]
        found = [ImportedTool(name, {"name": name}, "sha256:" + "0" * 64, "pass", 0.0) for name in names]
        store.tools.record_import(alias, found, actor="bench")
        policies = {
            name: ToolPolicy(action=f"bench.{name}", effect="read", enabled=n % 2 == 0)
            for n, name in enumerate(names)
        }
        store.tools.sync_policy(alias, policies)
    alias, even = f"alias{_ALIASES // 2}", per_alias // 2 - per_alias // 2 % 2
    return (alias, f"tool{even:05d}"), (alias, f"tool{even + 1:05d}")


def _bench_sqlite(path: Path, tools: int, calls: int) -> dict[str, Any]:
    url = f"sqlite:///{path}"
    key = SecretKey.generate()
    with Store.open(url, key=key) as store:
        enabled, disabled = _populate(store, tools)
        assert store.tools.is_enabled(*enabled)
        assert not store.tools.is_enabled(*disabled)
        raw = sqlite3.connect(path, isolation_level=None)
        try:
            assert raw.execute(GATE_SQL, enabled).fetchone() == (1,)
            assert store.cached.is_enabled(*enabled)
            assert not store.cached.is_enabled(*disabled)
            arms: dict[str, Callable[[], object]] = {
                "store.tools.is_enabled (enabled tool)": lambda: store.tools.is_enabled(*enabled),
                "store.tools.is_enabled (disabled tool)": lambda: store.tools.is_enabled(*disabled),
                "store.cached.is_enabled (enabled tool)": lambda: store.cached.is_enabled(*enabled),
                "store.cached.is_enabled (disabled tool)": lambda: store.cached.is_enabled(*disabled),
                "store.releases.version": lambda: store.releases.version,
                "store.cached.release": lambda: store.cached.release,
                "sqlite3: PRAGMA data_version": lambda: raw.execute(DATA_VERSION_SQL).fetchone(),
                "os.stat of the file (the cache's check for a new file)": lambda: os.stat(path),
                "baseline: sqlite3, the same query": lambda: raw.execute(GATE_SQL, enabled).fetchone(),
                "baseline: sqlite3, enabled by primary key": lambda: raw.execute(PK_SQL, enabled).fetchone(),
            }
            result: dict[str, Any] = {"arms": _interleave(arms, calls)}
            with _writer(url, key) as load:
                loaded = _interleave(
                    {
                        "store.tools.is_enabled under write load": lambda: store.tools.is_enabled(*enabled),
                        "store.cached.is_enabled under write load": lambda: store.cached.is_enabled(*enabled),
                        "store.cached.release under write load": lambda: store.cached.release,
                    },
                    calls,
                )
            result["arms"].update(loaded)
            result["events_appended_during_load"] = load["events"]
        finally:
            raw.close()
    return result


def _bench_change(url: str, tools: int) -> dict[str, Any]:
    """The first cached answer after each of ``_CHANGES`` release changes, against reloading
    the whole enabled set once per change."""
    with Store.open(url) as store:
        enabled, _ = _populate(store, tools)
        other = (enabled[0], "tool00000")
        raw = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True)
        try:
            first: list[int] = []
            reload: list[int] = []
            size = 0
            for n in range(_CHANGES):
                (store.tools.disable if n % 2 == 0 else store.tools.enable)(*other, actor="bench")
                start = time.perf_counter_ns()
                assert store.cached.is_enabled(*enabled)
                first.append(time.perf_counter_ns() - start)
                start = time.perf_counter_ns()
                size = len(frozenset(raw.execute(ENABLED_SET_SQL).fetchall()))
                reload.append(time.perf_counter_ns() - start)
        finally:
            raw.close()
    return {
        "tools": tools,
        "enabled": size,
        "changes": _CHANGES,
        "arms": {
            "store.cached.is_enabled, first call after a release": _summary(first),
            "reloading the whole enabled set (not done)": _summary(reload),
        },
    }


def _bench_postgres(url: str, tools: int, calls: int) -> dict[str, Any]:
    with Store.open(url) as store:
        enabled, disabled = _populate(store, tools)
        assert store.tools.is_enabled(*enabled)
        assert not store.tools.is_enabled(*disabled)
        raw = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True)
        sql = GATE_SQL.replace("?", "%s")
        try:
            assert store.cached.is_enabled(*enabled)
            arms: dict[str, Callable[[], object]] = {
                "store.tools.is_enabled (enabled tool)": lambda: store.tools.is_enabled(*enabled),
                "store.cached.is_enabled (enabled tool)": lambda: store.cached.is_enabled(*enabled),
                "store.releases.version": lambda: store.releases.version,
                "store.cached.release": lambda: store.cached.release,
                "baseline: psycopg, the same query": lambda: raw.execute(sql, enabled).fetchone(),
            }
            return {"arms": _interleave(arms, calls)}
        finally:
            raw.close()


def _interleave(arms: dict[str, Callable[[], object]], calls: int) -> dict[str, dict[str, float]]:
    """Each call timed alone; blocks of 1,000 with the arms' order rotating every round."""
    block = min(1000, calls)
    items = list(arms.items())
    samples: dict[str, list[int]] = {name: [] for name in arms}
    cpu_ns = dict.fromkeys(arms, 0)
    for _, fn in items:
        for _ in range(min(1000, calls)):  # warm-up: connections, statement caches
            fn()
    for round_number in range((calls + block - 1) // block):
        shift = round_number % len(items)
        for name, fn in (*items[shift:], *items[:shift]):
            into = samples[name]
            cpu = time.process_time_ns()
            for _ in range(min(block, calls - round_number * block)):
                start = time.perf_counter_ns()
                fn()
                into.append(time.perf_counter_ns() - start)
            cpu_ns[name] += time.process_time_ns() - cpu
    return {name: _summary(values, cpu_ns[name]) for name, values in samples.items()}


def _summary(values: list[int], cpu_ns: int = 0) -> dict[str, float]:
    return {
        "cpu_us": cpu_ns / len(values) / 1e3,
        "median_us": statistics.median(values) / 1e3,
        "p90_us": percentile(values, 90) / 1e3,
        "p99_us": percentile(values, 99) / 1e3,
    }


@contextmanager
def _writer(url: str, key: SecretKey) -> Iterator[dict[str, int]]:
    """Another process appending audit events until its stdin closes; afterwards the dict
    it yielded holds how many it appended."""
    command = [sys.executable, __file__, "--writer", url, "--key", key.to_text()]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    assert proc.stdout is not None
    readable, _, _ = select.select([proc.stdout], [], [], 60)
    if not readable or proc.stdout.readline().strip() != "ready":
        proc.kill()
        raise RuntimeError("the write-load process did not start")
    load = {"events": 0}
    try:
        yield load
    finally:
        out, _ = proc.communicate(timeout=60)  # closes its stdin: the writer stops
        load["events"] = int(out.strip() or 0)


def _write_load(url: str, key: str) -> int:
    with Store.open(url, key=SecretKey.from_text(key)) as store:
        print("ready", flush=True)
        deadline, count = time.monotonic() + _WRITER_MAX_S, 0
        while time.monotonic() < deadline and not select.select([sys.stdin], [], [], 0)[0]:
            store.audit.audit("bench", "bench.load", "load", {"n": count})
            count += 1
        print(count, flush=True)
    return 0


@contextmanager
def _pg_schema(base: str) -> Iterator[str]:
    schema = f"tp_bench_{secrets.token_hex(4)}"
    with psycopg.connect(base.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            yield f"{base}?options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


def _table(backend: str, result: dict[str, Any], calls: int) -> Table:
    arms = result["arms"]
    table = Table(
        f"gate 3 on {backend}: {calls} calls per arm, each timed alone",
        ("arm", "median µs", "p90 µs", "p99 µs", "CPU µs/call"),
    )
    for name, arm in arms.items():
        cpu = f"{arm['cpu_us']:.1f}" if arm["cpu_us"] else "-"
        table.rows.append(
            (name, f"{arm['median_us']:.1f}", f"{arm['p90_us']:.1f}", f"{arm['p99_us']:.1f}", cpu)
        )
    if backend == "sqlite":
        median = arms["store.tools.is_enabled (enabled tool)"]["median_us"]
        verdict = "meets" if median <= GOAL_US else "misses"
        table.notes.append(
            f"store.tools.is_enabled median {median:.1f} µs: {verdict} the goal of ≤ {GOAL_US:.0f} µs"
        )
        table.notes.append(
            f"the writer appended {result['events_appended_during_load']} audit events during its arms"
        )
        for load in ("", " under write load"):
            query = arms[f"store.tools.is_enabled{load or ' (enabled tool)'}"]
            memory = arms[f"store.cached.is_enabled{load or ' (enabled tool)'}"]
            table.notes.append(
                f"memory / query{load or ''}: median {memory['median_us'] / query['median_us']:.2f}x, "
                f"CPU {memory['cpu_us'] / query['cpu_us']:.2f}x"
            )
    return table


def _heading(results: dict[str, Any]) -> str:
    box = results["machine"]
    return (
        f"toolpool {box['toolpool']} gate 3 (store.tools.is_enabled), {results['date']}, {results['tools']} tools\n"
        f"{box['cpu']}, {box['cores_usable']} usable cores; {box['implementation']} {box['python']}; "
        f"SQLite {sqlite3.sqlite_version}\ncommand: {results['command']}"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=20_000, help="timed calls per arm (default 20000)")
    parser.add_argument("--tools", type=int, default=1000, help="tools in the store (default 1000)")
    parser.add_argument(
        "--change-tools",
        type=int,
        default=100_000,
        help="tools in the PostgreSQL store of the after-a-change arms (default 100000; 0 skips them)",
    )
    parser.add_argument("--postgres", metavar="URL", help="also measure this PostgreSQL (a fresh schema)")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of tables")
    parser.add_argument("--writer", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    return parser


if __name__ == "__main__":
    sys.exit(main())
