"""Retries of read calls (``retry = { attempts, backoff_ms }``): only for tools whose effect is
``read`` (a write is never retried: it may have happened), only after ``mcp_connection_lost``
or ``mcp_timeout`` (a remote error is the server's answer, not a fault), and only while the
call's deadline allows another attempt.

A link that opens a fresh session per call is simply tried again. A persistent link that
failed is dropped and its tools revoked, as for any call (gate 8); the retry then goes through
a freshly admitted connection — every admission rule applies again — and only to a tool whose
definition hash equals the one the caller's snapshot held, so a retry never reaches a changed
tool.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import anyio
import mcp_types

from toolpool import errors
from toolpool.calls._revocation import Revocation
from toolpool.errors import UpstreamError
from toolpool.runtime_policy import RetryPolicy
from toolpool.tickets import Permission
from toolpool.upstream import Link
from toolpool.vetting import ExposedTool

__all__ = ["RETRIED", "Relinker", "RetryPlan", "call_with_retries", "retry_plan"]

RETRIED = frozenset({errors.MCP_CONNECTION_LOST, errors.MCP_TIMEOUT})


class Relinker(Protocol):
    """Connects an alias again after its link failed (the pool does, through admission)."""

    async def relink(self, tool: ExposedTool) -> ExposedTool | None:
        """The freshly admitted tool of ``tool``'s alias and remote name with ``tool``'s
        definition hash, or None (the alias could not be admitted, or the tool changed)."""
        ...


@dataclass(frozen=True, slots=True)
class RetryPlan:
    """How often (``attempts`` more tries), how long to wait first, and until when."""

    attempts: int
    backoff_s: float
    deadline_s: float


def retry_plan(
    tool: ExposedTool, permission: Permission, servers: Mapping[str, tuple[RetryPolicy | None, float]]
) -> RetryPlan | None:
    """The retry plan for a call of ``tool``, or None: the tool's own ``retry`` or its
    server's, for a tool that reads by both its release's and today's policy. ``servers``
    maps an alias to its server ``retry`` and the time one attempt may take (its
    ``connect_timeout_s`` plus ``call_timeout_s``: a retry may have to connect again)."""
    if permission.effect != "read" or tool.effect != "read":
        return None
    server_policy, attempt_s = servers.get(tool.alias, (None, 0.0))
    policy = tool.policy.retry or server_policy
    if policy is None:
        return None
    deadline = policy.deadline_s if policy.deadline_s is not None else attempt_s * (policy.attempts + 1)
    return RetryPlan(policy.attempts, policy.backoff_ms / 1000, deadline)


async def call_with_retries(
    tool: ExposedTool,
    first: Link,
    call: Callable[[Link], Awaitable[mcp_types.CallToolResult]],
    plan: RetryPlan,
    revocation: Revocation,
    relinker: Relinker | None,
    clock: Callable[[], float] = time.monotonic,
) -> mcp_types.CallToolResult:
    """``call(link)`` on ``first`` (``tool``'s link for this call: its owner, or the calling
    principal's), tried again per ``plan`` after a lost connection or a timeout.

    Raises:
        UpstreamError: the last attempt's fault (or the first one that is not retried).
    """
    started = clock()
    link = first
    backoff = plan.backoff_s
    for attempt in range(plan.attempts + 1):
        try:
            return await call(link)
        except UpstreamError as exc:
            last_try = attempt == plan.attempts or clock() - started + backoff >= plan.deadline_s
            if exc.envelope_code not in RETRIED or last_try:
                if link is not first and exc.envelope_code in RETRIED:
                    revocation.lost(link, str(exc))  # the caller revokes only the first link
                raise
            if not link.per_call:
                revocation.lost(link, str(exc))
            await anyio.sleep(backoff)
            backoff *= 2
            if not link.per_call:
                fresh = await _relinked(tool, relinker)
                if fresh is None:
                    raise
                link = fresh.owner
    raise AssertionError("unreachable: the last attempt returns or raises")


async def _relinked(tool: ExposedTool, relinker: Relinker | None) -> ExposedTool | None:
    if relinker is None:
        return None
    return await relinker.relink(tool)
