"""The pool's side of the management plane: the store answers, the pool records.

- ``StoreEnablement`` answers gate 3 from the store at every call, so another process's
  ``toolpool disable`` takes effect on the next call.
- ``ConfigFirstPins``: a ``pin`` in the configuration is trusted local policy and wins;
  every other tool is pinned in the store.
- ``Recorder`` writes audit events, call records and sessions' taint off the call path: calls
  enqueue, one
  task writes batches in a worker thread (one transaction per batch), and closing the pool
  waits, bounded, for the rest.
- ``Management`` is all of it for one pool: opened with the pool (the configuration's
  ``enabled`` flags synced as actor ``config``), closed with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial

import anyio
import anyio.abc
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolpool.admitter import EraMemory
from toolpool.config import Config
from toolpool.errors import UsageError
from toolpool.store import AuditEntry, CallRecord, SecretKey, SessionTaint, Store
from toolpool.taint import TaintDelta, TaintLedger
from toolpool.vetting import Pin, Pins, PublishedTool
from toolpool.views import ReleaseView

__all__ = ["ConfigFirstPins", "Management", "Recorder", "StoreEnablement"]

# Enough to absorb a burst of calls; when full, the entry is written at once: none is dropped.
_QUEUE = 10_000
_BATCH = 512
# How long the writer gathers entries after the first one: calls come back to back, and one
# transaction of one entry costs about 0.6 ms of CPU and one of 25 about 1.7 ms on SQLite
# (bench/record_batches.py): a ninth per entry. A crash can lose at most this window; closing
# the pool writes everything.
_LINGER_S = 0.1
# Bound on flushing what is left when the pool closes.
_FLUSH_S = 15.0

_Entry = AuditEntry | CallRecord | SessionTaint


class StoreEnablement:
    """Gate 3 from the store; ``version`` (the release number) follows every change."""

    def __init__(self, store: Store) -> None:
        self._store = store

    @property
    def version(self) -> int:
        return self._store.version

    def is_enabled(self, alias: str, remote_name: str) -> bool:
        return self._store.is_enabled(alias, remote_name)


class ConfigFirstPins:
    """Pins from the configuration first, then from ``stored``."""

    def __init__(self, configured: Mapping[tuple[str, str], str], stored: Pins) -> None:
        self._configured = dict(configured)
        self._stored = stored

    def pin_of(self, alias: str, remote_name: str) -> Pin | None:
        pinned = self._configured.get((alias, remote_name))
        return Pin(pinned) if pinned is not None else self._stored.pin_of(alias, remote_name)

    def approve(self, alias: str, remote_name: str, tool: PublishedTool) -> None:
        """Raises UsageError for a tool pinned in the configuration: change the pin there."""
        if (alias, remote_name) in self._configured:
            raise UsageError(f"{alias}/{remote_name} is pinned in the configuration; change its `pin` there")
        self._stored.approve(alias, remote_name, tool)


class Recorder:
    """Writes audit events and call records in the background, in order, losing nothing."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._send: MemoryObjectSendStream[_Entry]
        self._receive: MemoryObjectReceiveStream[_Entry]
        self._send, self._receive = anyio.create_memory_object_stream[_Entry](_QUEUE)
        self._done = anyio.Event()
        self._closing = anyio.Event()

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        try:
            async with self._receive:
                async for first in self._receive:
                    batch = [first]
                    with anyio.move_on_after(_LINGER_S):
                        await self._closing.wait()
                    while len(batch) < _BATCH:
                        try:
                            batch.append(self._receive.receive_nowait())
                        except (anyio.WouldBlock, anyio.EndOfStream):
                            break
                    await anyio.to_thread.run_sync(self._write, batch)
        finally:
            self._done.set()

    def audit(self, actor: str, action: str, resource: str, detail: Mapping[str, object]) -> None:
        self._put(AuditEntry(actor, action, resource, detail))

    def call(self, record: CallRecord) -> None:
        self._put(record)

    def taint(self, session_id: str, delta: TaintDelta) -> None:
        self._put(SessionTaint(session_id, delta.encode(), datetime.now(UTC)))

    async def aclose(self) -> None:
        """Stop taking entries and wait (bounded) until every queued one is written."""
        self._closing.set()
        self._send.close()
        with anyio.move_on_after(_FLUSH_S, shield=True):
            await self._done.wait()

    def _put(self, entry: _Entry) -> None:
        try:
            self._send.send_nowait(entry)
        except (anyio.WouldBlock, anyio.ClosedResourceError):
            self._write([entry])  # the writer is far behind, or gone: write it here, never lose it

    def _write(self, batch: list[_Entry]) -> None:
        records = [entry for entry in batch if isinstance(entry, CallRecord)]
        events = [entry for entry in batch if isinstance(entry, AuditEntry)]
        taints = [entry for entry in batch if isinstance(entry, SessionTaint)]
        self._store.record_calls(records, events, taints)


