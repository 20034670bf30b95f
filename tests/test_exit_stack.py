"""``toolpool._exit_stack.ExitStack``: contextlib's exit-stack behaviour, without the exception
chain that links itself when an exit re-raises what it was given (a task group does: that cycle
made a stopping service loop forever)."""

from __future__ import annotations

from types import TracebackType

import pytest

from toolpool._exit_stack import ExitStack

pytestmark = pytest.mark.anyio


class _Reraises:
    """Re-raises the exception it exits with, as an anyio task group does with a cancellation."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is not None:
            raise exc


class _Says:
    def __init__(self, said: list[str], name: str, suppress: bool = False) -> None:
        self.said, self.name, self.suppress = said, name, suppress

    async def __aenter__(self) -> str:
        return self.name

    async def __aexit__(self, *exc: object) -> bool:
        self.said.append(self.name)
        return self.suppress


def _chain_has_a_cycle(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None:
        if id(current) in seen:
            return True
        seen.add(id(current))
        current = current.__context__
    return False


async def _fail(exc: BaseException) -> None:
    raise exc


async def _close_while_handling(stack: ExitStack, outer: BaseException) -> None:
    try:
        raise outer
    except type(outer):
        await stack.aclose()


async def _leave_by(stack: ExitStack, body: BaseException) -> None:
    async with stack:
        raise body


async def test_an_exit_re_raising_what_it_was_given_while_another_is_handled_leaves_no_cycle() -> None:
    outer, inner = KeyError("outer"), RuntimeError("inner")
    stack = ExitStack()
    await stack.enter_async_context(_Reraises())
    stack.push_async_callback(_fail, inner)
    with pytest.raises(RuntimeError) as raised:
        await _close_while_handling(stack, outer)
    assert raised.value is inner
    assert not _chain_has_a_cycle(inner)
    assert inner.__context__ is outer
    wrapping = ExitStack()  # a second stack walking that chain ends (it looped forever)
    wrapping.push_async_callback(_fail, inner)
    with pytest.raises(RuntimeError):
        await _close_while_handling(wrapping, outer)


async def test_exits_run_last_in_first_out_and_a_true_exit_suppresses_the_exception() -> None:
    said: list[str] = []
    async with ExitStack() as stack:
        assert await stack.enter_async_context(_Says(said, "first", suppress=True)) == "first"
        stack.callback(said.append, "callback")
        await stack.enter_async_context(_Says(said, "last"))
        raise ValueError("suppressed by the first")
    assert said == ["last", "callback", "first"]


async def test_the_last_exception_raised_propagates_with_the_earlier_one_as_its_context() -> None:
    first, second = ValueError("first"), KeyError("second")
    stack = ExitStack()
    stack.push_async_callback(_fail, second)
    stack.push_async_callback(_fail, first)
    with pytest.raises(KeyError) as raised:
        await _leave_by(stack, LookupError("body"))
    assert raised.value is second
    assert second.__context__ is first
    assert isinstance(first.__context__, LookupError)


async def test_pop_all_keeps_the_exits_past_the_block_and_closing_twice_runs_them_once() -> None:
    said: list[str] = []
    async with ExitStack() as stack:
        stack.callback(said.append, "kept")
        kept = stack.pop_all()
    assert said == []
    await kept.aclose()
    await kept.aclose()
    assert said == ["kept"]
