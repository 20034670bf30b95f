"""Approval of single calls (countersigning), through the library: a call that needs a person's
approval returns ``approval_pending``; once approved, the same call in the same session by the
same principal runs once; anything else asks again or stays refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import ALPHA_TOOLS, BETA_TOOLS, demo_server, write_config
from toolpool import Pool, Ticket, UsageError
from toolpool.config import Config
from toolpool.store import Store

pytestmark = pytest.mark.anyio

TIMEOUT = 60
WRITE = "mcp__demo_beta__write_note"
LOOKUP = "mcp__demo_beta__lookup"
ALPHA_LOOKUP = "mcp__demo_alpha__lookup"


def _config(folder: Path, **pool: Any) -> Config:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": "each_call"}}
    return write_config(
        folder,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", beta),
        pool=pool,
    )


def _pending_id(envelope: Any) -> str:
    assert envelope.code == "approval_pending", envelope
    approval_id = envelope.meta["approval_id"]
    assert approval_id.startswith("apr_") and len(approval_id) == 26
    assert approval_id in envelope.text
    return str(approval_id)


async def test_an_approved_call_runs_once_and_the_next_one_needs_a_new_approval(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            first = await session.call(session.snapshot(), WRITE, {"text": "hello"})
            approval_id = _pending_id(first)
            assert first.meta is not None and datetime.fromisoformat(first.meta["expires_at"])
            again = await session.call(session.snapshot(), WRITE, {"text": "hello"})
            assert _pending_id(again) == approval_id  # retries before a decision do not pile up
            assert pool.store is not None
            approvals = pool.store.approvals
            assert [a.id for a in approvals.list()] == [approval_id]
            assert '"text": "hello"' in approvals.list()[0].arguments
            approved = approvals.approve(approval_id, by="olga", reason="a harmless note")
            assert approved.state == "approved" and approved.decided_by == "olga"
            ran = await session.call(session.snapshot(), WRITE, {"text": "hello"})
            assert (ran.code, ran.text) == ("ok", "note-1")
            fresh = await session.call(session.snapshot(), WRITE, {"text": "hello"})
            assert _pending_id(fresh) != approval_id
            used = approvals.get(approval_id)
            assert used is not None and used.state == "used" and used.used_at is not None
            approvals.approve(_pending_id(fresh), by="olga", reason="once more")
            ran = await session.call(session.snapshot(), WRITE, {"text": "hello"})
            assert ran.text == "note-2"  # nothing ran upstream in between
        events = pool.store.audit.audit_events()
    actions = [event.action for event in events if event.resource == approval_id]
    assert actions == ["approval.requested", "approval.approved", "approval.used"]


async def test_a_changed_argument_needs_its_own_approval(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            approval_id = _pending_id(await session.call(session.snapshot(), WRITE, {"text": "pay 10"}))
            pool.store.approvals.approve(approval_id, by="olga", reason="ten is fine")
            other = await session.call(session.snapshot(), WRITE, {"text": "pay 1000"})
            assert _pending_id(other) != approval_id
            ran = await session.call(session.snapshot(), WRITE, {"text": "pay 10"})
            assert ran.code == "ok"


async def test_a_denial_is_final_for_its_call_and_says_why(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            approval_id = _pending_id(await session.call(session.snapshot(), WRITE, {"text": "rm -rf"}))
            pool.store.approvals.deny(approval_id, by="olga", reason="not on my watch")
            for _ in range(2):
                refused = await session.call(session.snapshot(), WRITE, {"text": "rm -rf"})
                assert refused.code == "denied"
                assert "an approver denied this call: not on my watch" in refused.text
                assert refused.meta == {"approval_id": approval_id, "expires_at": refused.meta["expires_at"]}
            with pytest.raises(UsageError, match="denied, not pending"):
                pool.store.approvals.approve(approval_id, by="olga", reason="changed my mind")
            other = await session.call(session.snapshot(), WRITE, {"text": "a kind note"})
            assert other.code == "approval_pending"


async def test_an_expired_approval_is_refused_and_the_retry_asks_again(tmp_path: Path) -> None:
    moment = [datetime.now(UTC)]
    async with Pool(_config(tmp_path, approval_ttl_s=60), clock=lambda: moment[0]) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            approval_id = _pending_id(await session.call(session.snapshot(), WRITE, {"text": "late"}))
            pool.store.approvals.approve(approval_id, by="olga", reason="in time")
            moment[0] += timedelta(seconds=61)
            late = await session.call(session.snapshot(), WRITE, {"text": "late"})
            assert _pending_id(late) != approval_id
            expired = pool.store.approvals.list("expired", at=moment[0])
            assert [approval.id for approval in expired] == [approval_id]
            assert expired[0].state_at(moment[0]) == "expired"


async def test_an_approval_binds_its_session_and_principal(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            ana = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            approval_id = _pending_id(await ana.call(ana.snapshot(), WRITE, {"text": "shared"}))
            pool.store.approvals.approve(approval_id, by="olga", reason="for ana")
            bob = pool.session("bob", Ticket.allow("beta.*", principal="bob"))
            assert _pending_id(await bob.call(bob.snapshot(), WRITE, {"text": "shared"})) != approval_id
            ana_again = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            elsewhere = await ana_again.call(ana_again.snapshot(), WRITE, {"text": "shared"})
            assert _pending_id(elsewhere) != approval_id
            ran = await ana.call(ana.snapshot(), WRITE, {"text": "shared"})
            assert ran.code == "ok"


async def test_two_racing_retries_of_one_approved_call_run_it_once(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            approval_id = _pending_id(await session.call(session.snapshot(), WRITE, {"text": "race"}))
            pool.store.approvals.approve(approval_id, by="olga", reason="once")
            codes: list[str] = []

            async def retry() -> None:
                codes.append((await session.call(session.snapshot(), WRITE, {"text": "race"})).code)

            async with anyio.create_task_group() as group:
                for _ in range(4):
                    group.start_soon(retry)
    assert sorted(codes) == ["approval_pending"] * 3 + ["ok"]


async def test_a_ticket_that_only_asks_for_an_action_runs_the_call_once_approved(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
            assert pool.store is not None
            asking = Ticket(principal="ana", actions=("beta.*",), ask=("demo.*",))
            session = pool.session("ana", asking)
            assert ALPHA_LOOKUP in session.snapshot()  # what it may ask for is shown (R10)
            approval_id = _pending_id(await session.call(session.snapshot(), ALPHA_LOOKUP, {"key": "k1"}))
            request = pool.store.approvals.get(approval_id)
            assert request is not None and request.why == "ticket_asks"
            assert request.binding.action == "demo.lookup" and request.binding.principal == "ana"
            pool.store.approvals.approve(approval_id, by="olga", reason="one lookup")
            ran = await session.call(session.snapshot(), ALPHA_LOOKUP, {"key": "k1"})
            assert (ran.code, ran.text) == ("ok", "alpha:v1")
            without = Ticket(principal="ana", actions=("beta.*",))
            plain = pool.session("ana", without)
            refused = await pool.call(pool.snapshot(), ALPHA_LOOKUP, {"key": "k1"}, ticket=without)
            assert refused.code == "denied" and ALPHA_LOOKUP not in plain.snapshot()


async def test_a_call_that_needs_approval_is_refused_by_a_pool_without_a_store(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path), store=False) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            refused = await pool.call(pool.snapshot(), WRITE, {"text": "x"}, ticket=Ticket.allow("beta.*"))
    assert refused.code == "denied" and "no store" in refused.text


async def test_the_approver_reads_the_arguments_with_every_secret_redacted(tmp_path: Path) -> None:
    from toolpool.store import SecretKey

    key = SecretKey.generate()
    config = _config(tmp_path)
    with Store.open(config.store_url, key=key) as store:
        store.secrets.set_secret("api_token", "s3cr3t-v4lue-123", actor="tests")
        async with Pool(config, store=store) as pool:
            with anyio.fail_after(TIMEOUT):
                await pool.connect("demo_beta")
                session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
                text = "token s3cr3t-v4lue-123 " + "x" * 10_000
                approval_id = _pending_id(await session.call(session.snapshot(), WRITE, {"text": text}))
        request = store.approvals.get(approval_id)
        assert request is not None
        assert "s3cr3t" not in request.arguments and "[secret:api_token]" in request.arguments
        assert len(request.arguments) == 4000


def test_a_decision_needs_who_and_why_and_a_pending_request(tmp_path: Path) -> None:
    config = _config(tmp_path)
    with Store.open(config.store_url) as store:
        with pytest.raises(UsageError, match="no approval request"):
            store.approvals.approve("apr_nope", by="olga", reason="why not")
        with pytest.raises(UsageError, match="reason"):
            store.approvals.deny("apr_nope", by="olga", reason="  ")
        with pytest.raises(UsageError, match="--by"):
            store.approvals.deny("apr_nope", by="", reason="no")
        with pytest.raises(UsageError, match="not an approval state"):
            store.approvals.list("maybe")  # type: ignore[arg-type]
        assert store.approvals.get("apr_nope") is None
        assert store.approvals.list(None) == ()


async def test_a_session_keeps_the_approval_rule_of_its_release(tmp_path: Path) -> None:
    """R15: the release records each tool's approval rule; a session opened under "each_call"
    still needs approval after the configuration drops it, while a new session does not."""
    async with Pool(_config(tmp_path)) as pool:
        assert pool.store is not None
        session_id = pool.session("ana", Ticket.allow("beta.*", principal="ana")).id
        content = pool.store.releases.current_release().content
        assert content["tools"]["demo_beta/write_note"]["approval"] == "each_call"
        assert "approval" not in content["tools"]["demo_beta/lookup"]
    relaxed = write_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        demo_server("demo_beta", "beta", BETA_TOOLS),
    )
    async with Pool(relaxed) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            ticket = Ticket.allow("beta.*", principal="ana")
            resumed = pool.session("ana", ticket, resume=session_id)
            kept = await resumed.call(resumed.snapshot(), WRITE, {"text": "old rules"})
            fresh = pool.session("ana", ticket)
            ran = await fresh.call(fresh.snapshot(), WRITE, {"text": "new rules"})
    assert kept.code == "approval_pending"
    assert (ran.code, ran.text) == ("ok", "note-1")


async def test_outside_a_session_an_approval_is_the_ticket_holders(tmp_path: Path) -> None:
    async with Pool(_config(tmp_path)) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            ana, bob = Ticket.allow("beta.*", principal="ana"), Ticket.allow("beta.*", principal="bob")
            asked = await pool.call(pool.snapshot(), WRITE, {"text": "x"}, ticket=ana)
            approval_id = _pending_id(asked)
            request = pool.store.approvals.get(approval_id)
            assert request is not None and request.binding.principal == "ana"
            pool.store.approvals.approve(approval_id, by="olga", reason="for ana")
            assert (
                _pending_id(await pool.call(pool.snapshot(), WRITE, {"text": "x"}, ticket=bob)) != approval_id
            )
            ran = await pool.call(pool.snapshot(), WRITE, {"text": "x"}, ticket=ana)
    assert ran.code == "ok"


async def test_an_approved_call_that_a_limit_refuses_keeps_its_approval_for_the_retry(tmp_path: Path) -> None:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": "each_call"}}
    config = write_config(tmp_path, demo_server("demo_beta", "beta", beta, rate="1/min", burst=1))
    now = [1000.0]
    async with Pool(config, monotonic=lambda: now[0]) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_beta")
            assert pool.store is not None
            session = pool.session("ana", Ticket.allow("beta.*", principal="ana"))
            approval_id = _pending_id(await session.call(session.snapshot(), WRITE, {"text": "hi"}))
            pool.store.approvals.approve(approval_id, by="olga", reason="fine")
            spent = await session.call(session.snapshot(), LOOKUP, {"key": "k1"})
            assert spent.code == "ok"  # the alias's one token is gone
            limited = await session.call(session.snapshot(), WRITE, {"text": "hi"})
            assert limited.code == "rate_limited"
            kept = pool.store.approvals.get(approval_id)
            assert kept is not None and kept.state == "approved"  # a refused call spends no approval
            now[0] += 60
            ran = await session.call(session.snapshot(), WRITE, {"text": "hi"})
            assert (ran.code, ran.text) == ("ok", "note-1")
            used = pool.store.approvals.get(approval_id)
            assert used is not None and used.state == "used"
        events = pool.store.audit.audit_events()
    actions = [event.action for event in events if event.resource == approval_id]
    assert actions == [
        "approval.requested",
        "approval.approved",
        "approval.used",
        "approval.given_back",
        "approval.used",
    ]
