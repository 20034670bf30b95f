"""Gate 10 through a real pool: the recorder writes every call's record and audit event off
the call path, in call order, and loses nothing on a clean close; a killed pool loses at most
what it queued during the last linger window, never half a batch, and the chain stays valid."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, demo_server, usage_of_records, usage_of_totals, write_config
from toolpool import Pool, Ticket
from toolpool.calls._recording import _LINGER_S
from toolpool.config import Config
from toolpool.store import CallRecord, Store

pytestmark = pytest.mark.anyio

TIMEOUT = 60
CHILD = Path(__file__).with_name("recording_child.py")
CONCURRENT = 200
SEQUENTIAL = 60
CHILD_CALLS = 40
# What a killed pool may lose, beyond the linger window: the batch being written when it died.
# Generous, since other work shares the machine's two cores.
WRITE_ALLOWANCE_S = 1.5
BURST_S = 3.0
COLUMNS = ("alias", "tool")


def _config(tmp_path: Path) -> Config:
    return write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        pool={"store": f"sqlite:///{tmp_path / 'toolpool.db'}"},
    )


def _stored(tmp_path: Path) -> Store:
    return Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}")


async def test_closing_the_pool_writes_every_call_made_just_before_with_its_event_and_usage(
    tmp_path: Path,
) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            snapshot, ticket = pool.snapshot(), Ticket.allow("*")

            async def call(n: int) -> None:
                name = "mcp__demo_alpha__" + ("lookup" if n % 2 else "echo")
                await pool.call(snapshot, name, {"key": f"k{n}", "text": "t"}, ticket=ticket)

            async with anyio.create_task_group() as calls:
                for n in range(CONCURRENT):
                    calls.start_soon(call, n)
    # No wait: leaving the block flushed the recorder.
    with _stored(tmp_path) as store:
        records = [record for _, record in store.calls.call_records()]
        events = [event for event in store.audit.audit_events() if event.action == "call"]
        assert len(records) == len(events) == CONCURRENT
        assert [event.resource.rsplit("/", 1)[1] for event in events] == [record.tool for record in records]
        assert store.audit.verify_audit().ok
        assert usage_of_totals(store.usage.totals("tool"), ("alias", "tool")) == usage_of_records(
            records, ("alias", "tool")
        )


async def test_calls_are_recorded_in_the_order_they_were_made(tmp_path: Path) -> None:
    tools = [("lookup", "echo", "process_info")[n % 3] for n in range(SEQUENTIAL)]
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            snapshot, ticket = pool.snapshot(), Ticket.allow("*")
            for n, tool in enumerate(tools):
                await pool.call(
                    snapshot, f"mcp__demo_alpha__{tool}", {"key": f"k{n}", "text": "t"}, ticket=ticket
                )
    with _stored(tmp_path) as store:
        assert [record.tool for _, record in store.calls.call_records()] == tools
        events = [event for event in store.audit.audit_events() if event.action == "call"]
        assert [event.resource for event in events] == [f"demo_alpha/{tool}" for tool in tools]


async def test_on_call_sees_each_record_as_the_call_returns_and_the_store_keeps_the_same(
    tmp_path: Path,
) -> None:
    seen: list[CallRecord] = []
    arguments = {"text": "h\u00e9llo"}
    async with Pool(_config(tmp_path), on_call=seen.append) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            envelope = await pool.call(
                pool.snapshot(), "mcp__demo_alpha__echo", arguments, ticket=Ticket.allow("*")
            )
            assert len(seen) == 1  # at once, not when the batch is written
            arguments["text"] = "reused for the next call"  # the record was sized already
    [record] = seen
    assert record.bytes_in == len(json.dumps({"text": "h\u00e9llo"}, separators=(",", ":")))
    assert record.bytes_out == len(envelope.text.encode())
    assert (record.alias, record.tool, record.code) == ("demo_alpha", "echo", "ok")
    with _stored(tmp_path) as store:
        assert [stored for _, stored in store.calls.call_records()] == seen


class Child:
    """A pool in another process (tests/recording_child.py), in a process group of its own."""

    def __init__(self, tmp_path: Path, calls: int) -> None:
        config = tmp_path / "toolpool.toml"
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(config), str(calls)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        self._buffer = b""

    def line(self) -> str:
        """The child's next line (read unbuffered: select sees only what no buffer took yet)."""
        assert self.proc.stdout is not None
        while b"\n" not in self._buffer:
            readable, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
            assert readable, "the child said nothing"
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            assert chunk, "the child exited"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode().strip()

    def kill(self) -> float:
        """SIGKILL the child and everything it started; the moment it was sent."""
        killed = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.communicate(timeout=TIMEOUT)
        return killed


def test_a_call_is_in_the_store_within_the_linger_window_and_survives_a_kill(tmp_path: Path) -> None:
    _config(tmp_path)
    child = Child(tmp_path, CHILD_CALLS)
    try:
        lines = [child.line() for _ in range(CHILD_CALLS)]
        assert child.line() == "made"
        last_call = float(lines[-1].split()[1])
        with _stored(tmp_path) as store:
            deadline = last_call + _LINGER_S + WRITE_ALLOWANCE_S
            while len(store.calls.call_records()) < CHILD_CALLS and time.monotonic() < deadline:
                time.sleep(0.01)  # polls another process's commits, bounded by the window
            written = time.monotonic()
            assert len(store.calls.call_records()) == CHILD_CALLS, "not written within the window"
            assert written - last_call < _LINGER_S + WRITE_ALLOWANCE_S
    finally:
        child.kill()
    with _stored(tmp_path) as store:
        assert len(store.calls.call_records()) == CHILD_CALLS
        assert store.audit.verify_audit().ok


def test_a_killed_pool_loses_at_most_its_last_window_and_never_half_a_batch(tmp_path: Path) -> None:
    _config(tmp_path)
    child = Child(tmp_path, 0)
    made: list[float] = []
    try:
        while not made or made[-1] - made[0] < BURST_S:
            made.append(float(child.line().split()[1]))
    finally:
        killed = child.kill()
    with _stored(tmp_path) as store:
        records = [record for _, record in store.calls.call_records()]
        events = [event for event in store.audit.audit_events() if event.action == "call"]
        check = store.audit.verify_audit()
        totals = store.usage.totals("tool")
    # Every call that returned before the last window (and the write after it) is stored.
    old_enough = sum(1 for at in made if at < killed - _LINGER_S - WRITE_ALLOWANCE_S)
    assert old_enough > 0
    assert len(records) >= old_enough
    # One transaction per batch: the records, their events and the ledger agree.
    assert len(events) == len(records)
    assert usage_of_totals(totals, COLUMNS) == usage_of_records(records, COLUMNS)
    assert check.ok
