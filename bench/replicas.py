"""Replicas behind nginx: throughput and latency with 1, 2 and 3 replicas, and how long a
disable takes to reach the other replicas.

Every replica is ``toolpool serve --http`` on one PostgreSQL schema and one Redis database,
behind the shipped ``deploy/nginx.conf`` (fewer replicas: the absent ones leave the shared
upstream). ``--clients`` 2026-07-28 clients call ``echo`` for ``--seconds`` through nginx;
the baseline, measured in the same run, is the same clients against one replica directly
(no nginx). Ratios are throughput ÷ baseline.

The disable latency: r1's admin API disables a tool, and r2 is asked again and again until
it refuses; the time from the admin API's answer to the refusal (so it includes one call's
round trip), ``--disables`` times, alternating with enables.

    .venv/bin/python bench/replicas.py [--seconds 10] [--clients 16] [--disables 15] [--json]

It needs PostgreSQL on 127.0.0.1:5432 (database ``test``), Redis on 127.0.0.1:6379 and nginx
(what ``scripts/bootstrap-tests`` sets up); it reuses the deployment test's helpers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the deployment test's helpers: one nginx runner, not two

from tests.conftest import postgres_schema  # noqa: E402
from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server, write_config  # noqa: E402
from tests.serve import replica_helpers  # noqa: E402
from tests.serve.gateway_helpers import code_of, http_client, served  # noqa: E402

from _report import machine  # noqa: E402
from _timing import percentile  # noqa: E402
from toolpool.store import Store  # noqa: E402

ADMIN = "bench-replicas-admin-token-0123456789"
ECHO = "mcp__demo_alpha__echo"
LOOKUP = "mcp__demo_beta__lookup"


async def _drive(url: str, token: str, clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    failed = 0
    until = time.monotonic() + seconds

    async def one(number: int) -> None:
        nonlocal failed
        async with http_client(url, token, "2026-07-28") as client:
            counter = 0
            while time.monotonic() < until:
                counter += 1
                started = time.perf_counter()
                result = await client.call_tool(ECHO, {"text": f"c{number}-{counter}"})
                latencies.append(time.perf_counter() - started)
                if code_of(result) != "ok":
                    failed += 1

    started = time.monotonic()
    async with anyio.create_task_group() as tasks:
        for number in range(clients):
            tasks.start_soon(one, number)
    elapsed = time.monotonic() - started
    return {
        "calls": len(latencies),
        "failed": failed,
        "calls_per_s": len(latencies) / elapsed,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p95_ms": percentile(latencies, 95) * 1000,
    }


async def _disable_latency(direct: Sequence[str], token: str, times: int) -> list[float]:
    import httpx2

    admin = direct[0].removesuffix("/mcp") + "/admin/tools/demo_beta/lookup/"
    seen: list[float] = []
    async with httpx2.AsyncClient(timeout=60) as http, http_client(direct[1], token, "2026-07-28") as client:
        assert code_of(await client.call_tool(LOOKUP, {"key": "k1"})) == "ok"
        for round_ in range(times * 2):
            # a refusal is tool_disabled, or unknown_tool once the tool left the client's view
            action = "disable" if round_ % 2 == 0 else "enable"

            def done(code: object, action: str = action) -> bool:
                return (code != "ok") if action == "disable" else (code == "ok")

            answer = await http.post(admin + action, headers={"Authorization": f"Bearer {ADMIN}"})
            answer.raise_for_status()
            started = time.perf_counter()
            codes: list[object] = []
            with anyio.move_on_after(30):
                while not done(code := code_of(await client.call_tool(LOOKUP, {"key": "k1"}))):
                    codes.append(code)
            if not done(code):
                raise SystemExit(f"r2 did not follow the {action} within 30 s: {codes[-3:]}")
            if action == "disable":
                seen.append(time.perf_counter() - started)
    return seen


@asynccontextmanager
async def _replicas(
    folder: Path, store_url: str, redis_url: str, front: int, ports: Sequence[int]
) -> AsyncIterator[list[str]]:
    write_config(
        folder,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", BETA_TOOLS),
        pool={"store": store_url, "redis": redis_url},
    )
    config = folder / "toolpool.toml"
    async with AsyncExitStack() as stack:
        urls = []
        for number, port in enumerate(ports, 1):
            running = await stack.enter_async_context(
                served(
                    config,
                    "--http",
                    f"127.0.0.1:{port}",
                    "--replica-id",
                    f"r{number}",
                    "--public-host",
                    f"127.0.0.1:{front}",
                    env={"TOOLPOOL_ADMIN_TOKEN": ADMIN},
                )
            )
            urls.append(running.url)
        yield urls


async def main(arguments: argparse.Namespace) -> dict[str, Any]:
    front, *ports = replica_helpers.free_ports(4)
    results: dict[str, Any] = {
        "machine": machine(),
        "clients": arguments.clients,
        "seconds": arguments.seconds,
    }
    with (
        tempfile.TemporaryDirectory() as scratch,
        postgres_schema() as store_url,
        replica_helpers.redis_database(3) as redis_url,
    ):
        folder = Path(scratch)
        with Store.open(store_url) as store:
            token = store.tokens.add_token("bench", ["*"], ["*"], "bench")
        async with _replicas(folder, store_url, redis_url, front, ports) as direct:
            results["direct_one_replica"] = await _drive(
                direct[0], token, arguments.clients, arguments.seconds
            )
            results["disable_ms"] = [
                round(s * 1000, 1) for s in await _disable_latency(direct, token, arguments.disables)
            ]
            for count in (1, 2, 3):
                async with replica_helpers.nginx(folder / f"nginx-{count}", front, ports, count):
                    url = f"http://127.0.0.1:{front}/mcp"
                    results[f"nginx_{count}"] = await _drive(url, token, arguments.clients, arguments.seconds)
    baseline = results["direct_one_replica"]["calls_per_s"]
    for count in (1, 2, 3):
        results[f"nginx_{count}"]["throughput_ratio"] = results[f"nginx_{count}"]["calls_per_s"] / baseline
    return results


def _print(results: dict[str, Any]) -> None:
    base = results["direct_one_replica"]
    print(f"{results['clients']} clients, {results['seconds']:g} s per arm (2026-07-28, echo)")
    print(f"{'arm':<28}{'calls/s':>10}{'ratio':>8}{'p50 ms':>9}{'p95 ms':>9}{'failed':>8}")
    print(
        f"{'one replica, direct':<28}{base['calls_per_s']:>10.0f}{1.0:>8.2f}{base['p50_ms']:>9.1f}{base['p95_ms']:>9.1f}{base['failed']:>8}"
    )
    for count in (1, 2, 3):
        arm = results[f"nginx_{count}"]
        print(
            f"{f'nginx, {count} replica(s)':<28}{arm['calls_per_s']:>10.0f}{arm['throughput_ratio']:>8.2f}"
            f"{arm['p50_ms']:>9.1f}{arm['p95_ms']:>9.1f}{arm['failed']:>8}"
        )
    disable = results["disable_ms"]
    print(
        f"disable on r1 -> refused on r2: median {statistics.median(disable):.0f} ms, "
        f"max {max(disable):.0f} ms over {len(disable)} (includes one call's round trip)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--disables", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    measured = anyio.run(main, options)
    if options.json:
        print(json.dumps(measured, indent=2))
    else:
        _print(measured)
