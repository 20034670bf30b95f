"""The admin API's request and response bodies, and how the store's values become them.

Aliases and tool names are checked against the patterns the UI uses too
(``toolpool.serve._patterns``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from toolpool.importing import ImportResult
from toolpool.serve._cursor import CURSOR_MAX, CURSOR_PATTERN
from toolpool.serve._patterns import ALIAS_MAX, ALIAS_PATH
from toolpool.store import AuditCheck, AuditEvent, CallRecord, CallStats, Release, StoredPin, ToolState

__all__ = [
    "ID_MAX",
    "PAGE_MAX",
    "TOOLS_PAGE",
    "TOOLS_PAGE_MAX",
    "AuditCheckOut",
    "AuditEventOut",
    "AuditPage",
    "CallPage",
    "CallRecordOut",
    "CallStatsOut",
    "ErrorBody",
    "Health",
    "ImportOut",
    "ImportedToolOut",
    "PageQuery",
    "PinOut",
    "ReleaseContentOut",
    "ReleaseOut",
    "ReleaseToolOut",
    "ServerChange",
    "ServerOut",
    "StatsQuery",
    "ToolChange",
    "ToolDetail",
    "ToolOut",
    "ToolsQuery",
    "WriteApprovalIn",
    "WriteApprovalOut",
    "audit_check_out",
    "audit_event_out",
    "call_record_out",
    "call_stats_out",
    "import_out",
    "pin_out",
    "release_out",
    "tool_detail",
    "tool_out",
]

ID_MAX = 2**53  # ids and numbers stay exact in every JSON reader
PAGE_MAX = 1000  # rows per page of audit events or call records
# Tools per page of GET /admin/tools: a store of up to TOOLS_PAGE tools answers in one page,
# as it did before the listing was paged.
TOOLS_PAGE = 1000
TOOLS_PAGE_MAX = 5000
# At least one character that is not white space. Spelled out because Python, Rust (pydantic)
# and ECMAScript (JSON Schema) disagree on what \s means (U+0085, U+001C-U+001F, U+FEFF): the
# class is the union of their white space, which covers what the store's str.strip() removes.
_TEXT = r"[^\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
# What the spec's "format: date-time" means; pydantic alone also takes numbers and naive times.
_RFC3339 = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})\Z"
)


class _Query(BaseModel):
    """Query parameters: an unknown one (a typo) is an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class PageQuery(_Query):
    after_id: int | None = Field(None, ge=0, le=ID_MAX, description="only rows after this id")
    limit: int = Field(100, ge=1, le=PAGE_MAX)


class ToolsQuery(_Query):
    alias: str | None = Field(None, pattern=ALIAS_PATH, max_length=ALIAS_MAX, description="only this alias")
    limit: int = Field(TOOLS_PAGE, ge=1, le=TOOLS_PAGE_MAX, description="at most this many tools")
    cursor: str | None = Field(
        None,
        min_length=1,
        max_length=CURSOR_MAX,
        description="where the page starts: the `X-Next-Cursor` of the page before",
        # Documented, checked by the route: a cursor that does not match is a 400.
        json_schema_extra={"pattern": CURSOR_PATTERN},
    )


def _rfc3339(value: object) -> object:
    if isinstance(value, str) and not _RFC3339.match(value):
        raise ValueError("must be an RFC 3339 date-time with an offset, as 2026-01-31T12:00:00Z")
    return value


class StatsQuery(_Query):
    since: Annotated[datetime | None, BeforeValidator(_rfc3339)] = Field(
        None, description="only calls at or after this moment"
    )


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class ErrorBody(_Out):
    """Every error the admin API answers: one line of local text."""

    error: str


class Health(_Out):
    status: Literal["ok"] = "ok"


class WriteApprovalIn(BaseModel):
    """Who approves a tool to write, and why (R9); both are kept in the audit log."""

    model_config = ConfigDict(extra="forbid")

    by: str = Field(min_length=1, max_length=200, pattern=_TEXT)
    reason: str = Field(min_length=1, max_length=2000, pattern=_TEXT)


class WriteApprovalOut(_Out):
    by: str
    at: datetime | None
    reason: str | None


class ToolOut(_Out):
    """A tool as the management plane sees it; ``callable`` is gate 3's answer."""

    alias: str
    name: str
    action: str | None
    effect: Literal["read", "write"]
    enabled: bool
    server_enabled: bool
    callable: bool
    approved_hash: str | None
    current_hash: str | None
    verdict: str | None
    score: float | None
    reasons: list[str]
    write_approval: WriteApprovalOut | None
    first_seen: datetime | None
    last_seen: datetime | None


class PinOut(_Out):
    """The approved definition of a tool (R7) and who approved it."""

    hash: str
    definition: dict[str, Any] | None
    approved_by: str | None
    approved_at: datetime | None


class ToolDetail(ToolOut):
    definition: dict[str, Any] | None = Field(description="as the latest import stored it")
    pin: PinOut | None


class ToolChange(_Out):
    tool: ToolOut
    release: int = Field(description="the current release after the change")


class ServerOut(_Out):
    alias: str
    enabled: bool
    tools: int
    enabled_tools: int
    configured: bool | None = Field(description="named in the pool's configuration; null without a pool")


class ServerChange(_Out):
    server: ServerOut
    release: int


