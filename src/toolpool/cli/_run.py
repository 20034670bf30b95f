"""Commands that run things: the demo walkthrough (``_walkthrough``) and single calls."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    actor,
    app,
    clip,
    err,
    fail,
    load,
    operator_ticket,
    out,
    print_json,
    printable,
    run,
    secret_key,
    telemetry_for,
)
from toolpool.errors import APPROVAL_PENDING, TOOL_DISABLED, ConnectionRefused

if TYPE_CHECKING:
    from toolpool.config import Config
    from toolpool.store import Store

__all__ = ["call", "demo"]

_AUDIT_SHOWN = 12  # the demo's tail of the audit trail; --json has every event


@app.command()
def demo(as_json: AsJson = False) -> None:
    """The whole story on the demo servers: a scripted Lead connects, calls, is refused, delegates
    (real subprocess servers, nothing to set up). Exits 1 if any step does not behave."""
    from toolpool.agent import AnswerEntry, Entry, RequestEntry
    from toolpool.cli._walkthrough import DemoReport, DemoStep, requests_summary, walkthrough

    def show_step(step: DemoStep) -> None:
        if not as_json:
            mark = "[green]✓[/]" if step.as_expected else f"[red]✗ expected {step.expected}[/]"
            out.print(f"    {mark} {step.title}: [bold]{step.code}[/]  {clip(step.text)}", highlight=False)
            if step.why:
                out.print(
                    f"      [dim]why (the operator's view): {escape(printable(step.why))}[/]", highlight=False
                )

    def show_entry(entry: Entry) -> None:
        if as_json:
            return
        if isinstance(entry, RequestEntry):
            out.print(f"[dim]{requests_summary(entry)}[/]", highlight=False)
            out.print(f"[dim]  shown: {clip(', '.join(entry.tools) or 'no tools', 160)}[/]", highlight=False)
        elif isinstance(entry, AnswerEntry):
            out.print(f"[bold]{entry.agent} answers:[/] {clip(entry.text, 160)}", highlight=False)

    async def walk() -> DemoReport:
        with err.status("starting the demo servers", spinner="dots"):
            return await walkthrough(on_step=show_step, on_entry=show_entry)

    report = run(walk)
    if as_json:
        print_json(
            {
                "ok": report.as_expected,
                "steps": [
                    {"step": s.title, "expected": s.expected, "code": s.code, "text": s.text, "why": s.why}
                    for s in report.steps
                ],
                "answer": report.answer,
                "transcript": report.transcript,
                "audit": report.audit,
            }
        )
    else:
        shown = report.audit[-_AUDIT_SHOWN:]
        out.print(
            f"\n[bold]audit trail[/] (last {len(shown)} of {len(report.audit)} events):", highlight=False
        )
        for event in shown:
            out.print(
                f"  #{event['id']:<3} {event['actor']:<10} {event['action']:<18} {clip(event['resource'], 50)}",
                highlight=False,
            )
    failed = [step for step in report.steps if not step.as_expected]
    if failed:
        fail(f"{len(failed)} demo step(s) did not behave as expected")
    if not as_json:
        out.print(
            f"\n{len(report.steps)} steps, all as expected. Every demo server process has been stopped and reaped."
        )


@app.command()
def call(
    alias: Annotated[str, typer.Argument(help="The server's alias in the config.")],
    tool: Annotated[str, typer.Argument(help="The tool's name as the server publishes it.")],
    args: Annotated[str, typer.Option("--args", help="The arguments, as a JSON object.")] = "{}",
    resume: Annotated[
        str | None,
        typer.Option(
            "--session", help="Call in this earlier session (its id), e.g. to retry an approved call."
        ),
    ] = None,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Connect ALIAS, call TOOL through every gate, print the Envelope (exit 1 unless ok).

    A call that waits for a person's approval prints its request's id and its session's id:
    once approved (`toolpool approvals approve`), the same call with `--session ID` runs once."""
    loaded = load(config)
    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        fail(f"--args is not JSON: {exc.msg} at character {exc.pos}")
    except RecursionError:
        fail("--args is nested too deeply to read")
    if not isinstance(arguments, dict):
        fail("--args must be a JSON object")

    telemetry = telemetry_for(loaded)
    from toolpool.pool import Pool  # the pool and the SDK: slow to import, so only when calling

    async def connect_and_call() -> Any:
        async with Pool(loaded, secret_key=secret_key(loaded), telemetry=telemetry.telemetry) as pool:
            with err.status(f"connecting {alias}", spinner="dots"):
                await pool.connect(alias)
            session = pool.session(actor(), operator_ticket(), resume=resume)
            snapshot = session.snapshot()
            name = next((t.name for t in snapshot if t.alias == alias and t.remote_name == tool), None)
            if name is None and pool.store is not None and not pool.store.tools.is_enabled(alias, tool):
                _refuse_unexposed(pool.store, loaded, session.id, alias, tool)
            return session.id, await session.call(snapshot, name or tool, arguments)

    try:
        session_id, envelope = run(connect_and_call)
    except ConnectionRefused as refused:
        fail(f"connection to {alias!r} refused: " + "; ".join(refused.reasons))
    finally:
        telemetry.close()
    if as_json:
        print_json(
            {
                "ok": envelope.ok,
                "code": envelope.code,
                "text": envelope.text,
                "structured": envelope.structured,
                "untrusted": envelope.untrusted,
                "meta": dict(envelope.meta or {}),
                "session": session_id,
            }
        )
    else:
        out.print(
            envelope.text if envelope.ok else f"[red]{envelope.code}[/]: {envelope.text}",
            highlight=False,
            soft_wrap=True,
        )
    if envelope.code == APPROVAL_PENDING and not as_json:
        err.print(f"retry after approval with: --session {session_id}", highlight=False)
    if not envelope.ok:
        raise typer.Exit(1)


def _refuse_unexposed(store: Store, config: Config, session_id: str, alias: str, tool: str) -> None:
    """A tool that is not enabled is in no snapshot: refuse its call here, audited as every
    call is (gate 3's code), with one line saying why and what would change it."""
    policy = config.servers[alias].tools.get(tool)
    forbidden = policy is None or policy.forbidden
    reason = "forbidden" if forbidden else "disabled"
    detail = {"code": TOOL_DISABLED, "reason": reason, "session": session_id}
    store.audit.audit(actor(), "call", f"{alias}/{tool}", detail)
    if policy is None:
        fail(f"{alias}/{tool} is not in the configuration: only tools its policy names can be called")
    if forbidden:
        fail(f"{alias}/{tool} is forbidden (action = false): it is never exposed, and cannot be enabled")
    fail(f"{alias}/{tool} is not enabled (toolpool tools shows its state; toolpool enable turns it on)")
