"""The Envelope: the locally built outcome of one call, and the local texts it carries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolpool import errors
from toolpool.calls._results import fence

__all__ = ["Envelope", "refusal", "upstream_failure"]

_NAME_SHOWN = 80


@dataclass(frozen=True, slots=True)
class Envelope:
    """What one call came to.

    ``text`` is what a model may see: on success the tool's output (sanitized, clipped,
    ``untrusted``), on failure a local message for ``code``. ``for_model()`` adds the fence
    that marks untrusted output as data. ``suspicious`` says the screener flagged the result
    (``screen_reasons`` says why); ``blob_id`` names the whole result when ``text`` was
    clipped. ``audit_detail`` keeps upstream text for the audit log and must never reach a model.
    ``meta`` holds local, machine-readable facts about a refusal for the caller (the gateway
    puts them in the result's ``_meta``): ``retry_after_s`` for ``rate_limited``,
    ``approval_id`` for ``approval_pending``.
    """

    ok: bool
    code: str
    text: str
    structured: Mapping[str, Any] | None = None
    untrusted: bool = False
    tool: str = ""
    suspicious: bool = False
    screen_reasons: tuple[str, ...] = ()
    clipped: bool = False
    blob_id: str | None = None
    audit_detail: str = ""
    meta: Mapping[str, Any] | None = None

    def for_model(self) -> str:
        """The text to put in a prompt: untrusted output fenced as data, local text as is."""
        if not self.untrusted:
            return self.text
        warning = "The screener flagged this result as suspicious. " if self.suspicious else ""
        return warning + fence(self.text, self.tool or "a tool")


def refusal(code: str, name: str, text: str, meta: Mapping[str, Any] | None = None) -> Envelope:
    """A call refused by a gate: local text only (and local facts in ``meta``)."""
    return Envelope(ok=False, code=code, text=text, tool=name if len(name) <= _NAME_SHOWN else "", meta=meta)


def upstream_failure(code: str, name: str, detail: str = "", *, principal: str | None = None) -> Envelope:
    """A call the upstream failed: the server's own words stay in ``audit_detail``. With
    ``principal``, the call went through that principal's own connection: only it was closed,
    and the tools stay for everyone."""
    if principal is not None and code in (errors.MCP_TIMEOUT, errors.MCP_CONNECTION_LOST):
        what = "did not answer in time" if code == errors.MCP_TIMEOUT else "went away during the call"
        text = (
            f"the server behind {name} {what}; your connection to it was closed, the next call opens another"
        )
        return Envelope(ok=False, code=code, text=text, tool=name, audit_detail=detail[:2000])
    text = {
        errors.MCP_REMOTE_ERROR: f"{name} reported an error; the server's own message is withheld",
        errors.MCP_TIMEOUT: f"{name} did not answer in time; its server was disconnected",
    }.get(code, f"the server behind {name} went away during the call; its tools were revoked")
    return Envelope(ok=False, code=code, text=text, tool=name, audit_detail=detail[:2000])


def shown(name: str) -> str:
    """A model-supplied name, quoted and cut for use in local text."""
    return repr(name) if len(name) <= _NAME_SHOWN else repr(name[:_NAME_SHOWN] + "\u2026")
