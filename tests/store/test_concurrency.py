"""Two processes, one store: nothing lost, the chain never forks, and a disable committed by
one process is what gate 3 answers in the other on its very next call."""

from __future__ import annotations

import select
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolpool.store import SecretKey, Store

from .helpers import imported, read

WORKER = Path(__file__).with_name("_worker.py")
START_TIMEOUT_S = 30.0  # a worker imports toolpool and opens the store
RUN_TIMEOUT_S = 60.0  # 200 short transactions per worker, with the other one contending
APPENDS = 200
TOGGLES = 50


class Worker:
    """Another process with the store open, running one command per line it is sent."""

    def __init__(self, url: str, key: SecretKey) -> None:
        command = [sys.executable, str(WORKER), url, key.to_text()]
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def expect(self, word: str, timeout: float) -> None:
        assert self.proc.stdout is not None
        readable, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if readable else ""
        if line.strip() != word:
            self.stop()
            stderr = self.proc.stderr.read() if self.proc.stderr else ""
            pytest.fail(f"worker said {line!r}, not {word!r}, within {timeout} s: {stderr}")

    def do(self, command: str) -> None:
        self.send(command)
        self.expect("done", RUN_TIMEOUT_S)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=RUN_TIMEOUT_S)


@pytest.fixture
def pair(store: Store, store_url: str, key: SecretKey) -> Iterator[tuple[Worker, Worker]]:
    workers = (Worker(store_url, key), Worker(store_url, key))
    try:
        for worker in workers:  # both start at once; wait for both before any work
            worker.expect("ready", START_TIMEOUT_S)
        yield workers
    finally:
        for worker in workers:
            worker.stop()


def _together(pair: tuple[Worker, Worker], *commands: str) -> None:
    for worker, command in zip(pair, commands, strict=True):
        worker.send(command)
    for worker in pair:
        worker.expect("done", RUN_TIMEOUT_S)


def test_two_processes_appending_audit_events_lose_nothing_and_keep_one_chain(
    store: Store, pair: tuple[Worker, Worker]
) -> None:
    before = len(store.audit.audit_events())
    _together(pair, f"audit {APPENDS} one", f"audit {APPENDS} two")
    events = store.audit.audit_events(after_id=before)
    assert Counter(event.actor for event in events) == {"one": APPENDS, "two": APPENDS}
    for tag in ("one", "two"):
        assert [e.detail["n"] for e in events if e.actor == tag] == list(range(APPENDS))
    check = store.audit.verify_audit()
    assert check.ok and check.checked == before + 2 * APPENDS


def test_two_processes_changing_tools_make_one_release_per_change(
    store: Store, pair: tuple[Worker, Worker]
) -> None:
    store.tools.record_import("demo", [imported("alpha"), imported("beta")], actor="ana")
    store.tools.sync_policy("demo", {"alpha": read("demo.alpha"), "beta": read("demo.beta")})
    first = store.releases.current_release().number
    _together(pair, f"toggle {TOGGLES} demo alpha", f"toggle {TOGGLES} demo beta")
    last = store.releases.current_release()
    assert last.number == first + 4 * TOGGLES
    actors = Counter(store.releases.release(n).actor for n in range(first + 1, last.number + 1))
    assert actors == {"alpha": 2 * TOGGLES, "beta": 2 * TOGGLES}
    assert last.content["tools"] == {}
    assert store.audit.verify_audit().ok


def test_gate3_a_disable_committed_by_another_process_applies_to_the_next_call(
    store: Store, store_url: str, key: SecretKey
) -> None:
    cli = Worker(store_url, key)
    try:
        cli.expect("ready", START_TIMEOUT_S)
        _disable_elsewhere(store, cli)
    finally:
        cli.stop()


def _disable_elsewhere(store: Store, cli: Worker) -> None:
    store.tools.record_import("demo", [imported("lookup")], actor="ana")
    store.tools.sync_policy("demo", {"lookup": read("demo.lookup", enabled=True)})
    assert store.tools.is_enabled("demo", "lookup")  # this thread's connection is open and warm
    version = store.releases.version
    cli.do("disable demo lookup")
    assert not store.tools.is_enabled("demo", "lookup")
    assert store.releases.version > version
    cli.do("enable demo lookup")
    assert store.tools.is_enabled("demo", "lookup")
    cli.do("disable-server demo")
    assert not store.tools.is_enabled("demo", "lookup")
