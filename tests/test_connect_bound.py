"""Connecting many aliases at once: a pool admits at most ``CONNECTS_AT_ONCE`` at a time.

Observed through real server processes: every scripted server appends the requests it
receives to one shared log, and takes a while to answer ``initialize``. An admission runs
from the server's start to its listing, so the servers that logged ``initialize`` but not
yet ``tools/list`` are admissions in flight at that moment.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from toolpool import Pool
from toolpool.pool import CONNECTS_AT_ONCE

pytestmark = pytest.mark.anyio

TIMEOUT = 180  # a few Python starts after one another on a busy 2-core machine
_SLOW_START_S = 0.5  # long enough that unbounded starts overlap on any machine


def _most_at_once(log: Path) -> int:
    in_flight = most = 0
    for line in log.read_text(encoding="utf-8").splitlines():
        method = json.loads(line)["method"]
        in_flight += {"initialize": 1, "tools/list": -1}.get(method, 0)
        most = max(most, in_flight)
    return most


async def test_connecting_more_aliases_than_the_bound_admits_at_most_the_bound_at_once(
    tmp_path: Path,
) -> None:
    log = tmp_path / "requests.jsonl"
    spec = write_spec(tmp_path, pages=[[tool_def("get")]], log=str(log), initialize_delay_s=_SLOW_START_S)
    aliases = [f"slow{number}" for number in range(CONNECTS_AT_ONCE + 3)]
    config = write_config(
        tmp_path,
        *(scripted_server(alias, spec, {"get": {"action": "slow.get", **READ}}) for alias in aliases),
    )
    async with Pool(config, store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            async with anyio.create_task_group() as tasks:
                for alias in aliases:
                    tasks.start_soon(pool.connect, alias)
        assert sorted(pool.connected) == sorted(aliases)
    assert _most_at_once(log) <= CONNECTS_AT_ONCE
