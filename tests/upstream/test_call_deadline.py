"""Gate 8's bound on a call: one deadline covers the request's write and the wait for its answer
(the SDK's own read timeout is left unset), so a server that stops answering costs a call its
timeout, and one that stops reading (the write blocks on a full pipe) its timeout plus the SDK's
bounded courtesy cancel — never more (it was a second more when the SDK's clock ran too)."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from mcp.shared.jsonrpc_dispatcher import _ABANDON_WRITE_TIMEOUT

from tests.helpers import EXACT_ENV, SCRIPTED, tool_def, write_spec
from toolpool.errors import UpstreamTimeout
from toolpool.upstream import Era, StdioLaunch, open_session

pytestmark = pytest.mark.anyio

CALL_TIMEOUT_S = 0.5
# Generous: two cores shared with other suites; the bound checked is "the timeout, not never".
LATE_S = 2.0
# Larger than a pipe's buffer (64 KiB on Linux): a server that stopped reading blocks its write.
BIG = "x" * (512 * 1024)


async def _timed_out(session: object, arguments: dict[str, str]) -> float:
    started = time.monotonic()
    with pytest.raises(UpstreamTimeout):
        await session.call_tool("t", arguments, CALL_TIMEOUT_S)  # type: ignore[attr-defined]
    return time.monotonic() - started


async def test_gate8_a_silent_server_and_a_blocked_write_each_cost_a_call_its_timeout(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        pages=[[tool_def("t")]],
        call_count_file=str(tmp_path / "calls.count"),
        fail_first_calls=99,
        fail_as="hang",  # reads the first call, then never reads or answers again
    )
    launch = StdioLaunch("python", [str(SCRIPTED), str(spec)], EXACT_ENV, None)
    with anyio.fail_after(60):
        async with open_session("silent", launch, Era("legacy"), 30) as session:
            waited = await _timed_out(session, {"n": "1"})  # written, never answered
            assert CALL_TIMEOUT_S * 0.9 <= waited <= CALL_TIMEOUT_S + LATE_S
            for _ in range(2):  # the write blocks on the full pipe, then waits behind it
                blocked = await _timed_out(session, {"n": BIG})
                # The SDK's courtesy cancel on a caller's cancellation is shielded and bounded.
                bound = CALL_TIMEOUT_S + _ABANDON_WRITE_TIMEOUT + LATE_S
                assert CALL_TIMEOUT_S * 0.9 <= blocked <= bound
