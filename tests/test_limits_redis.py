"""Limits shared through Redis (``[pool] redis``): two pools in two processes enforce one
bucket and one concurrency cap, and Redis stopped mid-run does what ``redis_down`` says
(``closed``: ``limits_unavailable``; ``open``: the call runs), with events.

Each xdist worker uses a database of its own on the machine's Redis (127.0.0.1:6379), flushed
before and after; the outage test runs a Redis server of its own and stops it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import redis

from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server
from tests.limit_helpers import ANY, SLEEP, Monotonic, codes, limits_config, slow_server
from toolpool import Pool
from toolpool.demo import demo_environment
from toolpool.testing import EventRecorder

pytestmark = pytest.mark.anyio

TIMEOUT = 90
PEER = Path(__file__).parent / "servers" / "limits_peer.py"
ECHO = "mcp__demo_alpha__echo"
BETA_LOOKUP = "mcp__demo_beta__lookup"


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A database of this worker's own (11, 12, ... per xdist worker; 14 without xdist)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    number = 11 + int(worker[2:]) if worker[2:].isdigit() else 14
    client = redis.Redis(host="127.0.0.1", port=6379, db=number, socket_timeout=5)
    client.flushdb()
    try:
        yield f"redis://127.0.0.1:6379/{number}"
    finally:
        client.flushdb()
        client.close()


def _peer(config: Path, alias: str, tool: str, arguments: str, count: int) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(PEER), str(config), alias, tool, arguments, str(count)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**demo_environment(), "PATH": os.environ.get("PATH", "")},
        check=True,
    )
    codes: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return codes


async def test_two_pools_in_two_processes_share_one_bucket_through_redis(
    tmp_path: Path, redis_url: str
) -> None:
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS, rate="1/min", burst=5),
        pool={"redis": redis_url},
    )
    async with Pool(config, store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            assert await codes(pool, ECHO, {"text": "x"}, 3) == ["ok"] * 3
            peer = await anyio.to_thread.run_sync(
                _peer, config.source, "demo_alpha", ECHO, '{"text": "y"}', 4
            )
            assert peer == ["ok", "ok", "rate_limited", "rate_limited"]
            assert await codes(pool, ECHO, {"text": "x"}, 1) == ["rate_limited"]


async def test_two_pools_in_two_processes_share_one_concurrency_cap_through_redis(
    tmp_path: Path, redis_url: str
) -> None:
    config = limits_config(tmp_path, slow_server(max_concurrent_calls=2), pool={"redis": redis_url})
    number = int(redis_url.rsplit("/", 1)[1])
    watcher = redis.asyncio.Redis(host="127.0.0.1", port=6379, db=number)
    async with watcher, Pool(config, store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("slow")
            snapshot = pool.snapshot()

            async def hold() -> None:
                await pool.call(snapshot, SLEEP, {"ms": 30_000}, ticket=ANY)

            async with anyio.create_task_group() as holders:
                for _ in range(2):  # two calls hold both slots until they are cancelled
                    holders.start_soon(hold)
                # Another process's Redis gives no event when a slot is taken: poll, bounded.
                while await watcher.zcard("toolpool:c:a:slow") < 2:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
                peer = await anyio.to_thread.run_sync(_peer, config.source, "slow", SLEEP, '{"ms": 0}', 2)
                assert peer == ["rate_limited", "rate_limited"]
                holders.cancel_scope.cancel()
            assert await watcher.zcard("toolpool:c:a:slow") == 0  # cancelled calls gave their slots back
            after = await anyio.to_thread.run_sync(_peer, config.source, "slow", SLEEP, '{"ms": 0}', 1)
            assert after == ["ok"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start_redis(port: int) -> subprocess.Popen[bytes]:
    """A Redis server of this test's own, once it says it accepts connections."""
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert server.stdout is not None
    for line in server.stdout:  # ends at its exit, if it cannot start
        if b"Ready to accept connections" in line:
            return server
    _stop(server)
    raise AssertionError("redis-server did not start")


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)
    if server.stdout is not None:
        server.stdout.close()


async def test_redis_stopped_mid_run_fails_closed_or_open_as_each_limit_says(tmp_path: Path) -> None:
    port = _free_port()
    clock = Monotonic()
    events = EventRecorder()
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS, rate="100/s"),
        demo_server("demo_beta", "beta", BETA_TOOLS, rate="100/s", redis_down="open"),
        pool={"redis": f"redis://127.0.0.1:{port}/0"},
    )
    server = _start_redis(port)
    try:
        async with Pool(config, store=False, monotonic=clock, on_event=events) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("demo_alpha")
                await pool.connect("demo_beta")
                assert await codes(pool, ECHO, {"text": "x"}, 1) == ["ok"]
                assert await codes(pool, BETA_LOOKUP, {"key": "k1"}, 1) == ["ok"]
                _stop(server)
                assert await codes(pool, ECHO, {"text": "x"}, 2) == ["limits_unavailable"] * 2
                assert await codes(pool, BETA_LOOKUP, {"key": "k1"}, 2) == ["ok"] * 2
                clock.now += 5  # past the back-off: each call tries Redis again, and fails
                assert await codes(pool, ECHO, {"text": "x"}, 1) == ["limits_unavailable"]
                assert len(events.of_kind("limits.redis_down")) == 1
                assert not events.of_kind("limits.redis_back")
                server = _start_redis(port)
                clock.now += 5
                assert await codes(pool, ECHO, {"text": "x"}, 1) == ["ok"]
                assert len(events.of_kind("limits.redis_back")) == 1
    finally:
        _stop(server)


async def test_a_quota_in_redis_is_shared_by_pools_and_seeded_from_the_store_when_redis_lost_it(
    tmp_path: Path, redis_url: str
) -> None:
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        pool={"redis": redis_url},
        principals={"*": {"quota_calls": 3}},
    )
    async with Pool(config) as first, Pool(config) as second:
        with anyio.fail_after(TIMEOUT):
            await first.connect("demo_alpha")
            await second.connect("demo_alpha")
            assert await codes(first, ECHO, {"text": "x"}, 2) == ["ok", "ok"]
            assert await codes(second, ECHO, {"text": "x"}, 2) == ["ok", "quota_exceeded"]
    number = int(redis_url.rsplit("/", 1)[1])
    with redis.Redis(host="127.0.0.1", port=6379, db=number) as client:
        client.flushdb()  # Redis lost its counters; the store still has the calls
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            assert await codes(pool, ECHO, {"text": "x"}, 1) == ["quota_exceeded"]
