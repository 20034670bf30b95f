"""The reference "everything" server through the Pool, under examples/everything.toml.

Expected answers are the measured ones in tests/thirdparty/NOTES.md.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from tests.helpers import children_of_this_process
from tests.thirdparty.conftest import Examples
from toolpool import ConfigEnablement, ConnectionRefused, Pool, Ticket

pytestmark = [pytest.mark.anyio, pytest.mark.thirdparty]

TIMEOUT = 30
TICKET = Ticket.allow("everything.*")

# The read tools examples/everything.toml enables; get-env (read, disabled), the write tools
# toggle-* (not approved) and the forbidden gzip-file-as-resource / simulate-research-query
# must not be among them.
ENABLED_READS = {
    "mcp__everything__echo",
    "mcp__everything__get-annotated-message",
    "mcp__everything__get-resource-links",
    "mcp__everything__get-resource-reference",
    "mcp__everything__get-structured-content",
    "mcp__everything__get-sum",
    "mcp__everything__get-tiny-image",
    "mcp__everything__trigger-long-running-operation",
}


async def test_the_example_exposes_exactly_its_enabled_read_tools(examples: Examples) -> None:
    async with Pool(examples.load("everything")) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("everything")
        snapshot = pool.snapshot()

    assert set(snapshot.names) == ENABLED_READS
    assert {tool.effect for tool in snapshot} == {"read"}
    assert {tool.remote_name for tool in snapshot}.isdisjoint(
        {"get-env", "gzip-file-as-resource", "simulate-research-query", "toggle-simulated-logging"}
    )


async def test_echo_and_get_sum_answer_exactly_through_the_pool(examples: Examples) -> None:
    async with Pool(examples.load("everything")) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("everything")
            snapshot = pool.snapshot()
            echo = await pool.call(snapshot, "mcp__everything__echo", {"message": "hello"}, ticket=TICKET)
            total = await pool.call(snapshot, "mcp__everything__get-sum", {"a": 2, "b": 3}, ticket=TICKET)

    assert (echo.ok, echo.code, echo.text, echo.structured) == (True, "ok", "Echo: hello", None)
    assert echo.untrusted
    assert (total.code, total.text) == ("ok", "The sum of 2 and 3 is 5.")


async def test_get_structured_content_returns_the_structured_result_its_output_schema_allows(
    examples: Examples,
) -> None:
    async with Pool(examples.load("everything")) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("everything")
            envelope = await pool.call(
                pool.snapshot(),
                "mcp__everything__get-structured-content",
                {"location": "New York"},
                ticket=TICKET,
            )

    assert envelope.code == "ok", envelope
    assert envelope.structured == {"temperature": 33, "conditions": "Cloudy", "humidity": 82}
    assert json.loads(envelope.text) == envelope.structured


async def test_r14_the_child_environment_is_exactly_the_configured_env(examples: Examples) -> None:
    config = examples.derive("everything", env={"TOOLPOOL_MARK": "x"})
    enablement = ConfigEnablement(config)
    enablement.enable("everything", "get-env")
    async with Pool(config, enablement=enablement) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("everything")
            envelope = await pool.call(pool.snapshot(), "mcp__everything__get-env", {}, ticket=TICKET)

    assert envelope.code == "ok", envelope
    assert json.loads(envelope.text) == {"TOOLPOOL_MARK": "x"}
    assert envelope.text == '{\n  "TOOLPOOL_MARK": "x"\n}'


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"without_tools": ["get-sum"]}, "get-sum"),
        (
            {"extra_tools": {"get-nothing": {"action": "everything.get-nothing", "effect": "read"}}},
            "get-nothing",
        ),
    ],
    ids=["policy-lacks-a-published-tool", "policy-names-an-unpublished-tool"],
)
async def test_r2_a_policy_that_differs_from_the_real_server_refuses_it_naming_the_tool(
    examples: Examples, change: dict[str, Any], named: str
) -> None:
    config = examples.derive("everything", **change)
    children_before = children_of_this_process()
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("everything")
        assert pool.connected == ()
        assert len(pool.snapshot()) == 0
        assert children_of_this_process() <= children_before

    assert refused.value.alias == "everything"
    (reason,) = refused.value.reasons
    assert reason.startswith("R2: ") and repr(named) in reason, reason
