"""Sessions: one conversation's view of a pool — who it acts for, its ticket, its taint.

A session's snapshots show only what its ticket allows (R10), and its taint ledger remembers
the untrusted results it has seen, so that none of that text reaches a write tool's arguments
(gate 6). ``pool.call`` made outside a session belongs to the pool's default session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolpool.envelope import Envelope
from toolpool.registry import Snapshot
from toolpool.taint import TaintLedger
from toolpool.tickets import Ticket
from toolpool.views import ReleaseView

__all__ = ["Session"]

_Run = Callable[["Session", Snapshot, str, object, Ticket | None], Awaitable[Envelope]]
_Views = Callable[[Ticket | None, ReleaseView | None], Snapshot]


class Session:
    """Calls on behalf of ``principal`` with ``ticket``; create it with ``pool.session()``.

    ``release`` is the management release the session is bound to (R15), or None where the
    pool has no store; ``taint`` its ledger (a resumed session's comes back from the store).
    """

    def __init__(
        self,
        session_id: str,
        principal: str,
        ticket: Ticket | None,
        release: ReleaseView | None,
        views: _Views,
        run: _Run,
        taint: TaintLedger | None = None,
    ) -> None:
        self.id = session_id
        self.principal = principal
        self.ticket = ticket
        self.release = release
        self.taint = taint if taint is not None else TaintLedger()
        self._views = views
        self._run = run

    def __repr__(self) -> str:
        return f"<Session {self.id} of {self.principal!r}>"

    def snapshot(self) -> Snapshot:
        """The tools this session's ticket may call, for one model request (R10)."""
        return self._views(self.ticket, self.release)

    async def call(
        self, snapshot: Snapshot, name: str, arguments: Mapping[str, Any] | None = None
    ) -> Envelope:
        """Run one call through every gate with this session's ticket and taint."""
        return await self._run(self, snapshot, name, {} if arguments is None else arguments, self.ticket)

    def record_untrusted(self, text: str) -> None:
        """Remember text from elsewhere that a model was shown (a fetched result blob, say),
        so that gate 6 treats it as untrusted too."""
        self.taint.record(text)