class Management:
    """A pool's store: gate 3, pins, eras, secrets, sessions and releases, audit, call records."""

    def __init__(self, store: Store, owned: bool, configured_pins: Mapping[tuple[str, str], str]) -> None:
        self.store = store
        self.enablement = StoreEnablement(store)
        self.pins = ConfigFirstPins(configured_pins, store.pins(actor="pool"))
        self.eras = EraMemory(store.remembered_era, store.remember_era)
        self.recorder = Recorder(store)
        self._owned = owned
        self._releases: dict[int, ReleaseView] = {}

    @classmethod
    async def open(
        cls,
        config: Config,
        store: Store | None,
        key: SecretKey | None,
        configured_pins: Mapping[tuple[str, str], str],
    ) -> Management:
        """Open (or adopt) the store and sync the configuration's ``enabled`` flags into it.

        Raises:
            UsageError: the store cannot be opened.
        """
        owned = store is None
        opened = (
            store
            if store is not None
            else await anyio.to_thread.run_sync(lambda: Store.open(config.store_url, key=key))
        )
        try:
            for alias, spec in config.servers.items():
                sync = partial(opened.sync_policy, alias, spec.tools, spec_hash=spec.spec_hash)
                await anyio.to_thread.run_sync(sync)
        except BaseException:
            if owned:
                opened.close()
            raise
        return cls(opened, owned, configured_pins)

    def secret(self, name: str) -> str | None:
        try:
            return self.store.secret(name)
        except UsageError:
            return None

    def open_session(self, principal: str, resume: str | None) -> tuple[str, ReleaseView, TaintLedger]:
        """A new session bound to the current release, or a resumed one with its own release
        and the taint it had learned; either keeps its taint in the store as it grows.

        Raises:
            UsageError: ``resume`` names no session, or its kept taint cannot be read (a
                session that cannot get its taint back is not resumed: fail closed).
        """
        if resume is None:
            session_id, number = self.store.open_session(principal)
            return session_id, self.release(number), self._ledger(session_id)
        bound = self.store.session_release(resume)
        if bound is None:
            raise UsageError(f"no session {resume!r} to resume")
        ledger = self._ledger(resume)
        try:
            ledger.restore([TaintDelta.decode(data) for data in self.store.session_taint(resume)])
        except ValueError as exc:
            raise UsageError(f"session {resume!r} cannot be resumed: its taint record is damaged") from exc
        return resume, self.release(bound), ledger

    def _ledger(self, session_id: str) -> TaintLedger:
        recorder = self.recorder
        return TaintLedger(lambda delta: recorder.taint(session_id, delta))

    def release(self, number: int) -> ReleaseView:
        view = self._releases.get(number)
        if view is None:
            view = self._releases[number] = ReleaseView.of(number, self.store.release(number).content)
        return view

    async def aclose(self) -> None:
        await self.recorder.aclose()
        if self._owned:
            await anyio.to_thread.run_sync(self.store.close)
