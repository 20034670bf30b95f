"""``toolpool approvals``: the requests for a person's approval of single calls, and deciding them.

A call of a tool with ``approval = "each_call"``, or of an action its ticket only ``ask``s
for, waits as a request: ``list`` shows the pending ones (``--all``: every one, newest first),
``approve`` and ``deny`` decide one, with who and why (both audited). An approval is good once,
for that very call (same session, principal, tool pin and arguments), until it expires.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    actor,
    app,
    cell,
    clip,
    load,
    open_store,
    out,
    print_json,
)

if TYPE_CHECKING:
    from toolpool.store import Approval

__all__ = ["approvals_approve", "approvals_deny", "approvals_list"]

approvals_app = typer.Typer(help="Approve or deny calls that wait for a person.", no_args_is_help=True)
app.add_typer(approvals_app, name="approvals")

ApprovalId = Annotated[str, typer.Argument(help="The request's id (apr_...), as `approvals list` shows it.")]
By = Annotated[str, typer.Option("--by", help="Who decides (recorded in the audit log).")]
Reason = Annotated[
    str, typer.Option("--reason", help="Why (recorded; a denial's reason is shown to the caller).")
]


@approvals_app.command("list")
def approvals_list(
    show_all: Annotated[
        bool, typer.Option("--all", help="Every request, not only the pending ones.")
    ] = False,
    limit: Annotated[int, typer.Option("--limit", help="At most this many, newest first.")] = 100,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """List the requests waiting for a decision (with --all, every request)."""
    loaded = load(config)
    now = datetime.now(UTC)
    with open_store(loaded) as store:
        found = store.approvals.list(None if show_all else "pending", limit=limit, at=now)
    if as_json:
        print_json([approval.to_json(now) for approval in found])
        return
    if not found:
        out.print("no approval requests" if show_all else "no pending approval requests", highlight=False)
        return
    table = Table("id", "state", "principal", "tool", "arguments", "why", "expires", "decided")
    for approval in found:
        table.add_row(
            approval.id,
            approval.state_at(now),
            cell(approval.binding.principal),
            f"{approval.binding.alias}/{approval.binding.tool}",
            cell(clip(approval.arguments, 60)),
            approval.why,
            approval.expires_at.isoformat(timespec="seconds"),
            _decided(approval),
        )
    out.print(table)


@approvals_app.command("approve")
def approvals_approve(
    approval_id: ApprovalId,
    by: By,
    reason: Reason,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Approve a pending request: the same call, retried, then runs once."""
    loaded = load(config)
    with open_store(loaded) as store:
        approval = store.approvals.approve(approval_id, by, reason, actor=actor())
    _done(approval, as_json)


@approvals_app.command("deny")
def approvals_deny(
    approval_id: ApprovalId,
    by: By,
    reason: Reason,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Deny a pending request: that call stays refused, with your reason."""
    loaded = load(config)
    with open_store(loaded) as store:
        approval = store.approvals.deny(approval_id, by, reason, actor=actor())
    _done(approval, as_json)


def _done(approval: Approval, as_json: bool) -> None:
    if as_json:
        print_json(approval.to_json(datetime.now(UTC)))
        return
    binding = approval.binding
    out.print(
        f"{approval.id} {approval.state}: {binding.alias}/{binding.tool} for {cell(binding.principal)}",
        highlight=False,
    )


def _decided(approval: Approval) -> str:
    if approval.decided_by is None:
        return ""
    return clip(f"{approval.decided_by}: {approval.decided_reason or ''}", 40)
