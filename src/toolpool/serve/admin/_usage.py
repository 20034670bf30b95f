"""The admin API's bodies for ``GET /admin/usage``: the usage ledger summed per key."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from toolpool.errors import UsageError
from toolpool.store import UsageBy, UsageTotal, usage_day

__all__ = ["UsageQuery", "UsageTotalOut", "usage_total_out"]


def _day(value: object) -> object:
    if isinstance(value, str):
        try:
            return usage_day(value)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
    return value


class UsageQuery(BaseModel):
    """How to sum the ledger; an unknown parameter (a typo) is an error."""

    model_config = ConfigDict(extra="forbid")

    by: UsageBy = Field(
        "principal", description="sum per principal, session, alias, (alias, tool) or UTC day"
    )
    since: Annotated[date | None, BeforeValidator(_day)] = Field(
        None, description="from this UTC day on: 2026-01-31, or an RFC 3339 moment with an offset"
    )


class UsageTotalOut(BaseModel):
    """The ledger under one key. Rows whose tool is ``@list`` count tool lists shown; rows
    whose alias is ``@model`` count model requests and the tokens their providers reported."""

    model_config = ConfigDict(frozen=True)

    key: dict[str, str] = Field(
        description="the key's columns: principal, session_id, alias (and tool), or day"
    )
    calls: int
    errors: int = Field(description="calls whose code is not ok")
    codes: dict[str, int] = Field(description="calls by Envelope code")
    wait_ms: float = Field(description="the calls' durations, summed")
    bytes_in: int
    bytes_out: int
    lists: int = Field(description="tool lists shown to models and clients")
    list_tokens: int = Field(description="their estimated prompt tokens")
    model_requests: int
    input_tokens: int = Field(description="as the model providers reported them")
    output_tokens: int


def usage_total_out(total: UsageTotal) -> UsageTotalOut:
    return UsageTotalOut(
        key=dict(total.key),
        calls=total.calls,
        errors=total.errors,
        codes=dict(total.codes),
        wait_ms=total.wait_ms,
        bytes_in=total.bytes_in,
        bytes_out=total.bytes_out,
        lists=total.lists,
        list_tokens=total.list_tokens,
        model_requests=total.model_requests,
        input_tokens=total.input_tokens,
        output_tokens=total.output_tokens,
    )
