"""The agent loop with the scripted model against real demo servers: one snapshot per model
request (gate 1 in the loop), R1 for the management tools, R10 in the prompt, R16 for the
roles, delegation, the context budget and the transcript."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server, write_config
from toolpool import Pool, Ticket
from toolpool.agent import ContextBudget, Lead, ModelReply, Subagent, Teammate, ToolCall
from toolpool.agent.models import ScriptedModel
from toolpool.config import Config

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ANY = Ticket.allow("*")


def _config(tmp_path: Path) -> Config:
    return write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", BETA_TOOLS),
        pool={"store": f"sqlite:///{tmp_path / 'toolpool.db'}"},
    )


def _call(name: str, arguments: Mapping[str, Any] | None = None, call_id: str = "") -> ToolCall:
    return ToolCall(call_id or f"c_{name}", name, {} if arguments is None else arguments)


def _reply(*calls: ToolCall, text: str = "") -> ModelReply:
    return ModelReply(text=text, tool_calls=calls, stop_reason="tool_use" if calls else "end")


def _codes(run_calls: tuple[Any, ...]) -> list[tuple[str, str]]:
    return [(call.name, call.code) for call in run_calls]


async def test_a_tool_connected_in_a_reply_is_callable_only_from_the_next_request(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _reply(
                _call("connect_mcp", {"alias": "demo_alpha"}),
                _call("mcp__demo_alpha__lookup", {"key": "k1"}),
            ),
            _reply(_call("mcp__demo_alpha__lookup", {"key": "k1"})),
            _reply(text="k1 is alpha:v1"),
        ]
    )
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=ANY).run("look up k1")
    calls = run.transcript.calls("lead")
    assert _codes(calls) == [
        ("connect_mcp", "ok"),
        ("mcp__demo_alpha__lookup", "unknown_tool"),
        ("mcp__demo_alpha__lookup", "ok"),
    ]
    assert "next request" in calls[1].text
    first, second, _ = run.transcript.requests("lead")
    assert "mcp__demo_alpha__lookup" not in first.tools
    assert "mcp__demo_alpha__lookup" in second.tools
    assert second.snapshot_version is not None and first.snapshot_version is not None
    assert second.snapshot_version > first.snapshot_version
    assert (run.answer, run.completed) == ("k1 is alpha:v1", True)
    assert [spec.name for spec in model.requests[1].tools] == list(second.tools)


async def test_a_tool_of_an_alias_disconnected_in_a_reply_fails_from_then_on(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _reply(
                _call("connect_mcp", {"alias": "demo_alpha"}), _call("connect_mcp", {"alias": "demo_beta"})
            ),
            _reply(
                _call("disconnect_mcp", {"alias": "demo_alpha"}),
                _call("mcp__demo_alpha__lookup", {"key": "k1"}),
                _call("mcp__demo_beta__lookup", {"key": "k1"}),
            ),
            _reply(_call("mcp__demo_alpha__lookup", {"key": "k1"})),
            _reply(text="done"),
        ]
    )
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=ANY).run("go")
    assert _codes(run.transcript.calls())[2:] == [
        ("disconnect_mcp", "ok"),
        ("mcp__demo_alpha__lookup", "mcp_connection_lost"),
        ("mcp__demo_beta__lookup", "ok"),
        ("mcp__demo_alpha__lookup", "unknown_tool"),
    ]
    third = run.transcript.requests("lead")[2]
    assert not any(name.startswith("mcp__demo_alpha__") for name in third.tools)


async def test_r1_connect_mcp_takes_an_alias_and_nothing_else(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _reply(
                _call("connect_mcp", {"alias": "demo_alpha", "command": "sh"}),
                _call("connect_mcp", {"alias": "/bin/sh"}),
                _call("connect_mcp", {}),
                ToolCall("c_raw", "connect_mcp", None, raw_arguments="demo_alpha"),
            ),
            _reply(text="no"),
        ]
    )
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=ANY).run("connect something")
        assert pool.connected == ()
    assert {code for _, code in _codes(run.transcript.calls())} == {"invalid_arguments"}
    schema = model.requests[0].tools[0].input_schema
    assert schema["additionalProperties"] is False
    assert schema["properties"]["alias"]["enum"] == ["demo_alpha", "demo_beta"]


async def test_r10_the_prompt_shows_only_the_tools_the_ticket_allows_in_name_order(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _reply(
                _call("connect_mcp", {"alias": "demo_beta"}), _call("connect_mcp", {"alias": "demo_alpha"})
            ),
            _reply(_call("mcp__demo_alpha__echo", {"text": "x"})),
            _reply(text="done"),
        ]
    )
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=Ticket.allow("demo.lookup", "beta.*")).run("go")
    shown = run.transcript.requests("lead")[1].tools
    assert shown == (
        "connect_mcp",
        "disconnect_mcp",
        "mcp__demo_alpha__lookup",
        "mcp__demo_beta__lookup",
        "mcp__demo_beta__write_note",
    )
    assert _codes(run.transcript.calls())[-1] == ("mcp__demo_alpha__echo", "unknown_tool")


async def test_r16_a_subagent_sees_no_mcp_or_management_tools_whatever_it_asks(tmp_path: Path) -> None:
    sneaky = ScriptedModel(
        [
            _reply(
                _call("connect_mcp", {"alias": "demo_beta"}),
                _call("mcp__demo_alpha__lookup", {"key": "k1"}),
                _call("delegate", {"role": "researcher", "prompt": "again"}),
            ),
            _reply(text="I could not use any tool"),
        ]
    )
    lead_model = ScriptedModel(
        [
            _reply(_call("connect_mcp", {"alias": "demo_alpha"})),
            _reply(
                _call("delegate", {"role": "researcher", "prompt": "call mcp__demo_alpha__lookup for k1"})
            ),
            _reply(text="done"),
        ]
    )
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            lead = Lead(pool, lead_model, ticket=ANY, helpers={"researcher": Subagent(sneaky)})
            run = await lead.run("delegate it")
        assert pool.connected == ("demo_alpha",)
        assert pool.store is not None
        calls_in_store = [event for event in pool.store.audit.audit_events() if event.action == "call"]
    assert all(request.tools == () for request in sneaky.requests)
    helper_calls = run.transcript.calls("subagent:researcher")
    assert {code for _, code in _codes(helper_calls)} == {"unknown_tool"}
    assert len(helper_calls) == 3
    assert calls_in_store == []  # nothing the subagent asked for reached the pool
    delegated = run.transcript.calls("lead")[-1]
    assert (delegated.name, delegated.code, delegated.text) == ("delegate", "ok", "I could not use any tool")
    assert [request.snapshot_version for request in run.transcript.requests("subagent:researcher")] == [
        None,
        None,
    ]


async def test_a_teammate_remembers_earlier_tasks_and_a_subagent_starts_afresh() -> None:
    teammate_model = ScriptedModel([_reply(text="one"), _reply(text="two")])
    subagent_model = ScriptedModel([_reply(text="one"), _reply(text="two")])
    teammate, subagent = Teammate(teammate_model), Subagent(subagent_model)
    with anyio.fail_after(TIMEOUT):
        for task in ("first", "second"):
            await teammate.run(task)
            await subagent.run(task)
    assert len(teammate_model.requests[1].messages) == 3  # first, its answer, second
    assert len(subagent_model.requests[1].messages) == 1


async def test_the_turn_limit_ends_a_run_without_an_answer(tmp_path: Path) -> None:
    model = ScriptedModel([_reply(_call("disconnect_mcp", {"alias": "demo_alpha"}))] * 3)
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=ANY, max_turns=3).run("loop forever")
    assert (run.answer, run.completed) == ("", False)
    assert len(run.transcript.requests()) == 3


async def test_over_the_budget_the_lead_searches_and_sees_what_it_found_from_the_next_request(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            _reply(
                _call("connect_mcp", {"alias": "demo_alpha"}), _call("connect_mcp", {"alias": "demo_beta"})
            ),
            _reply(
                _call("mcp__demo_beta__lookup", {"key": "k1"}), _call("search_tools", {"query": "note write"})
            ),
            _reply(_call("mcp__demo_beta__write_note", {"text": "hello"})),
            _reply(text="done"),
        ]
    )
    budget = ContextBudget(max_tool_tokens=50, search_limit=1)
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            run = await Lead(pool, model, ticket=ANY, budget=budget).run("write a note")
    requests = run.transcript.requests("lead")
    assert requests[1].search
    assert requests[1].tools == ("connect_mcp", "disconnect_mcp", "search_tools")
    assert requests[2].tools[-1] == "mcp__demo_beta__write_note"
    assert requests[2].tool_tokens > requests[1].tool_tokens
    assert _codes(run.transcript.calls())[2:] == [
        ("mcp__demo_beta__lookup", "unknown_tool"),
        ("search_tools", "ok"),
        ("mcp__demo_beta__write_note", "ok"),
    ]


async def test_results_reach_the_model_fenced_as_untrusted_data(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _reply(_call("connect_mcp", {"alias": "demo_alpha"})),
            _reply(_call("mcp__demo_alpha__lookup", {"key": "k1"})),
            _reply(text="done"),
        ]
    )
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await Lead(pool, model, ticket=ANY).run("look up k1")
    result = model.requests[2].messages[-1]
    assert "alpha:v1" in getattr(result, "text", "")
    assert getattr(result, "text", "") != "alpha:v1"  # fenced, not bare
