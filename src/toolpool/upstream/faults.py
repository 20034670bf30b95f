"""The one boundary where everything the SDK and the transports can raise becomes ours.

The SDK reports trouble in many shapes: ``MCPError`` with -32000 (closed) or -32001
(timeout) or the server's own code, nested ``ExceptionGroup``s from task groups, a bare
``CancelledError`` when an HTTP server dies mid-call, ``pydantic.ValidationError`` for one
malformed tool (the whole page), ``RuntimeError`` for protocol mismatches, and httpx2,
anyio and OS errors from the transports. ``upstream_fault`` maps each to one class of
``UpstreamError``; the server's text goes only into ``detail``.
"""

from __future__ import annotations

import asyncio

import anyio
import httpx2
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, PARSE_ERROR, REQUEST_TIMEOUT
from pydantic import ValidationError

from toolpool.errors import (
    UpstreamConnectionLost,
    UpstreamError,
    UpstreamProtocolError,
    UpstreamRemoteError,
    UpstreamTimeout,
)

__all__ = ["collapse_group", "is_own_cancellation", "upstream_fault"]

_DETAIL_MAX = 2000
_LOST = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    ConnectionError,
    EOFError,
    OSError,
    httpx2.TransportError,
    httpx2.HTTPStatusError,
)
_TRANSPORT_FAULTS = (MCPError, ValidationError, TimeoutError, httpx2.TimeoutException, *_LOST)


def upstream_fault(alias: str, exc: BaseException, during: str) -> UpstreamError:
    """Map ``exc``, raised while doing ``during`` with ``alias``, to an ``UpstreamError``.

    Call it only for exceptions that are not the caller's own cancellation (see
    ``is_own_cancellation``); those must propagate untouched.
    """
    leaf = _significant_leaf(exc)
    detail = _detail(leaf)
    if isinstance(leaf, UpstreamError):
        return leaf
    if isinstance(leaf, MCPError):
        if leaf.code == REQUEST_TIMEOUT:
            return UpstreamTimeout(alias, f"{during} timed out", detail=detail)
        if leaf.code == CONNECTION_CLOSED:
            return UpstreamConnectionLost(alias, f"the connection closed during {during}", detail=detail)
        if leaf.code == PARSE_ERROR:  # a transport could not read the server's answer
            return UpstreamProtocolError(
                alias, f"the server sent an unreadable answer during {during}", detail=detail
            )
        return UpstreamRemoteError(alias, f"{during} failed with error code {leaf.code}", detail=detail)
    if isinstance(leaf, TimeoutError | httpx2.TimeoutException):
        return UpstreamTimeout(alias, f"{during} timed out", detail=detail)
    if isinstance(leaf, _LOST):
        return UpstreamConnectionLost(alias, f"the connection broke during {during}", detail=detail)
    if isinstance(leaf, asyncio.CancelledError):
        # Not our own cancellation (the caller checked): the SDK's way of saying an HTTP
        # server went away while a request was in flight.
        return UpstreamConnectionLost(alias, f"the connection was cut during {during}", detail=detail)
    if isinstance(leaf, ValidationError):
        return UpstreamProtocolError(
            alias, f"the server sent a malformed message during {during}", detail=detail
        )
    return UpstreamProtocolError(alias, f"the server broke the protocol during {during}", detail=detail)


def is_own_cancellation(exc: BaseException) -> bool:
    """Whether ``exc`` is a cancellation that the current task was actually asked for."""
    if not isinstance(exc, anyio.get_cancelled_exc_class()):
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not on asyncio: trust the exception
        return True
    return task is None or task.cancelling() > 0


def collapse_group(alias: str, group: BaseExceptionGroup[BaseException], during: str) -> BaseException:
    """The one exception to raise for a group that leaving an SDK session produced.

    An ``UpstreamError`` inside wins; an exception that is not a transport fault (the
    caller's own) comes next; a group of cancellations only is returned unchanged.
    """
    leaves = list(_leaves(group))
    for leaf in leaves:
        if isinstance(leaf, UpstreamError):
            return leaf
    others = [leaf for leaf in leaves if not isinstance(leaf, anyio.get_cancelled_exc_class())]
    if not others:
        return group
    foreign = [leaf for leaf in others if not isinstance(leaf, _TRANSPORT_FAULTS)]
    return foreign[0] if foreign else upstream_fault(alias, group, during)


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _significant_leaf(exc: BaseException) -> BaseException:
    """The most telling exception inside nested groups: a non-cancellation one if any."""
    if not isinstance(exc, BaseExceptionGroup):
        return exc
    leaves = [_significant_leaf(inner) for inner in exc.exceptions]
    for leaf in leaves:
        if not isinstance(leaf, anyio.get_cancelled_exc_class()):
            return leaf
    return leaves[0]


def _detail(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "\u2026"
