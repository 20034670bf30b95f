"""One replica as a load balancer sees it: ``/healthz``, ``/readyz``, session ids that name the
replica, and a SIGTERM that drains — calls in flight finish, records are flushed, children reaped.
"""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.helpers import ALPHA_TOOLS, demo_server, write_config
from tests.limit_helpers import SLEEP, slow_server
from tests.serve.gateway_helpers import (
    INITIALIZE,
    MCP_HEADERS,
    WAIT_S,
    bearer,
    new_token,
    served,
    still_running,
    toolpool,
)
from toolpool.store import Store

pytestmark = pytest.mark.anyio

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "drain", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _config(folder: Path, **pool: object) -> Path:
    write_config(folder, demo_server("demo_alpha", "alpha", ALPHA_TOOLS), slow_server(), pool=pool)
    return folder / "toolpool.toml"


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_healthz_and_readyz_answer_without_a_token(tmp_path: Path) -> None:
    config = _config(tmp_path)
    async with served(config, "--http", "127.0.0.1:0", "--replica-id", "r7") as running:
        base = running.url.removesuffix("/mcp")
        async with httpx2.AsyncClient(timeout=WAIT_S) as http:
            live = await http.get(f"{base}/healthz")
            ready = await http.get(f"{base}/readyz")
            posted = await http.post(f"{base}/readyz")
            head = await http.head(f"{base}/readyz")
    assert (live.status_code, live.json()) == (200, {"live": True, "draining": False, "calls_in_flight": 0})
    assert ready.status_code == 200
    assert ready.json() == {
        "ready": True,
        "draining": False,
        "store": True,
        "redis": None,
        "upstreams": {"wanted": 2, "connected": 2},
        "replica": "r7",
    }
    assert posted.status_code == 405 and posted.headers["allow"] == "GET, HEAD"
    assert head.status_code == 200 and head.content == b""


async def test_readyz_is_503_while_its_redis_does_not_answer(tmp_path: Path) -> None:
    config = _config(tmp_path, redis=f"redis://127.0.0.1:{_unused_port()}/0")
    async with served(config, "--http", "127.0.0.1:0") as running, httpx2.AsyncClient(timeout=WAIT_S) as http:
        ready = await http.get(running.url.removesuffix("/mcp") + "/readyz")
    assert ready.status_code == 503
    assert ready.json()["ready"] is False and ready.json()["redis"] is False and ready.json()["store"] is True


async def test_legacy_session_ids_name_their_replica_and_others_are_not_found(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = new_token(config, "ci", "--allow", "*")
    async with (
        served(config, "--http", "127.0.0.1:0", "--replica-id", "r1") as running,
        bearer(token) as http,
    ):
        opened = await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)
        session = opened.headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        own = await http.post(running.url, json=ping, headers={**MCP_HEADERS, "Mcp-Session-Id": session})
        bare = session.removeprefix("r1.")
        unprefixed = await http.post(running.url, json=ping, headers={**MCP_HEADERS, "Mcp-Session-Id": bare})
        other = await http.post(
            running.url, json=ping, headers={**MCP_HEADERS, "Mcp-Session-Id": f"r2.{bare}"}
        )
    assert opened.status_code == 200 and session.startswith("r1.") and len(bare) == 32
    assert opened.headers["x-toolpool-replica"] == "r1"
    assert own.status_code == 200
    assert unprefixed.status_code == 404 and other.status_code == 404


async def test_a_replica_prefixed_session_id_still_belongs_to_the_token_that_opened_it(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    owner, other = new_token(config, "ana", "--allow", "*"), new_token(config, "bob", "--allow", "*")
    async with served(config, "--http", "127.0.0.1:0", "--replica-id", "r1") as running:
        async with bearer(owner) as http:
            session = (await http.post(running.url, json=INITIALIZE, headers=MCP_HEADERS)).headers[
                "mcp-session-id"
            ]
        async with bearer(other) as http:
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            taken = await http.post(
                running.url, json=ping, headers={**MCP_HEADERS, "Mcp-Session-Id": session}
            )
    assert session.startswith("r1.")
    assert taken.status_code == 404


async def test_sigterm_drains_a_call_in_flight_and_flushes_its_record(tmp_path: Path) -> None:
    config = _config(tmp_path)
    token = new_token(config, "ci", "--allow", "*")
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": SLEEP, "arguments": {"ms": 3000}, "_meta": MODERN_META},
    }
    headers = {
        **MCP_HEADERS,
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": SLEEP,
    }
    async with served(config, "--http", "127.0.0.1:0", "--grace-s", "20") as running:
        children = set(running.children)
        port = int(running.url.rsplit(":", 1)[1].split("/")[0])
        health = running.url.removesuffix("/mcp") + "/healthz"
        answers: list[object] = []
        async with bearer(token) as http, anyio.create_task_group() as tasks:

            async def slow_call() -> None:
                answered = await http.post(running.url, json=call, headers=headers)
                answers.append(answered.json()["result"]["_meta"]["toolpool/code"])

            tasks.start_soon(slow_call)
            with anyio.fail_after(WAIT_S):
                while (await http.get(health)).json()["calls_in_flight"] != 1:
                    pass  # asked again until the call is in flight: bounded by the deadline
                running.process.send_signal(signal.SIGTERM)
                while _accepts(port):  # the listener closes first  # noqa: ASYNC110
                    await anyio.sleep(0.02)
        with anyio.fail_after(WAIT_S):
            code = await running.process.wait()
    assert answers == ["ok"]
    assert code == 0, running.stderr
    assert still_running(children) == set()
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}") as store:
        calls = [record for _, record in store.calls.call_records() if record.tool == "sleep"]
    assert [record.code for record in calls] == ["ok"]


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--http", "127.0.0.1:0", "--replica-id", "has space"), "not a replica name"),
        (("--http", "127.0.0.1:0", "--replica-id", "x" * 33), "not a replica name"),
        (("--stdio", "--replica-id", "r1"), "apply to --http"),
        (("--http", "127.0.0.1:0", "--public-host", "nowhere"), "--public-host"),
        (("--http", "127.0.0.1:0", "--grace-s", "-1"), "grace"),
    ],
)
def test_bad_replica_options_fail_with_one_line(tmp_path: Path, args: tuple[str, ...], fragment: str) -> None:
    result = toolpool(_config(tmp_path), "serve", *args)
    assert result.returncode != 0
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr
