"""The HTTP listener sends small answers at once: every accepted connection has Nagle's
algorithm off. With it on, an answer written in two pieces (the status line and headers, then
the body: what uvicorn does) waits for the client's delayed ACK, about 40 ms on Linux, so a
client calling in sequence got at most ~20 calls/s however fast the gateway was (bench/RESULTS
§7)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import anyio
import pytest

from toolpool.serve.gateway import HttpAddress, listen

from .gateway_helpers import TEST_S, bearer, new_token, served
from .test_lean_front import _CONFIG, _ECHO
from .test_lean_front_http import _post

pytestmark = pytest.mark.anyio

_CALLS = 30
# A call of the demo's echo on loopback takes a few ms; a delayed ACK holds an answer back about 40 ms.
_DELAYED_ACK_S = 0.040


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_a_connection_the_listener_accepts_has_nagles_algorithm_off(host: str) -> None:
    with (
        listen(HttpAddress(host, 0)) as listener,
        socket.create_connection(listener.getsockname()[:2], timeout=TEST_S) as client,
    ):
        accepted, _ = listener.accept()
        with accepted:
            assert accepted.proto == socket.IPPROTO_TCP  # so asyncio's transport sets it too
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
            assert client.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # the check can fail


async def test_calls_in_sequence_on_one_connection_are_not_held_back_by_delayed_acks(tmp_path: Path) -> None:
    config = tmp_path / "toolpool.toml"
    config.write_text(_CONFIG)
    token = new_token(config, "ci", "--allow", "*")
    took = []
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running, bearer(token) as http:
            for number in range(_CALLS + 1):  # the first connects and warms up
                body, headers = _post(number, "tools/call", {"name": _ECHO, "arguments": {"text": "hi"}})
                began = time.perf_counter()
                answer = await http.post(running.url, content=body, headers=headers)
                took.append(time.perf_counter() - began)
                assert answer.status_code == 200, answer.text
    # Each answer is held back by a delayed ACK, or none is: the fastest call tells which,
    # however busy the machine is.
    assert min(took[1:]) < _DELAYED_ACK_S / 2, took
