"""The Lead and calls that wait for a person's approval, with a scripted model against a real
demo server: ``approval_pending`` comes back as a tool result with the request's id; the Lead
waits with ``await_approval`` (bounded) while an approver decides; the retried call runs once.
Only the Lead has ``await_approval`` (R16), and only where a call may need approval."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import BETA_TOOLS, demo_server, write_config
from toolpool import Pool, Ticket
from toolpool.agent import Lead, ModelReply, ModelRequest, Subagent, ToolCall
from toolpool.agent.models import ScriptedModel
from toolpool.config import Config
from toolpool.events import PoolEvent

pytestmark = pytest.mark.anyio

TIMEOUT = 60
WRITE = "mcp__demo_beta__write_note"
TICKET = Ticket.allow("beta.*", principal="ana")


def _config(tmp_path: Path, approval: str = "each_call") -> Config:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": approval}}
    return write_config(tmp_path, demo_server("demo_beta", "beta", beta))


def _call(name: str, arguments: Mapping[str, Any], call_id: str = "") -> ToolCall:
    return ToolCall(call_id or f"c_{name}", name, dict(arguments))


def _reply(*calls: ToolCall, text: str = "") -> ModelReply:
    return ModelReply(text=text, tool_calls=calls, stop_reason="tool_use" if calls else "end")


class _Approver:
    """Decides each approval request the pool announces, as a person at the UI would."""

    def __init__(self, decision: str) -> None:
        self.decision = decision
        self.ids: list[str] = []
        self.requested = anyio.Event()

    def on_event(self, event: PoolEvent) -> None:
        if event.kind == "approval.requested":
            self.ids.append(str(event.detail["approval_id"]))
            self.requested.set()

    async def decide(self, pool: Pool) -> None:
        await self.requested.wait()
        assert pool.store is not None
        decide = pool.store.approvals.approve if self.decision == "approve" else pool.store.approvals.deny
        decide(self.ids[0], by="olga", reason="checked by hand")

    def wait_step(self, timeout_s: float = 30) -> Any:
        return lambda _request: _reply(
            _call("await_approval", {"approval_id": self.ids[0], "timeout_s": timeout_s}, "wait")
        )


async def _run(tmp_path: Path, approver: _Approver, model: ScriptedModel) -> Any:
    async with Pool(_config(tmp_path), on_event=approver.on_event) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            async with anyio.create_task_group() as group:
                group.start_soon(approver.decide, pool)
                run = await Lead(pool, model, ticket=TICKET).run("write a note")
    return run


async def test_the_lead_waits_for_an_approval_and_its_retried_call_runs_once(tmp_path: Path) -> None:
    approver = _Approver("approve")
    note = _call(WRITE, {"text": "hello"})
    model = ScriptedModel(
        [
            _reply(note),
            approver.wait_step(),
            _reply(_call(WRITE, {"text": "hello"}, "again")),
            _reply(text="done"),
        ]
    )
    run = await _run(tmp_path, approver, model)
    calls = run.transcript.calls()
    assert [(call.name, call.code) for call in calls] == [
        (WRITE, "approval_pending"),
        ("await_approval", "ok"),
        (WRITE, "ok"),
    ]
    assert approver.ids[0] in calls[0].text and "await_approval" in calls[0].text
    assert "approved by olga" in calls[1].text and "\nnote-1\n" in calls[2].text
    first: ModelRequest = model.requests[0]
    assert "await_approval" in [tool.name for tool in first.tools]


async def test_the_lead_reads_a_denial_and_its_reason(tmp_path: Path) -> None:
    approver = _Approver("deny")
    model = ScriptedModel(
        [
            _reply(_call(WRITE, {"text": "rm"})),
            approver.wait_step(),
            _reply(_call(WRITE, {"text": "rm"}, "again")),
            _reply(text="denied"),
        ]
    )
    run = await _run(tmp_path, approver, model)
    codes = [(call.name, call.code) for call in run.transcript.calls()]
    assert codes == [(WRITE, "approval_pending"), ("await_approval", "denied"), (WRITE, "denied")]
    assert "checked by hand" in run.transcript.calls()[1].text


async def test_await_approval_returns_still_pending_after_its_bound(tmp_path: Path) -> None:
    ids: list[str] = []

    def on_event(event: PoolEvent) -> None:
        if event.kind == "approval.requested":
            ids.append(str(event.detail["approval_id"]))

    model = ScriptedModel(
        [
            _reply(_call(WRITE, {"text": "later"})),
            lambda _request: _reply(_call("await_approval", {"approval_id": ids[0], "timeout_s": 0.2}, "w")),
            _reply(_call("await_approval", {"approval_id": "apr_madeup"}, "x")),
            lambda _request: _reply(_call("await_approval", {"approval_id": ids[0], "timeout_s": 301}, "y")),
            _reply(text="moving on"),
        ]
    )
    async with Pool(_config(tmp_path), on_event=on_event) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            run = await Lead(pool, model, ticket=TICKET).run("write a note later")
    codes = [(call.name, call.code) for call in run.transcript.calls()]
    assert codes == [
        (WRITE, "approval_pending"),
        ("await_approval", "approval_pending"),
        ("await_approval", "invalid_arguments"),
        ("await_approval", "invalid_arguments"),
    ]


async def test_only_a_lead_that_may_meet_an_approval_has_await_approval(tmp_path: Path) -> None:
    model = ScriptedModel([_reply(text="hi"), _reply(text="hi"), _reply(text="hi")])
    async with Pool(_config(tmp_path, approval="none")) as pool:
        await Lead(pool, model, ticket=TICKET).run("hi")
        asking = Ticket(principal="ana", actions=("beta.lookup",), ask=("beta.*",))
        await Lead(pool, model, ticket=asking).run("hi")
        await Subagent(model).run("hi")
    shown = [[tool.name for tool in request.tools] for request in model.requests]
    assert "await_approval" not in shown[0]
    assert "await_approval" in shown[1]
    assert "await_approval" not in shown[2]
