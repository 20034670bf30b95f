"""An async exit stack whose unwinding cannot loop.

``contextlib.AsyncExitStack`` re-creates the exception chaining of nested ``async with``
statements by walking each new exception's ``__context__`` chain. When an exit re-raises the
exception it was given (an anyio task group re-raises the cancellation it receives) while an
outer exception is being handled, that walk links the exception to itself, and the next stack
that walks the chain never ends (Python 3.11; the class of CPython gh-102201). A service told to
stop while it started spun at full CPU and never exited. This stack chains only where no cycle
results, and otherwise behaves as contextlib's: exits run last-in first-out, an exit that
returns true suppresses the exception, and the last exception raised propagates.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import ParamSpec, Self, TypeVar

__all__ = ["ExitStack"]

_T = TypeVar("_T")
_P = ParamSpec("_P")
_Exit = Callable[
    [type[BaseException] | None, BaseException | None, TracebackType | None], Awaitable[bool | None]
]


class ExitStack:
    """Exits to run on leaving, in reverse order: ``async with ExitStack() as stack`` or
    ``pop_all()`` to keep them past the block and ``aclose()`` later (idempotent)."""

    def __init__(self) -> None:
        self._exits: list[_Exit] = []

    async def enter_async_context(self, manager: AbstractAsyncContextManager[_T]) -> _T:
        entered = await manager.__aenter__()
        self._exits.append(manager.__aexit__)
        return entered

    def callback(self, function: Callable[_P, object], /, *args: _P.args, **kwargs: _P.kwargs) -> None:
        async def run(*_: object) -> bool:
            function(*args, **kwargs)
            return False

        self._exits.append(run)

    def push_async_callback(
        self, function: Callable[_P, Awaitable[object]], /, *args: _P.args, **kwargs: _P.kwargs
    ) -> None:
        async def run(*_: object) -> bool:
            await function(*args, **kwargs)
            return False

        self._exits.append(run)

    def pop_all(self) -> ExitStack:
        """A new stack with this one's exits; this one is left empty."""
        moved = ExitStack()
        moved._exits, self._exits = self._exits, []
        return moved

    async def aclose(self) -> None:
        await self.__aexit__(None, None, None)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        received = exc is not None
        outer = sys.exc_info()[1]  # what the caller is handling, if anything
        pending, raised, suppressed = exc, False, False
        while self._exits:
            leave = self._exits.pop()
            try:
                trace = None if pending is None else pending.__traceback__
                if await leave(None if pending is None else type(pending), pending, trace):
                    pending, raised, suppressed = None, False, True
            except BaseException as new:
                _chain(new, pending, outer)
                pending, raised = new, True
        if raised and pending is not None:
            context = pending.__context__
            try:
                raise pending
            except BaseException:
                pending.__context__ = context  # a bare raise would replace the chain set up above
                raise
        return received and suppressed


def _chain(new: BaseException, old: BaseException | None, outer: BaseException | None) -> None:
    """Make ``old`` the end of ``new``'s chain, as nested statements would, unless it is there
    already, the chain does not end at ``outer``, or linking would close a cycle."""
    if new is old:
        return  # an exit re-raised what it was given: its chain is already right
    end, seen = new, {id(new)}
    while True:
        context = end.__context__
        if context is None or context is old:
            return
        if context is outer:
            break
        if id(context) in seen:
            return  # a cycle made elsewhere: walking it again would never end
        seen.add(id(context))
        end = context
    if old is not None and _reaches(old, end):
        return
    end.__context__ = old


def _reaches(start: BaseException, target: BaseException) -> bool:
    """Whether ``target`` is on ``start``'s ``__context__`` chain (cycles end the walk)."""
    seen: set[int] = set()
    current: BaseException | None = start
    while current is not None and id(current) not in seen:
        if current is target:
            return True
        seen.add(id(current))
        current = current.__context__
    return False
