"""Gate 10: every call decision leaves an audit event, a call record and its usage-ledger
increments, and a session's taint is kept as it grows — written off the call path. What
sessions report to the usage ledger (tool lists shown, model tokens) goes the same way.

``CallRecording`` queues one small tuple per call (``_Call``); ``Recorder`` queues it with the
other entries, and one task hands what gathered during the linger window to a worker thread,
which turns each call into its call record and audit event and writes the batch in one
transaction (``store.calls.record_calls``: a DBAPI ``executemany`` per table). So the event loop
pays for a tuple and a queue slot per call; the record's sizes, the audit detail, redaction,
canonical JSON and the hash chain are the worker's. Closing waits, bounded, for the rest. None
is ever dropped: when the queue is full the entry is written at once.

A thread, not a writer process: with the driver-level write, the worker spends about 30 µs of
CPU per call, once per linger window (bench/record_batches.py, bench/RESULTS.md §1c); a
process would save the loop that GIL share but cost it the entries' pickling and a pipe, and
its children would need reaping. A crash (SIGKILL) loses what was queued in the last linger
window and the batch being written (all of it or none: one transaction).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import NamedTuple, Protocol

import anyio
import anyio.abc
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolpool.calls._envelope import Envelope
from toolpool.calls._taint import TaintDelta
from toolpool.registry import Snapshot
from toolpool.store import AuditEntry, CallRecord, SessionTaint, Store, UsageEntry
from toolpool.telemetry import Telemetry

__all__ = ["CallRecording", "CallSession", "Recorder"]


class CallSession(Protocol):
    """Whose call it was, as gate 10 records it."""

    @property
    def id(self) -> str: ...

    @property
    def principal(self) -> str: ...

    @property
    def release_number(self) -> int | None: ...


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

# The arguments' size in the call record is the length of this JSON text (0 if it has none).
_SIZE = json.JSONEncoder(separators=(",", ":"), default=str)


class _Call(NamedTuple):
    """One call as the loop queues it; the worker makes its record and audit event."""

    session_id: str
    principal: str
    alias: str
    tool: str
    code: str
    seconds: float
    bytes_in: int
    text: str
    snapshot_version: int
    release: int | None
    at: datetime
    upstream: str
    replica: str | None

    def record(self) -> CallRecord:
        return CallRecord(
            session_id=self.session_id,
            principal=self.principal,
            alias=self.alias,
            tool=self.tool,
            code=self.code,
            duration_ms=round(self.seconds * 1000, 3),
            bytes_in=self.bytes_in,
            bytes_out=len(self.text.encode("utf-8", "surrogatepass")),
            snapshot_version=self.snapshot_version,
            release=self.release,
            at=self.at,
            replica=self.replica,
        )

    def event(self) -> AuditEntry:
        detail: dict[str, object] = {
            "code": self.code,
            "session": self.session_id,
            "snapshot": self.snapshot_version,
            "release": self.release,
        }
        if self.upstream:
            detail["upstream"] = self.upstream
        if self.replica is not None:
            detail["replica"] = self.replica
        resource = f"{self.alias}/{self.tool}" if self.alias else self.tool
        return AuditEntry(self.principal, "call", resource, detail)


_Entry = AuditEntry | CallRecord | SessionTaint | UsageEntry | _Call


class Recorder:
    """Writes audit events, call records, taint and usage entries in the background, in
    order, losing nothing; a call record's usage-ledger increments go with it."""

    def __init__(self, store: Store, telemetry: Telemetry | None = None) -> None:
        self._store = store
        self._telemetry = telemetry if telemetry is not None else Telemetry.off()
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

    def call_made(self, call: _Call) -> None:
        """A call's record and ``call`` audit event, made by the worker (``CallRecording``)."""
        self._put(call)

    def taint(self, session_id: str, delta: TaintDelta) -> None:
        self._put(SessionTaint(session_id, delta.encode(), datetime.now(UTC)))

    def usage(self, entry: UsageEntry) -> None:
        """Add ``entry`` to the usage ledger, in the batch of the calls around it."""
        self._put(entry)

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
        records: list[CallRecord] = []
        events: list[AuditEntry] = []
        taints: list[SessionTaint] = []
        usage: list[UsageEntry] = []
        for entry in batch:  # in queue order: the audit chain keeps it
            if isinstance(entry, _Call):
                records.append(entry.record())
                events.append(entry.event())
            elif isinstance(entry, AuditEntry):
                events.append(entry)
            elif isinstance(entry, CallRecord):
                records.append(entry)
            elif isinstance(entry, SessionTaint):
                taints.append(entry)
            else:
                usage.append(entry)
        started = time.perf_counter()
        self._store.calls.record_calls(records, events, taints, usage)
        if self._telemetry.metering:
            self._telemetry.store_duration.record(
                time.perf_counter() - started, {"toolpool.store.operation": "record_calls"}
            )


class CallRecording:
    """Gate 10 for one pool: each call's ``CallRecord`` and ``call`` audit event, queued on a
    ``Recorder``; ``on_call`` (if any) sees each record as it is queued."""

    def __init__(
        self,
        recorder: Recorder,
        clock: Callable[[], datetime],
        on_call: Callable[[CallRecord], None] | None = None,
        *,
        replica: str | None = None,
    ) -> None:
        self._recorder = recorder
        self._clock = clock
        self._on_call = on_call
        self._replica = replica

    def record(
        self,
        session: CallSession,
        snapshot: Snapshot,
        name: str,
        arguments: object,
        envelope: Envelope,
        seconds: float,
        bytes_in: int | None = None,
    ) -> None:
        """Queue the call's record and audit event; ``bytes_in`` is the arguments' size if the
        caller already measured it as ``_size`` does (gate 5's encoding, ``ascii_size``)."""
        tool = snapshot.get(name)
        alias, remote = (tool.alias, tool.remote_name) if tool is not None else ("", name[:128])
        call = _Call(
            session.id,
            session.principal,
            alias,
            remote,
            envelope.code,
            seconds,
            # Sized now: the caller may reuse the same arguments object for its next call.
            _size(arguments) if bytes_in is None else bytes_in,
            envelope.text,
            snapshot.version,
            session.release_number,
            self._clock(),
            envelope.audit_detail,
            self._replica,
        )
        self._recorder.call_made(call)
        if self._on_call is not None:
            self._on_call(call.record())


def _size(arguments: object) -> int:
    """The arguments' size in bytes for the call record; 0 for what has no JSON form (too
    deep, say: gate 5 refused it), since recording must never raise."""
    try:
        return len(_SIZE.encode(arguments).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError, RecursionError):
        return 0
