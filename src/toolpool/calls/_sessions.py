"""Sessions: one conversation's view of a pool — who it acts for, its ticket, its release, its
taint, and what it reports to the usage ledger.

A session's snapshots show only what its ticket allows (R10) within its release (R15), and its
taint ledger remembers the untrusted results it has seen, so that none of that text reaches a
write tool's arguments (gate 6). ``pool.call`` made outside a session belongs to the pool's
default session.

``Sessions`` opens them: without a store, local ones; with a store, each bound to the current
release (or, resumed by id, to its own) with its taint kept in the store as it grows and given
back on resume, in whichever process resumes it. What a session was shown (tool lists) and
what its models spent (tokens) go to the usage ledger through the recorder, in the batches of
its call records.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from toolpool.calls._envelope import Envelope
from toolpool.calls._pipeline import CallPipeline
from toolpool.calls._recording import Recorder
from toolpool.calls._taint import TaintDelta, TaintLedger
from toolpool.calls._visible import ReleaseView, Visibility
from toolpool.errors import UsageError
from toolpool.registry import Snapshot
from toolpool.store import LISTING, MODEL, Store, UsageEntry
from toolpool.tickets import Ticket

__all__ = ["Session", "Sessions"]


class Session:
    """Calls on behalf of ``principal`` with ``ticket``; create it with ``pool.session()``.

    ``release`` is the management release the session is bound to (R15), or None where the
    pool has no store; ``taint`` its ledger. A ticket is good in a session only when it was made
    for the session's principal (gate 4); the pool's default session, whose calls each bring
    their own ticket (``pool.call``), has no principal of its own to compare.
    """

    def __init__(
        self,
        session_id: str,
        principal: str,
        ticket: Ticket | None,
        release: ReleaseView | None,
        taint: TaintLedger,
        pipeline: CallPipeline,
        visibility: Visibility,
        recorder: Recorder | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        *,
        binds_principal: bool = True,
    ) -> None:
        self.id = session_id
        self.principal = principal
        self.binds_principal = binds_principal
        self.ticket = ticket
        self.release = release
        self.taint = taint
        self._pipeline = pipeline
        self._visibility = visibility
        self._recorder = recorder
        self._clock = clock

    def __repr__(self) -> str:
        return f"<Session {self.id} of {self.principal!r}>"

    @property
    def release_number(self) -> int | None:
        return None if self.release is None else self.release.number

    def snapshot(self) -> Snapshot:
        """The tools this session's ticket may call, for one model request (R10)."""
        return self._visibility.snapshot(self.ticket, self.release)

    async def call(
        self, snapshot: Snapshot, name: str, arguments: Mapping[str, Any] | None = None
    ) -> Envelope:
        """Run one call through every gate with this session's ticket and taint."""
        return await self.run(snapshot, name, {} if arguments is None else arguments, self.ticket)

    async def run(self, snapshot: Snapshot, name: str, arguments: object, ticket: Ticket | None) -> Envelope:
        """One call in this session with ``ticket`` (``pool.call`` brings its own)."""
        return await self._pipeline.run(self, snapshot, name, arguments, ticket)

    def record_listing(self, tokens_by_alias: Mapping[str, int]) -> None:
        """A model or client was just shown tools of this session: ``tokens_by_alias`` is what
        they cost its prompt per alias (``Snapshot.list_tokens_by_alias``, or the part shown).
        The usage ledger counts one listing per alias (tool ``LISTING``); without a store,
        nothing is kept."""
        if self._recorder is None:
            return
        at = self._clock()
        for alias, tokens in tokens_by_alias.items():
            entry = UsageEntry(self.principal, self.id, alias, LISTING, lists=1, list_tokens=tokens, at=at)
            self._recorder.usage(entry)

    def record_model_usage(self, model: str, input_tokens: int, output_tokens: int) -> None:
        """One model request made for this session (by its agent or a helper it delegated to)
        and the tokens the provider reported, for the usage ledger (alias ``MODEL``, tool
        ``model``); without a store, nothing is kept."""
        if self._recorder is None:
            return
        entry = UsageEntry(
            self.principal,
            self.id,
            MODEL,
            model,
            model_requests=1,
            input_tokens=max(input_tokens, 0),
            output_tokens=max(output_tokens, 0),
            at=self._clock(),
        )
        self._recorder.usage(entry)

    def record_untrusted(self, text: str) -> None:
        """Remember text from elsewhere that a model was shown (a fetched result blob, say),
        so that gate 6 treats it as untrusted too."""
        self.taint.record(text)


class Sessions:
    """Opens a pool's sessions; ``store`` and ``recorder`` are None for a pool without one;
    ``clock`` dates what sessions report to the usage ledger (as gate 10 dates calls)."""

    def __init__(
        self,
        pipeline: CallPipeline,
        visibility: Visibility,
        store: Store | None = None,
        recorder: Recorder | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._pipeline = pipeline
        self._visibility = visibility
        self._store = store
        self._recorder = recorder
        self._clock = clock
        self._releases: dict[int, ReleaseView] = {}
        self._numbers = itertools.count(1)
        self.default = self._made("pool", "pool", None, None, TaintLedger(), binds_principal=False)

    def open(self, principal: str, ticket: Ticket | None, resume: str | None = None) -> Session:
        """A new session, or ``resume``'s own (R15).

        Raises:
            UsageError: a resume without a store, an unknown session, or one whose kept taint
                cannot be read (a session that cannot get its taint back is not resumed).
        """
        if self._store is None:
            if resume is not None:
                raise UsageError("sessions can be resumed only with a store")
            return self._made(f"local-{next(self._numbers)}", principal, ticket, None, TaintLedger())
        if resume is None:
            session_id, number = self._store.releases.open_session(principal)
            return self._made(session_id, principal, ticket, self._release(number), self._ledger(session_id))
        bound = self._store.releases.session_release(resume)
        if bound is None:
            raise UsageError(f"no session {resume!r} to resume")
        ledger = self._ledger(resume)
        try:
            ledger.restore([TaintDelta.decode(data) for data in self._store.releases.session_taint(resume)])
        except ValueError as exc:
            raise UsageError(f"session {resume!r} cannot be resumed: its taint record is damaged") from exc
        return self._made(resume, principal, ticket, self._release(bound), ledger)

    def _made(
        self,
        session_id: str,
        principal: str,
        ticket: Ticket | None,
        release: ReleaseView | None,
        taint: TaintLedger,
        *,
        binds_principal: bool = True,
    ) -> Session:
        return Session(
            session_id,
            principal,
            ticket,
            release,
            taint,
            self._pipeline,
            self._visibility,
            self._recorder,
            self._clock,
            binds_principal=binds_principal,
        )

    def _ledger(self, session_id: str) -> TaintLedger:
        recorder = self._recorder
        if recorder is None:
            return TaintLedger(scope=session_id)
        return TaintLedger(lambda delta: recorder.taint(session_id, delta), scope=session_id)

    def _release(self, number: int) -> ReleaseView:
        assert self._store is not None
        view = self._releases.get(number)
        if view is None:
            view = self._releases[number] = ReleaseView.of(
                number, self._store.releases.release(number).content
            )
        return view
