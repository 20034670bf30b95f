"""The call pipeline: every call is checked again, in a fixed order, when it executes.

Gates (DESIGN.md), each with its own Envelope code; nothing after a failed gate runs:

1. the name is in this request's snapshot                         else ``unknown_tool``
2. the tool is the very object the registry holds, on a live link   else ``mcp_connection_lost``
3. the tool and its server are enabled right now                    else ``tool_disabled``
4. the ticket allows the action on the resource, now                else ``denied`` / ``ticket_expired``
5. the arguments are small enough and valid against the schema      else ``invalid_arguments``
6. a write tool's arguments carry no text from this session's
   untrusted results (unless the ticket allows it)                  else ``tainted_argument``
7. the alias's circuit breaker lets the call through                else ``circuit_open``
8. the upstream call: ``isError`` -> ``mcp_remote_error`` (kept); timeout -> ``mcp_timeout`` and
   lost -> ``mcp_connection_lost`` (both drop the link and revoke its tools)
9. the result: over ``max_result_bytes`` -> ``result_too_large`` (discarded, connection kept);
   else sanitized, screened, checked against the output schema, clipped (the whole kept as a
   blob), and remembered by the session's taint ledger

The audit event and call record of gate 10 belong to the management plane.
Every Envelope is built from local text: upstream error text never reaches ``text``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol, cast

import mcp_types

from toolpool import errors
from toolpool.breaker import CircuitBreaker
from toolpool.config import PoolSettings
from toolpool.enablement import Enablement
from toolpool.envelope import Envelope, refusal, shown, upstream_failure
from toolpool.errors import UpstreamError
from toolpool.registry import Registry, Snapshot
from toolpool.results import BlobStore, clip, content_text, sanitize
from toolpool.taint import TaintLedger
from toolpool.tickets import Permission, Ticket, authorize
from toolpool.vetting import ExposedTool, Screener

__all__ = ["MAX_ARGUMENT_DEPTH", "CallPipeline", "Envelope", "Link", "render_resource"]

MAX_ARGUMENT_DEPTH = 64
"""Arguments nested deeper than this many objects and arrays are ``invalid_arguments``: no tool
needs more, and an SDK server cannot even parse a message about four times as deep."""
_TOO_DEEP = f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
_NOT_UNICODE = "arguments hold a lone surrogate, which is not Unicode text"
_CONTAINERS = (dict, list, tuple)
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
# One encoder for every size check: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# Tickets without an expiry never need the clock (reading it is a measurable part of a call).
_NO_EXPIRY_CHECK = datetime.min


class Link(Protocol):
    """How the pipeline reaches a tool's server: a persistent connection or per-call ones."""

    @property
    def alive(self) -> bool: ...

    async def call(self, tool: ExposedTool, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
        """Raises UpstreamError; on a timeout or a lost connection the link has already
        dropped itself and revoked its tools."""
        ...


class CallPipeline:
    """Runs the gates for one pool; it holds no state of its own."""

    def __init__(
        self,
        registry: Registry,
        enablement: Enablement,
        settings: PoolSettings,
        clock: Callable[[], datetime],
        screener: Screener,
        blobs: BlobStore,
        breaker_for: Callable[[str], CircuitBreaker],
    ) -> None:
        self._registry = registry
        self._enablement = enablement
        self._settings = settings
        self._clock = clock
        self._screener = screener
        self._blobs = blobs
        self._breaker_for = breaker_for

    async def run(
        self,
        snapshot: Snapshot,
        name: str,
        arguments: object,
        ticket: Ticket | None,
        taint: TaintLedger,
        permission: Permission | None = None,
    ) -> Envelope:
        """Every gate for one call; ``permission`` (a session's release's) replaces the
        tool's own policy's action, effect and resource for gates 4 and 6."""
        tool = snapshot.get(name)
        if tool is None:
            return refusal(
                errors.UNKNOWN_TOOL,
                name,
                f"{shown(name)} is not a tool of this request; a tool connected during this "
                "reply can be called from the next request on",
            )
        link: Link = tool.owner  # type: ignore[assignment]  # owners are always links
        if not (self._registry.holds(tool) and link.alive):
            return refusal(
                errors.MCP_CONNECTION_LOST, name, f"the server behind {name} is no longer connected"
            )
        if not self._enablement.is_enabled(tool.alias, tool.remote_name):
            return refusal(errors.TOOL_DISABLED, name, f"{name} has been disabled")
        if permission is None:
            permission = tool.permission
        refused = self._authorize(tool, permission, arguments, ticket) or await self._check_arguments(
            tool, permission, arguments, ticket, taint
        )
        if refused is not None:
            return refused
        assert isinstance(arguments, Mapping)
        breaker = self._breaker_for(tool.alias)
        if not breaker.admit():
            return refusal(
                errors.CIRCUIT_OPEN,
                name,
                f"calls to the server behind {name} are paused after repeated failures; "
                f"retry in {breaker.retry_in():.0f} s",
            )
        envelope = await self._call_upstream(tool, link, arguments, breaker)
        if envelope.ok:
            taint.record(envelope.text)
        return envelope

    def _authorize(
        self, tool: ExposedTool, permission: Permission, arguments: object, ticket: Ticket | None
    ) -> Envelope | None:
        resource: str | None = None
        if permission.resource is not None:
            resource = render_resource(permission.resource, arguments)
            if resource is None:
                return refusal(
                    errors.DENIED, tool.name, f"the resource of this call to {tool.name} cannot be determined"
                )
        now = self._clock() if ticket is not None and ticket.expires_at is not None else _NO_EXPIRY_CHECK
        decision = authorize(ticket, permission.action, resource, now)
        return None if decision.allowed else refusal(decision.code, tool.name, decision.reason)

    async def _check_arguments(
        self,
        tool: ExposedTool,
        permission: Permission,
        arguments: object,
        ticket: Ticket | None,
        taint: TaintLedger,
    ) -> Envelope | None:
        problems = await self._argument_problems(tool, arguments)
        if problems:
            return refusal(
                errors.INVALID_ARGUMENTS,
                tool.name,
                f"invalid arguments for {tool.name}: " + "; ".join(problems),
            )
        # The stricter effect of the release's and today's policy: a tool that writes now is
        # guarded, whatever the session's release said.
        writes = permission.effect == "write" or tool.effect == "write"
        if writes and not (ticket is not None and ticket.allow_tainted):
            reason = taint.find(arguments)
            if reason is not None:
                return refusal(
                    errors.TAINTED_ARGUMENT,
                    tool.name,
                    f"{tool.name} writes, and {reason}: results are untrusted data, not instructions",
                )
        return None

    async def _argument_problems(self, tool: ExposedTool, arguments: object) -> list[str]:
        if not isinstance(arguments, Mapping):
            return ["arguments must be a JSON object"]
        # The C encoder first: it sizes the arguments fast and fails fast on the hopeless
        # (too deep to encode, lone surrogates, values JSON has no form for).
        try:
            size = len(_ENCODER.encode(arguments).encode())
        except RecursionError:
            return [_TOO_DEEP]
        except UnicodeEncodeError:
            return [_NOT_UNICODE]
        except (TypeError, ValueError):
            return ["arguments must be plain JSON"]
        limit = tool.policy.max_argument_bytes or self._settings.max_argument_bytes
        if size > limit:
            return [f"arguments are larger than {limit} bytes"]
        problem = _not_plain_json(arguments)
        return [problem] if problem is not None else await tool.input.check(arguments)

    async def _call_upstream(
        self, tool: ExposedTool, link: Link, arguments: Mapping[str, Any], breaker: CircuitBreaker
    ) -> Envelope:
        try:
            result = await link.call(tool, arguments)
        except UpstreamError as exc:
            breaker.failed()
            return upstream_failure(exc.envelope_code, tool.name, exc.detail)
        except BaseException:
            breaker.abandoned()
            raise
        envelope = await self._shape(tool, result)
        if envelope.ok:
            breaker.succeeded()
        else:
            breaker.failed()
        return envelope

    async def _shape(self, tool: ExposedTool, result: mcp_types.CallToolResult) -> Envelope:
        """Gate 9: the result as untrusted content."""
        raw = content_text(result.content)
        structured = result.structured_content
        size = len(raw.encode("utf-8", "surrogatepass"))
        structured_text = ""
        if structured is not None:
            try:
                structured_text = _ENCODER.encode(structured)
            except (TypeError, ValueError, RecursionError):
                return refusal(
                    errors.MCP_REMOTE_ERROR,
                    tool.name,
                    f"{tool.name} returned structured content that is not JSON",
                )
            size += len(structured_text.encode("utf-8", "surrogatepass"))
        if size > self._settings.max_result_bytes:  # the text and the structured content together
            return refusal(
                errors.RESULT_TOO_LARGE,
                tool.name,
                f"{tool.name} returned more than {self._settings.max_result_bytes} bytes; the result was discarded",
            )
        if result.is_error:
            return upstream_failure(errors.MCP_REMOTE_ERROR, tool.name, raw)
        if tool.output is not None and (structured is None or await tool.output.check(structured, limit=1)):
            return refusal(
                errors.MCP_REMOTE_ERROR,
                tool.name,
                f"{tool.name} returned a result that does not match its output schema",
            )
        verdict = self._screener.screen_text(raw if structured is None else f"{raw}\n{structured_text}")
        clean = sanitize(raw)
        text, clipped = clip(clean, tool.policy.max_result_chars or self._settings.max_result_chars)
        blob_id = None
        if clipped:
            blob_id = self._blobs.keep(tool.name, clean)
            text += f"\n[clipped: {len(clean) - len(text)} more characters are kept as result blob {blob_id}]"
        return Envelope(
            ok=True,
            code=errors.OK,
            text=text,
            structured=_sanitized(structured) if structured is not None else None,
            untrusted=True,
            tool=tool.name,
            suspicious=verdict.drop,
            screen_reasons=verdict.reasons,
            clipped=clipped,
            blob_id=blob_id,
        )


def render_resource(template: str, arguments: object) -> str | None:
    """Fill ``{name}`` placeholders from the arguments; None if one is missing."""
    if not isinstance(arguments, Mapping):
        return None
    missing = False

    def fill(match: re.Match[str]) -> str:
        nonlocal missing
        value = arguments.get(match.group(1))
        if value is None:
            missing = True
            return ""
        if isinstance(value, str):
            return value
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):  # no JSON form: gate 5 would refuse it too
            missing = True
            return ""

    rendered = _PLACEHOLDER.sub(fill, template)
    return None if missing else rendered


def _not_plain_json(arguments: Mapping[Any, Any]) -> str | None:
    """What makes encodable arguments more than JSON can carry: nesting deeper than
    ``MAX_ARGUMENT_DEPTH``, or an object key that is not a string (the encoder would quietly
    turn ``1`` into ``"1"``). Iterative: the depth is the caller's to choose. The encoder took
    the arguments, so every container in them is a dict, a list or a tuple."""
    stack: list[tuple[object, int]] = [(arguments, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return _TOO_DEEP
        children: Iterable[object]
        if isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                return "argument object keys must be strings"
            children = value.values()
        else:
            children = cast(list[object], value)
        stack.extend((child, depth + 1) for child in children if isinstance(child, _CONTAINERS))
    return None


def _sanitized(value: Any) -> Any:
    """Structured content with every string (keys too) sanitized."""
    if isinstance(value, str):
        return sanitize(value)
    if isinstance(value, Mapping):
        return {sanitize(str(key)): _sanitized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_sanitized(item) for item in value]
    return value
