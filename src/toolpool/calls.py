"""The call pipeline: every call is checked again, in a fixed order, when it executes.

Gates (DESIGN.md), each with its own Envelope code; nothing after a failed gate runs:

1. the name is in this request's snapshot                         else ``unknown_tool``
2. the tool is the very object the registry holds, on a live link   else ``mcp_connection_lost``
3. the tool and its server are enabled right now                    else ``tool_disabled``
4. the ticket allows the action on the resource, now                else ``denied`` / ``ticket_expired``
5. the arguments are small enough and valid against the schema      else ``invalid_arguments``
8. the upstream call: ``isError`` -> ``mcp_remote_error`` (kept); timeout -> ``mcp_timeout`` and
   lost -> ``mcp_connection_lost`` (both drop the link and revoke its tools)

Gates 6 (taint), 7 (circuit breaker), the result screening of 9 and the records of 10 belong
to the trust boundary and the management plane and slot in between without reordering.
Every Envelope is built here from local text: upstream error text never reaches ``text``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import mcp_types

from toolpool import errors
from toolpool.config import PoolSettings
from toolpool.enablement import Enablement
from toolpool.errors import UpstreamError
from toolpool.registry import Registry, Snapshot
from toolpool.tickets import Ticket, authorize
from toolpool.vetting import ExposedTool

__all__ = ["CallPipeline", "Envelope", "Link"]

_NAME_SHOWN = 80
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
# One encoder for every size check: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# Tickets without an expiry never need the clock (reading it is a measurable part of a call).
_NO_EXPIRY_CHECK = datetime.min


@dataclass(frozen=True, slots=True)
class Envelope:
    """The locally built outcome of one call.

    ``text`` is what a model may see. On success it is the tool's output, which came from
    the server: ``untrusted`` is then True. On failure it is a local message for ``code``.
    ``audit_detail`` keeps upstream text for the audit log and must never reach a model.
    """

    ok: bool
    code: str
    text: str
    structured: Mapping[str, Any] | None = None
    untrusted: bool = False
    tool: str = ""
    audit_detail: str = ""


class Link(Protocol):
    """How the pipeline reaches a tool's server: a persistent connection or per-call ones."""

    @property
    def alive(self) -> bool: ...

    async def call(self, tool: ExposedTool, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
        """Raises UpstreamError; on a timeout or a lost connection the link has already
        dropped itself and revoked its tools."""
        ...


class CallPipeline:
    """Runs the gates for one pool; stateless apart from what it is given."""

    def __init__(
        self,
        registry: Registry,
        enablement: Enablement,
        settings: PoolSettings,
        clock: Callable[[], datetime],
    ) -> None:
        self._registry = registry
        self._enablement = enablement
        self._settings = settings
        self._clock = clock

    async def run(self, snapshot: Snapshot, name: str, arguments: object, ticket: Ticket | None) -> Envelope:
        tool = snapshot.get(name)
        if tool is None:
            return _refusal(
                errors.UNKNOWN_TOOL,
                name,
                f"{_shown(name)} is not a tool of this request; a tool connected during this "
                "reply can be called from the next request on",
            )
        link: Link = tool.owner  # type: ignore[assignment]  # owners are always links
        if not (self._registry.holds(tool) and link.alive):
            return _refusal(
                errors.MCP_CONNECTION_LOST, name, f"the server behind {name} is no longer connected"
            )
        if not self._enablement.is_enabled(tool.alias, tool.remote_name):
            return _refusal(errors.TOOL_DISABLED, name, f"{name} has been disabled")
        refusal = self._authorize(tool, arguments, ticket)
        if refusal is not None:
            return refusal
        problems = self._argument_problems(tool, arguments)
        if problems:
            return _refusal(
                errors.INVALID_ARGUMENTS, name, f"invalid arguments for {name}: " + "; ".join(problems)
            )
        assert isinstance(arguments, Mapping)
        try:
            result = await link.call(tool, arguments)
        except UpstreamError as exc:
            return Envelope(
                ok=False,
                code=exc.envelope_code,
                text=_upstream_message(exc.envelope_code, name),
                tool=name,
                audit_detail=exc.detail,
            )
        return _result_envelope(tool, result)

    def _authorize(self, tool: ExposedTool, arguments: object, ticket: Ticket | None) -> Envelope | None:
        resource: str | None = None
        if tool.policy.resource is not None:
            resource = render_resource(tool.policy.resource, arguments)
            if resource is None:
                return _refusal(
                    errors.DENIED, tool.name, f"the resource of this call to {tool.name} cannot be determined"
                )
        now = self._clock() if ticket is not None and ticket.expires_at is not None else _NO_EXPIRY_CHECK
        decision = authorize(ticket, tool.action, resource, now)
        return None if decision.allowed else _refusal(decision.code, tool.name, decision.reason)

    def _argument_problems(self, tool: ExposedTool, arguments: object) -> list[str]:
        if not isinstance(arguments, Mapping):
            return ["arguments must be a JSON object"]
        try:
            encoded = _ENCODER.encode(arguments)
        except (TypeError, ValueError):
            return ["arguments must be plain JSON"]
        limit = tool.policy.max_argument_bytes or self._settings.max_argument_bytes
        if len(encoded.encode()) > limit:
            return [f"arguments are larger than {limit} bytes"]
        return tool.input.problems(arguments)


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
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))

    rendered = _PLACEHOLDER.sub(fill, template)
    return None if missing else rendered


def _result_envelope(tool: ExposedTool, result: mcp_types.CallToolResult) -> Envelope:
    if result.is_error:
        detail = _content_text(result.content)
        return Envelope(
            ok=False,
            code=errors.MCP_REMOTE_ERROR,
            text=_upstream_message(errors.MCP_REMOTE_ERROR, tool.name),
            tool=tool.name,
            audit_detail=detail[:2000],
        )
    structured = result.structured_content
    if tool.output is not None and (structured is None or tool.output.problems(structured, limit=1)):
        return Envelope(
            ok=False,
            code=errors.MCP_REMOTE_ERROR,
            text=f"{tool.name} returned a result that does not match its output schema",
            tool=tool.name,
        )
    return Envelope(
        ok=True,
        code=errors.OK,
        text=_content_text(result.content),
        structured=structured,
        untrusted=True,
        tool=tool.name,
    )


def _content_text(content: list[mcp_types.ContentBlock]) -> str:
    parts: list[str] = []
    for block in content:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        elif isinstance(block, mcp_types.EmbeddedResource) and isinstance(
            block.resource, mcp_types.TextResourceContents
        ):
            parts.append(block.resource.text)
        elif isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
            parts.append(f"[{block.type}: {block.mime_type}, {len(block.data)} base64 characters]")
        else:
            parts.append(f"[{block.type} omitted]")
    return "\n".join(parts)


def _upstream_message(code: str, name: str) -> str:
    return {
        errors.MCP_REMOTE_ERROR: f"{name} reported an error; the server's own message is withheld",
        errors.MCP_TIMEOUT: f"{name} did not answer in time; its server was disconnected",
    }.get(code, f"the server behind {name} went away during the call; its tools were revoked")


def _refusal(code: str, name: str, text: str) -> Envelope:
    return Envelope(ok=False, code=code, text=text, tool=name if len(name) <= _NAME_SHOWN else "")


def _shown(name: str) -> str:
    return repr(name) if len(name) <= _NAME_SHOWN else repr(name[:_NAME_SHOWN] + "\u2026")
