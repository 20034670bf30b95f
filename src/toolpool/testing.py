"""Test helpers for people who build on toolpool (and for toolpool's own tests).

``EventRecorder`` collects a pool's events and lets a test wait for one without sleeping::

    recorder = EventRecorder()
    async with Pool(config, on_event=recorder) as pool:
        ...
        await recorder.wait_for("mcp.connection_lost", alias="demo_alpha")
"""

from __future__ import annotations

import anyio

from toolpool.events import PoolEvent

__all__ = ["EventRecorder"]


class EventRecorder:
    """A callable event sink that remembers every event, in order."""

    def __init__(self) -> None:
        self.events: list[PoolEvent] = []
        self._changed = anyio.Event()

    def __call__(self, event: PoolEvent) -> None:
        self.events.append(event)
        self._changed.set()
        self._changed = anyio.Event()

    def of_kind(self, kind: str, alias: str | None = None) -> list[PoolEvent]:
        return [e for e in self.events if e.kind == kind and (alias is None or e.alias == alias)]

    async def wait_for(self, kind: str, alias: str | None = None, *, timeout: float = 30.0) -> PoolEvent:
        """Return the first event of ``kind`` (for ``alias``), waiting for it if needed.

        Raises:
            TimeoutError: none arrived within ``timeout`` seconds.
        """
        with anyio.fail_after(timeout):
            while True:
                found = self.of_kind(kind, alias)
                if found:
                    return found[0]
                await self._changed.wait()
