"""The agent runtime's part of the usage ledger, with scripted models that report usage and
real demo servers: every answered model request of the Lead and of the helpers it delegates
to is billed to the Lead's principal and session (alias ``@model``, tool the model's name),
and the MCP tools each Lead request showed are counted per alias (tool ``@list``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server, write_config
from toolpool import Pool, Ticket
from toolpool.agent import ContextBudget, Lead, ModelReply, Subagent, ToolCall, Usage
from toolpool.agent.models import ScriptedModel
from toolpool.config import Config
from toolpool.errors import ModelUnavailable
from toolpool.store import LISTING, MODEL, Store, UsageTotal

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


def _reply(
    *calls: tuple[str, Mapping[str, Any]], text: str = "", usage: tuple[int, int] = (0, 0)
) -> ModelReply:
    tool_calls = tuple(ToolCall(f"c{n}_{name}", name, arguments) for n, (name, arguments) in enumerate(calls))
    return ModelReply(
        text=text, tool_calls=tool_calls, stop_reason="tool_use" if calls else "end", usage=Usage(*usage)
    )


def _by_tool(config: Config) -> dict[tuple[str, str], UsageTotal]:
    with Store.open(config.store_url) as store:
        return {(t.key["alias"], t.key["tool"]): t for t in store.usage.totals("tool")}


async def test_model_tokens_of_the_lead_and_its_helper_come_from_the_usage_the_models_report(
    tmp_path: Path,
) -> None:
    lead_model = ScriptedModel(
        [
            _reply(("connect_mcp", {"alias": "demo_alpha"}), usage=(100, 10)),
            _reply(
                ("mcp__demo_alpha__lookup", {"key": "k1"}),
                ("delegate", {"role": "r", "prompt": "sum up"}),
                usage=(200, 20),
            ),
            _reply(text="k1 is alpha:v1", usage=(300, 30)),
        ],
        name="lead-model",
    )
    helper_model = ScriptedModel([_reply(text="summed", usage=(40, 4))], name="helper-model")
    config = _config(tmp_path)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            lead = Lead(pool, lead_model, ticket=ANY, principal="ana", helpers={"r": Subagent(helper_model)})
            run = await lead.run("look up k1")
            session_id = lead.session.id
    assert run.completed and len(run.transcript.requests()) == 4
    by_tool = _by_tool(config)
    lead_usage, helper_usage = by_tool[MODEL, "lead-model"], by_tool[MODEL, "helper-model"]
    assert (lead_usage.model_requests, lead_usage.input_tokens, lead_usage.output_tokens) == (3, 600, 60)
    assert (helper_usage.model_requests, helper_usage.input_tokens, helper_usage.output_tokens) == (1, 40, 4)
    assert lead_usage.calls == helper_usage.calls == 0
    with Store.open(config.store_url) as store:
        [ana] = store.usage.totals("principal")
        [session] = store.usage.totals("session")
    assert ana.key == {"principal": "ana"} and session.key == {"session_id": session_id}
    assert (ana.model_requests, ana.input_tokens, ana.output_tokens) == (4, 640, 64)
    assert (ana.calls, ana.codes) == (1, {"ok": 1})  # the lookup; builtins are not MCP calls


async def test_each_lead_request_counts_the_list_tokens_of_the_mcp_tools_it_showed_per_alias(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            _reply(("connect_mcp", {"alias": "demo_alpha"})),  # shows no MCP tool yet
            _reply(("connect_mcp", {"alias": "demo_beta"})),  # shows alpha's
            _reply(text="done"),  # shows alpha's and beta's
        ]
    )
    config = _config(tmp_path)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            lead = Lead(pool, model, ticket=ANY)
            await lead.run("connect both")
            shown = dict(lead.session.snapshot().list_tokens_by_alias)
    assert set(shown) == {"demo_alpha", "demo_beta"} and all(shown.values())
    by_tool = _by_tool(config)
    listed = {alias: (t.lists, t.list_tokens) for (alias, tool), t in by_tool.items() if tool == LISTING}
    assert listed == {"demo_alpha": (2, 2 * shown["demo_alpha"]), "demo_beta": (1, shown["demo_beta"])}
    assert by_tool[MODEL, "scripted"].model_requests == 3


async def test_over_the_budget_only_the_tools_search_surfaced_are_counted_as_shown(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            _reply(("connect_mcp", {"alias": "demo_beta"})),
            _reply(("search_tools", {"query": "note write"})),  # over the budget: no MCP tool shown
            _reply(text="done"),  # shows write_note only
        ]
    )
    config = _config(tmp_path)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            lead = Lead(pool, model, ticket=ANY, budget=ContextBudget(max_tool_tokens=20, search_limit=1))
            run = await lead.run("write a note")
            note = lead.session.snapshot().get("mcp__demo_beta__write_note")
    assert note is not None and run.transcript.requests("lead")[2].tools[-1] == note.name
    listing = _by_tool(config)["demo_beta", LISTING]
    assert (listing.lists, listing.list_tokens) == (1, note.list_tokens)


async def test_a_request_the_model_does_not_answer_is_not_counted(tmp_path: Path) -> None:
    model = ScriptedModel([_reply(("connect_mcp", {"alias": "demo_alpha"}), usage=(5, 1))])  # then nothing
    config = _config(tmp_path)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ModelUnavailable, match="no reply left"):
            await Lead(pool, model, ticket=ANY).run("connect")
    by_tool = _by_tool(config)
    assert by_tool[MODEL, "scripted"].model_requests == 1
    assert ("demo_alpha", LISTING) not in by_tool
