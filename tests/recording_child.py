"""A pool in a process of its own, for the crash tests of gate 10's recorder.

    python recording_child.py CONFIG CALLS

It connects ``demo_alpha`` and makes ``CALLS`` calls one after the other (0: until it is
killed), printing ``N MONOTONIC`` after the N-th call returned; then it prints ``made`` and
waits for stdin to close, with the pool still open: only a kill ends it before it closes.
"""

from __future__ import annotations

import itertools
import sys
import time

import anyio

from toolpool import Pool, Ticket, load_config

ECHO = "mcp__demo_alpha__echo"


async def main(config: str, calls: int) -> None:
    async with Pool(load_config(config)) as pool:
        await pool.connect("demo_alpha")
        snapshot, ticket = pool.snapshot(), Ticket.allow("*")
        for n in itertools.count(1) if calls == 0 else range(1, calls + 1):
            envelope = await pool.call(snapshot, ECHO, {"text": f"call {n}"}, ticket=ticket)
            assert envelope.ok, envelope
            print(n, time.monotonic(), flush=True)
        print("made", flush=True)
        await anyio.to_thread.run_sync(sys.stdin.read)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], int(sys.argv[2]))