class ImportedToolOut(_Out):
    name: str
    definition_hash: str
    verdict: Literal["pass", "drop"]
    score: float
    reasons: list[str]


class ImportOut(_Out):
    alias: str
    tools: list[ImportedToolOut]
    changed: list[str] = Field(description="tools whose definition changed since approval: quarantined")


class ReleaseToolOut(_Out):
    action: str | None
    effect: str
    approved_hash: str | None


class ReleaseContentOut(_Out):
    tools: dict[str, ReleaseToolOut]
    disabled_servers: list[str]


class ReleaseOut(_Out):
    number: int
    created_at: datetime
    actor: str
    change: str
    content: ReleaseContentOut
    content_hash: str


class AuditEventOut(_Out):
    id: int
    at: datetime
    actor: str
    action: str
    resource: str
    detail: dict[str, Any]
    prev_hash: str
    hash: str


class AuditPage(_Out):
    events: list[AuditEventOut]
    next_after_id: int | None = Field(description="pass as after_id for the next page; null at the end")


class AuditCheckOut(_Out):
    ok: bool
    checked: int
    first_bad_id: int | None
    problem: str | None = Field(description="the kind of the first break: see toolpool.store.AuditCheck")
    reason: str | None
    head_hash: str | None
    summary: str


class CallStatsOut(_Out):
    alias: str
    tool: str
    calls: int
    codes: dict[str, int]
    p50_ms: float
    p95_ms: float


class CallRecordOut(_Out):
    id: int
    at: datetime
    session_id: str | None
    principal: str | None
    alias: str
    tool: str
    code: str
    duration_ms: float
    bytes_in: int
    bytes_out: int
    snapshot_version: int | None
    release: int | None
    replica: str | None = None


class CallPage(_Out):
    calls: list[CallRecordOut]
    next_after_id: int | None


def tool_out(state: ToolState) -> ToolOut:
    return ToolOut(**_tool_fields(state))


def _tool_fields(state: ToolState) -> dict[str, Any]:
    approval = None
    if state.write_approved_by is not None:
        approval = WriteApprovalOut(
            by=state.write_approved_by, at=state.write_approved_at, reason=state.write_approved_reason
        )
    return {
        "alias": state.alias,
        "name": state.name,
        "action": state.action,
        "effect": state.effect,
        "enabled": state.enabled,
        "server_enabled": state.server_enabled,
        "callable": state.callable,
        "approved_hash": state.approved_hash,
        "current_hash": state.current_hash,
        "verdict": state.verdict,
        "score": state.score,
        "reasons": list(state.reasons),
        "write_approval": approval,
        "first_seen": state.first_seen,
        "last_seen": state.last_seen,
    }


def tool_detail(state: ToolState, definition: dict[str, Any] | None, pin: StoredPin | None) -> ToolDetail:
    return ToolDetail(**_tool_fields(state), definition=definition, pin=None if pin is None else pin_out(pin))


def pin_out(pin: StoredPin) -> PinOut:
    definition = None if pin.definition is None else dict(pin.definition)
    return PinOut(
        hash=pin.hash, definition=definition, approved_by=pin.approved_by, approved_at=pin.approved_at
    )


def import_out(result: ImportResult) -> ImportOut:
    tools = [
        ImportedToolOut(
            name=tool.name,
            definition_hash=tool.definition_hash,
            verdict=tool.verdict,
            score=tool.score,
            reasons=list(tool.reasons),
        )
        for tool in result.tools
    ]
    return ImportOut(alias=result.alias, tools=tools, changed=sorted(result.changed))


def release_out(release: Release) -> ReleaseOut:
    return ReleaseOut(
        number=release.number,
        created_at=release.created_at,
        actor=release.actor,
        change=release.change,
        content=ReleaseContentOut.model_validate(release.content),
        content_hash=release.content_hash,
    )


def audit_event_out(event: AuditEvent) -> AuditEventOut:
    return AuditEventOut(
        id=event.id,
        at=event.at,
        actor=event.actor,
        action=event.action,
        resource=event.resource,
        detail=dict(event.detail),
        prev_hash=event.prev_hash,
        hash=event.hash,
    )


def audit_check_out(check: AuditCheck) -> AuditCheckOut:
    return AuditCheckOut(
        ok=check.ok,
        checked=check.checked,
        first_bad_id=check.first_bad_id,
        problem=check.problem,
        reason=check.reason,
        head_hash=check.head_hash,
        summary=check.describe(),
    )


def call_stats_out(stats: CallStats) -> CallStatsOut:
    return CallStatsOut(
        alias=stats.alias,
        tool=stats.tool,
        calls=stats.calls,
        codes=dict(stats.codes),
        p50_ms=stats.p50_ms,
        p95_ms=stats.p95_ms,
    )


def call_record_out(record_id: int, record: CallRecord) -> CallRecordOut:
    return CallRecordOut(
        id=record_id,
        at=record.at,
        session_id=record.session_id,
        principal=record.principal,
        alias=record.alias,
        tool=record.tool,
        code=record.code,
        duration_ms=record.duration_ms,
        bytes_in=record.bytes_in,
        bytes_out=record.bytes_out,
        snapshot_version=record.snapshot_version,
        release=record.release,
        replica=record.replica,
    )
