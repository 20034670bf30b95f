"""Gate 10's write: what one ``store.calls.record_calls`` transaction costs by batch size.

    .venv/bin/python bench/record_batches.py [--rounds N] [--json]

Each call of the pipeline leaves a call record and a ``call`` audit event; the pool's
``Recorder`` writes what gathered during its linger window (``toolpool.calls._recording._LINGER_S``) in
one transaction, with one driver ``executemany`` per table (``toolpool.store._batch``). This
bench writes batches of 1, 5, 25 and 100 such pairs into SQLite stores in a temporary folder,
the sizes and the two arms interleaved round by round, and prints the CPU (this process: the
store's work is all in it) per batch and per entry, and per entry against a batch of one
measured in the same run. The fixed part per batch is what the linger window amortises.

Arms: ``plain``, a store opened without its secret key (no MACs, nothing to redact); ``keyed``,
a store with its key and one secret, as a pool with secrets runs: every event is also
redacted and MAC'd.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from _report import Table, machine, render
from toolpool.store import AuditEntry, CallRecord, SecretKey, Store

_SIZES = (1, 5, 25, 100)
_ARMS = ("plain", "keyed")
_ENTRIES_PER_ROUND = 400  # per size: fewer batches of the larger sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every size (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    args = parser.parse_args(argv)
    per_size: dict[tuple[str, int], list[float]] = {(arm, size): [] for arm in _ARMS for size in _SIZES}
    with tempfile.TemporaryDirectory(prefix="toolpool-bench-records-") as folder:
        key = SecretKey.generate()
        stores = {
            "plain": Store.open(f"sqlite:///{Path(folder, 'plain.db')}"),
            "keyed": Store.open(f"sqlite:///{Path(folder, 'keyed.db')}", key=key),
        }
        try:
            stores["keyed"].secrets.set_secret("bench_token", "s3cr3t-bench-value", actor="bench")
            for store in stores.values():
                for size in _SIZES:
                    store.calls.record_calls(*_batch(size))  # warm: statements prepared, pages cached
            for round_number in range(args.rounds):
                order = _SIZES[round_number % len(_SIZES) :] + _SIZES[: round_number % len(_SIZES)]
                for size in order:
                    for arm in _ARMS if round_number % 2 else reversed(_ARMS):
                        per_size[arm, size].append(_time(stores[arm], size))
        finally:
            for store in stores.values():
                store.close()
    medians = {key: statistics.median(times) for key, times in per_size.items()}
    if args.json:
        cpu = {arm: {size: medians[arm, size] for size in _SIZES} for arm in _ARMS}
        print(json.dumps({"machine": machine(), "cpu_s_per_batch": cpu}, indent=2))
        return 0
    table = Table(
        f"store.calls.record_calls on SQLite, {args.rounds} rounds, median CPU (this process)",
        ["arm", "entries per batch", "µs per batch", "µs per entry", "per entry ÷ batch of 1"],
    )
    for (arm, size), seconds in medians.items():
        single = medians[arm, 1]
        table.rows.append(
            [
                arm,
                str(size),
                f"{seconds * 1e6:,.0f}",
                f"{seconds / size * 1e6:,.0f}",
                f"{seconds / size / single:.2f}x",
            ]
        )
    table.notes.append("an entry: one call record and one `call` audit event, as the pool writes them")
    table.notes.append("keyed: the store's secret key and one secret (MACs and redaction on)")
    print(render(table))
    return 0


def _time(store: Store, size: int) -> float:
    records, events = _batch(size)
    batches = max(4, _ENTRIES_PER_ROUND // size)
    started = time.process_time()
    for _ in range(batches):
        store.calls.record_calls(records, events)
    return (time.process_time() - started) / batches


def _batch(size: int) -> tuple[list[CallRecord], list[AuditEntry]]:
    record = CallRecord("session", "cli:bench", "demo_alpha", "echo", "ok", 1.2, 20, 30, 3, 2)
    detail = {"code": "ok", "session": "session", "snapshot": 3, "release": 2}
    event = AuditEntry("cli:bench", "call", "demo_alpha/echo", detail)
    return [record] * size, [event] * size


if __name__ == "__main__":
    raise SystemExit(main())
