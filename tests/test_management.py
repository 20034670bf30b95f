"""The pool with its store: gate 3 from the store (also across processes), releases and
sessions (R15), secrets resolved at connect and never leaked, and every call audited.
Each runs on SQLite and on the real PostgreSQL."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, READ, demo_server, scripted_server, tool_def, write_config, write_spec
from toolpool import Pool, Ticket
from toolpool.store import SecretKey, Store

pytestmark = pytest.mark.anyio

ANY = Ticket.allow("*")
TIMEOUT = 60
TOKEN = "tok_5e4d3c2b1a09"


def _alpha(tmp_path: Path, store_url: str, **tools: dict[str, object]) -> Path:
    write_config(
        tmp_path, demo_server("demo_alpha", "alpha", {**ALPHA_TOOLS, **tools}), pool={"store": store_url}
    )
    return tmp_path / "toolpool.toml"


async def test_r9_tools_the_config_enables_are_synced_into_the_store_as_actor_config(
    tmp_path: Path, store_url: str
) -> None:
    config = write_config(
        tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS), pool={"store": store_url}
    )
    async with Pool(config) as pool:
        assert pool.store is not None
        states = {state.name: state for state in pool.store.tools.tool_states("demo_alpha")}
        synced = [event for event in pool.store.audit.audit_events() if event.actor == "config"]
    assert all(states[name].enabled for name in ALPHA_TOOLS)
    assert synced


async def test_gate3_a_disable_from_another_process_takes_effect_on_the_next_call(
    tmp_path: Path, store_url: str
) -> None:
    config_path = _alpha(tmp_path, store_url)
    from toolpool import load_config

    async with Pool(load_config(config_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            snapshot = pool.snapshot()
            before = await pool.call(snapshot, "mcp__demo_alpha__echo", {"text": "a"}, ticket=ANY)
            command = [
                sys.executable,
                "-m",
                "toolpool",
                "disable",
                "demo_alpha",
                "echo",
                "--config",
                str(config_path),
            ]
            disabled = await anyio.run_process(command, check=False, env={**os.environ, "NO_COLOR": "1"})
            after = await pool.call(snapshot, "mcp__demo_alpha__echo", {"text": "a"}, ticket=ANY)
        assert "mcp__demo_alpha__echo" not in pool.snapshot()
    assert disabled.returncode == 0, disabled.stderr
    assert (before.code, after.code) == ("ok", "tool_disabled")


async def test_r15_a_session_keeps_its_release_and_disables_apply_at_once(
    tmp_path: Path, store_url: str
) -> None:
    tools = {"echo": {"action": "demo.echo", "effect": "read"}}  # imported but not enabled
    config = write_config(
        tmp_path, demo_server("demo_alpha", "alpha", {**ALPHA_TOOLS, **tools}), pool={"store": store_url}
    )
    async with Pool(config) as pool:
        assert pool.store is not None
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            early = pool.session("ana", ANY)
            pool.store.tools.enable("demo_alpha", "echo", "tests")
            late = pool.session("bob", ANY)
            assert "mcp__demo_alpha__echo" not in early.snapshot()  # an addition: new sessions only
            assert "mcp__demo_alpha__echo" in late.snapshot()
            sneaked = await early.call(late.snapshot(), "mcp__demo_alpha__echo", {"text": "x"})
            assert sneaked.code == "unknown_tool"  # not even through another session's snapshot

            snapshot = early.snapshot()
            pool.store.tools.disable("demo_alpha", "lookup", "tests")
            refused = await early.call(snapshot, "mcp__demo_alpha__lookup", {"key": "k1"})
            assert refused.code == "tool_disabled"  # a disable: at once, for everyone

            resumed = pool.session("ana", ANY, resume=early.id)
            assert resumed.release == early.release
            assert "mcp__demo_alpha__echo" not in resumed.snapshot()


async def test_secrets_from_the_store_are_resolved_at_connect_and_never_leaked(
    tmp_path: Path, store_url: str
) -> None:
    key = SecretKey.generate()
    spec = write_spec(tmp_path, pages=[[tool_def("whoami")]], echo_env="TOKEN", echo_as="is_error")
    table = scripted_server("s", spec, {"whoami": {"action": "whoami", **READ}}).replace(
        'env = { "PYTHONCOERCECLOCALE" = "0" }',
        'env = { "PYTHONCOERCECLOCALE" = "0", "TOKEN" = { secret = "api_token" } }',
    )
    config = write_config(tmp_path, table, pool={"store": store_url})
    with Store.open(store_url, key=key) as store:
        store.secrets.set_secret("api_token", TOKEN, "tests")
        async with Pool(config, store=store) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("s")
                envelope = await pool.call(pool.snapshot(), "mcp__s__whoami", {}, ticket=ANY)
        events = store.audit.audit_events()
    assert envelope.code == "mcp_remote_error"
    assert "[secret:api_token]" in envelope.audit_detail and TOKEN not in repr(envelope)
    call_event = next(event for event in events if event.action == "call")
    assert "[secret:api_token]" in str(call_event.detail)
    assert TOKEN not in repr(events)


async def test_every_call_decision_is_an_audit_event_and_a_call_record(
    tmp_path: Path, store_url: str
) -> None:
    config = write_config(
        tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS), pool={"store": store_url}
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            session = pool.session("ana", Ticket.allow("demo.lookup"))
            snapshot = session.snapshot()
            await session.call(snapshot, "mcp__demo_alpha__lookup", {"key": "k1"})
            await session.call(snapshot, "mcp__demo_alpha__lookup", {"key": 7})
            await session.call(snapshot, "mcp__demo_alpha__nothing", {})
    # Leaving the pool flushed its records; the store is read as another process would.
    with Store.open(store_url) as store:
        calls = [event for event in store.audit.audit_events() if event.action == "call"]
        stats = {row.tool: row for row in store.calls.call_stats()}
        verified = store.audit.verify_audit()
    assert [event.detail["code"] for event in calls] == ["ok", "invalid_arguments", "unknown_tool"]
    assert {event.actor for event in calls} == {"ana"}
    assert stats["lookup"].calls == 2 and dict(stats["lookup"].codes) == {"ok": 1, "invalid_arguments": 1}
    assert verified.ok
