"""A second process for the shared-limits tests: its own Pool on the same config (and Redis).

Run as ``python limits_peer.py CONFIG ALIAS TOOL ARGUMENTS_JSON COUNT``; it makes COUNT calls
one after another and prints their Envelope codes as one JSON list.
"""

from __future__ import annotations

import json
import sys

import anyio

from toolpool import Pool, Ticket, load_config


async def main(config_path: str, alias: str, tool: str, arguments: str, count: int) -> None:
    async with Pool(load_config(config_path), store=False) as pool:
        with anyio.fail_after(60):
            await pool.connect(alias)
            snapshot = pool.snapshot()
            codes = [
                (await pool.call(snapshot, tool, json.loads(arguments), ticket=Ticket.allow("*"))).code
                for _ in range(count)
            ]
    print(json.dumps(codes))


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:5], int(sys.argv[5]))
