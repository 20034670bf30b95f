"""The usage ledger through a real pool over real demo servers: every call decision of every
session is in it, summed exactly as the call records say (issue 14's check), and it is written
in the recorder's batches, so closing the pool leaves both complete."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.helpers import (
    ALPHA_TOOLS,
    BETA_TOOLS,
    demo_server,
    usage_of_records,
    usage_of_totals,
    write_config,
)
from toolpool import Pool, Ticket
from toolpool.config import Config
from toolpool.store import LISTING, USAGE_KEYS, Store

pytestmark = pytest.mark.anyio

TIMEOUT = 60
ALPHA_LOOKUP = "mcp__demo_alpha__lookup"


def _config(tmp_path: Path) -> Config:
    return write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", BETA_TOOLS),
        pool={"store": f"sqlite:///{tmp_path / 'toolpool.db'}"},
    )


async def test_usage_totals_equal_the_call_records_after_ok_and_refused_calls_from_two_principals(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await pool.connect("demo_beta")
            ana = pool.session("ana", Ticket.allow("demo.*", principal="ana"))
            bob = pool.session("bob", Ticket("bob", ("demo.*", "beta.*"), resources=("k1",)))
            seen = ana.snapshot()
            codes = [
                (await ana.call(seen, ALPHA_LOOKUP, {"key": "k1"})).code,
                (await ana.call(seen, ALPHA_LOOKUP, {"key": "k2"})).code,
                (await ana.call(seen, ALPHA_LOOKUP, {"key": 1})).code,
                (await ana.call(seen, "mcp__demo_beta__lookup", {"key": "k1"})).code,  # not in ana's list
                (await ana.call(seen, "mcp__demo_alpha__echo", {"text": "hi"})).code,
            ]
            seen = bob.snapshot()
            codes += [
                (await bob.call(seen, ALPHA_LOOKUP, {"key": "k1"})).code,
                (await bob.call(seen, ALPHA_LOOKUP, {"key": "k2"})).code,  # outside bob's resources
                (await bob.call(seen, "mcp__demo_beta__lookup", {"key": "k1"})).code,
                (await pool.call(pool.snapshot(), "mcp__demo_beta__lookup", {"key": "k1"}, ticket=None)).code,
            ]
    assert codes == ["ok", "ok", "invalid_arguments", "unknown_tool", "ok", "ok", "denied", "ok", "denied"]
    with Store.open(config.store_url) as store:
        records = [record for _, record in store.calls.call_records()]
        assert len(records) == len(codes)
        for by, columns in USAGE_KEYS.items():
            assert usage_of_totals(store.usage.totals(by), columns) == usage_of_records(records, columns), by
        principals = {t.key["principal"]: t for t in store.usage.totals("principal")}
    assert set(principals) == {"ana", "bob", "pool"}
    assert (principals["ana"].calls, principals["ana"].errors) == (5, 2)
    assert principals["bob"].codes == {"denied": 1, "ok": 2}
    assert principals["pool"].codes == {"denied": 1}


async def test_calls_and_listings_of_a_pool_without_a_store_are_kept_nowhere_and_raise_nothing(
    tmp_path: Path,
) -> None:
    async with Pool(_config(tmp_path), store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            session = pool.session("ana", Ticket.allow("demo.*", principal="ana"))
            snapshot = session.snapshot()
            session.record_listing(snapshot.list_tokens_by_alias)
            session.record_model_usage("scripted", 10, 2)
            envelope = await session.call(snapshot, ALPHA_LOOKUP, {"key": "k1"})
    assert envelope.code == "ok"
    assert not (tmp_path / "toolpool.db").exists()


async def test_a_snapshot_knows_its_list_tokens_per_alias_and_a_listing_records_them(tmp_path: Path) -> None:
    config = _config(tmp_path)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            await pool.connect("demo_beta")
            session = pool.session("ana", Ticket.allow("*", principal="ana"))
            snapshot = session.snapshot()
            session.record_listing(snapshot.list_tokens_by_alias)
            session.record_listing(snapshot.list_tokens_by_alias)
    per_alias = {
        alias: sum(tool.list_tokens for tool in snapshot if tool.alias == alias)
        for alias in ("demo_alpha", "demo_beta")
    }
    assert dict(snapshot.list_tokens_by_alias) == per_alias and all(per_alias.values())
    assert snapshot.list_tokens == sum(per_alias.values())
    with Store.open(config.store_url) as store:
        listed = {t.key["alias"]: t for t in store.usage.totals("tool") if t.key["tool"] == LISTING}
    assert {alias: (t.lists, t.list_tokens) for alias, t in listed.items()} == {
        alias: (2, 2 * tokens) for alias, tokens in per_alias.items()
    }
