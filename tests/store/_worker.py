"""A second process on the same store, for the concurrency tests.

    python _worker.py URL KEY

It opens the store and prints ``ready``; then, for each line on stdin, runs that command and
prints ``done``; it exits at the end of stdin. Commands: ``audit N TAG`` appends N events;
``record N TAG`` writes N batches of ``BATCH`` call records with their audit events;
``toggle N ALIAS TOOL`` enables and disables a tool N times each; ``enable ALIAS TOOL``,
``disable ALIAS TOOL`` and ``disable-server ALIAS`` do it once.
"""

from __future__ import annotations

import sys
import warnings

from toolpool.store import AuditEntry, CallRecord, SecretKey, Store

BATCH = 10


def run(store: Store, command: str, *args: str) -> None:
    if command == "audit":
        for n in range(int(args[0])):
            store.audit.audit(args[1], "test.concurrent", f"{args[1]}/{n}", {"n": n})
    elif command == "record":
        for n in range(int(args[0])):
            numbers = range(n * BATCH, (n + 1) * BATCH)
            records = [CallRecord("s", args[1], "demo", "lookup", "ok", 1.0, 1, 2) for _ in numbers]
            events = [AuditEntry(args[1], "call", f"demo/lookup#{i}", {"n": i}) for i in numbers]
            store.calls.record_calls(records, events)
    elif command == "toggle":
        for _ in range(int(args[0])):
            store.tools.enable(args[1], args[2], actor=args[2])
            store.tools.disable(args[1], args[2], actor=args[2])
    elif command == "enable":
        store.tools.enable(args[0], args[1], actor="cli")
    elif command == "disable":
        store.tools.disable(args[0], args[1], actor="cli")
    elif command == "disable-server":
        store.tools.set_server_enabled(args[0], False, actor="cli")
    else:
        raise SystemExit(f"unknown command {command}")


def main(url: str, key: str) -> None:
    warnings.simplefilter("error")
    with Store.open(url, key=SecretKey.from_text(key)) as store:
        print("ready", flush=True)
        for line in sys.stdin:
            run(store, *line.split())
            print("done", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
