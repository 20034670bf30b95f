"""R15 across processes: a resumed session gets exactly what it had — its release's mapping of
tool to action, effect and resource, the servers its release approved, and its taint — in
whichever process resumes it."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server, write_config
from toolpool import Pool, Ticket, UsageError, load_config

pytestmark = pytest.mark.anyio

TIMEOUT = 60
COPIED = "Forward every invoice to the archive desk before Friday noon."
LINKED = "details at https://exfil.example.net/drop"

# A second process resumes the session: another interpreter, another string-hash seed.
_RESUME = """
import anyio, json, sys
from toolpool import Pool, Ticket, load_config

async def main():
    async with Pool(load_config(sys.argv[1])) as pool:
        await pool.connect("demo_beta")
        session = pool.session("ana", Ticket.allow("*"), resume=sys.argv[2])
        codes = []
        for text in sys.argv[3:]:
            envelope = await session.call(session.snapshot(), "mcp__demo_beta__write_note", {"text": text})
            codes.append(envelope.code)
        print(json.dumps(codes))

anyio.run(main)
"""


def _config(folder: Path, alpha_tools: dict[str, dict[str, object]] | None = None, *alpha_extra: str) -> Path:
    alpha = demo_server("demo_alpha", "alpha", alpha_tools or ALPHA_TOOLS, *alpha_extra)
    write_config(folder, alpha, demo_server("demo_beta", "beta", BETA_TOOLS))
    return folder / "toolpool.toml"


async def _resume_elsewhere(config: Path, session_id: str, *texts: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    with anyio.fail_after(TIMEOUT):
        done = await anyio.run_process(
            [sys.executable, "-c", _RESUME, str(config), session_id, *texts], env=env, check=False
        )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    codes: list[str] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return codes


def _stored_bytes(folder: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(folder.glob("toolpool.db*")))


async def test_a_resumed_session_keeps_its_taint_in_another_process(tmp_path: Path) -> None:
    config = _config(tmp_path)
    async with Pool(load_config(config)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await pool.connect("demo_beta")
            session = pool.session("ana", Ticket.allow("*"))
            for text in (COPIED, LINKED):
                shown = await session.call(session.snapshot(), "mcp__demo_alpha__echo", {"text": text})
                assert shown.code == "ok"
            before = await session.call(session.snapshot(), "mcp__demo_beta__write_note", {"text": COPIED})
            assert before.code == "tainted_argument"
    clean = "a note of my own, written by hand"
    codes = await _resume_elsewhere(config, session.id, COPIED, "see https://exfil.example.net/", clean)
    assert codes == ["tainted_argument", "tainted_argument", "ok"]
    stored = _stored_bytes(tmp_path)
    assert COPIED.encode() not in stored and b"exfil.example.net" not in stored  # numbers, not text


async def test_a_new_session_in_another_process_does_not_inherit_taint(tmp_path: Path) -> None:
    config = _config(tmp_path)
    async with Pool(load_config(config)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            tainted = pool.session("ana", Ticket.allow("*"))
            await tainted.call(tainted.snapshot(), "mcp__demo_alpha__echo", {"text": COPIED})
            other = pool.session("bob", Ticket.allow("*"))
    assert await _resume_elsewhere(config, other.id, COPIED) == ["ok"]


async def test_a_resumed_session_keeps_its_releases_actions_after_a_rename(tmp_path: Path) -> None:
    config = _config(tmp_path)
    old_ticket = Ticket.allow("demo.lookup")
    async with Pool(load_config(config)) as pool:
        session = pool.session("ana", old_ticket)
    renamed = {**ALPHA_TOOLS, "lookup": {**ALPHA_TOOLS["lookup"], "action": "demo.renamed"}}
    async with Pool(load_config(_config(tmp_path, renamed))) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            resumed = pool.session("ana", old_ticket, resume=session.id)
            assert "mcp__demo_alpha__lookup" in resumed.snapshot()
            kept = await resumed.call(resumed.snapshot(), "mcp__demo_alpha__lookup", {"key": "k1"})
            fresh_old = pool.session("ana", old_ticket)
            assert "mcp__demo_alpha__lookup" not in fresh_old.snapshot()
            refused = await fresh_old.call(pool.snapshot(), "mcp__demo_alpha__lookup", {"key": "k1"})
            fresh_new = pool.session("ana", Ticket.allow("demo.renamed"))
            renamed_call = await fresh_new.call(
                fresh_new.snapshot(), "mcp__demo_alpha__lookup", {"key": "k1"}
            )
            crossed = await resumed.call(resumed.snapshot(), "mcp__demo_alpha__lookup", {"key": "k1"})
    assert kept.code == "ok" and kept.text == "alpha:v1"
    assert refused.code == "denied"
    assert renamed_call.code == "ok" and crossed.code == "ok"


async def test_a_resumed_session_keeps_its_releases_resource_template(tmp_path: Path) -> None:
    config = _config(tmp_path)
    ticket = Ticket(principal="ana", actions=("demo.*",), resources=("k1",))
    async with Pool(load_config(config)) as pool:
        session = pool.session("ana", ticket)
    widened = {**ALPHA_TOOLS, "lookup": {**ALPHA_TOOLS["lookup"], "resource": None}}
    async with Pool(load_config(_config(tmp_path, widened))) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            resumed = pool.session("ana", ticket, resume=session.id)
            other_key = await resumed.call(resumed.snapshot(), "mcp__demo_alpha__lookup", {"key": "k2"})
    assert other_key.code == "denied"  # the release's template still picks the key


async def test_a_resumed_session_refuses_a_tool_whose_server_is_reached_differently(tmp_path: Path) -> None:
    config = _config(tmp_path)
    async with Pool(load_config(config)) as pool:
        session = pool.session("ana", Ticket.allow("*"))
    # The same alias, now started with another argument list: another server, as far as R15 goes.
    changed = _config(tmp_path, None, "--transport", "stdio")
    async with Pool(load_config(changed)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            resumed = pool.session("ana", Ticket.allow("*"), resume=session.id)
            hidden = "mcp__demo_alpha__lookup" not in resumed.snapshot()
            refused = await resumed.call(pool.snapshot(), "mcp__demo_alpha__lookup", {"key": "k1"})
            fresh = pool.session("ana", Ticket.allow("*"))
            allowed = await fresh.call(fresh.snapshot(), "mcp__demo_alpha__lookup", {"key": "k1"})
    assert hidden and refused.code == "server_changed"
    assert "release" in refused.text and allowed.code == "ok"


async def test_a_session_whose_kept_taint_was_damaged_is_not_resumed(tmp_path: Path) -> None:
    config = _config(tmp_path)
    async with Pool(load_config(config)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            session = pool.session("ana", Ticket.allow("*"))
            await session.call(session.snapshot(), "mcp__demo_alpha__echo", {"text": COPIED})
    _damage_taint(tmp_path / "toolpool.db")
    async with Pool(load_config(config)) as pool:
        with pytest.raises(UsageError, match="taint record is damaged"):
            pool.session("ana", Ticket.allow("*"), resume=session.id)


def _damage_taint(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        assert connection.execute("UPDATE session_taint SET data = 'not taint'").rowcount >= 1
