"""The admin API's approvals over real HTTP: a call waits, an operator lists, reads and decides
its request with who and why, and the retried call runs once (SQLite file and PostgreSQL)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import BETA_TOOLS, demo_server, write_config
from tests.serve.test_admin import Served, serve_admin
from toolpool import Ticket
from toolpool.calls import Envelope, Session
from toolpool.store import SecretKey, Store

WRITE = "mcp__demo_beta__write_note"
_CONNECT_S = 60  # a real demo server starts (Python start-up, the MCP handshake)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store.open(store_url, key=SecretKey.generate())
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def served(store: Store, tmp_path: Path) -> Iterator[Served]:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": "each_call"}}
    write_config(tmp_path, demo_server("demo_beta", "beta", beta))
    with serve_admin(store, config=tmp_path / "toolpool.toml") as running:
        assert running.pool is not None
        running.portal.call(_bounded, running.pool.connect, "demo_beta")
        yield running


async def _bounded(function: Any, *args: Any) -> Any:
    with anyio.fail_after(_CONNECT_S):
        return await function(*args)


def _session(served: Served) -> Session:
    assert served.pool is not None
    return served.portal.call(
        functools.partial(served.pool.session, "ana", Ticket.allow("beta.*", principal="ana"))
    )


def _write(served: Served, session: Session, text: str) -> Envelope:
    envelope: Envelope = served.on_loop(session.call, session.snapshot(), WRITE, {"text": text})
    return envelope


def test_an_operator_approves_a_call_over_http_and_its_retry_runs_once(served: Served) -> None:
    session = _session(served)
    waiting = _write(served, session, "via http")
    assert waiting.code == "approval_pending" and waiting.meta is not None
    approval_id = waiting.meta["approval_id"]
    with served.client(**{"X-Toolpool-Actor": "olga"}) as http:
        listed = http.get("/admin/approvals").json()
        assert [(row["id"], row["state"], row["principal"], row["tool"]) for row in listed] == [
            (approval_id, "pending", "ana", "write_note")
        ]
        one = http.get(f"/admin/approvals/{approval_id}").json()
        assert one["arguments"] == '{"text": "via http"}' and one["why"] == "tool_policy"
        expires = datetime.fromisoformat(one["expires_at"])
        assert one["session"] == session.id and expires == datetime.fromisoformat(waiting.meta["expires_at"])
        decided = http.post(f"/admin/approvals/{approval_id}/approve", json={"by": "olga", "reason": "fine"})
        assert decided.status_code == 200 and decided.json()["state"] == "approved"
        again = http.post(f"/admin/approvals/{approval_id}/deny", json={"by": "olga", "reason": "no"})
        assert again.status_code == 409
        assert again.json() == {"error": f"approval request {approval_id} is approved, not pending"}
        assert http.get("/admin/approvals").json() == []
        ran = _write(served, session, "via http")
        assert (ran.code, ran.text) == ("ok", "note-1")
        used = http.get("/admin/approvals", params={"state": "used"}).json()
        assert [row["id"] for row in used] == [approval_id] and used[0]["used_at"] is not None
        assert len(http.get("/admin/approvals", params={"all": "true"}).json()) == 1
        audit = http.get("/admin/audit", params={"limit": 1000}).json()["events"]
    decision = next(event for event in audit if event["action"] == "approval.approved")
    assert decision["actor"] == "admin:olga" and decision["detail"]["by"] == "olga"


def test_a_denial_over_http_is_final_and_bad_requests_are_refused(served: Served) -> None:
    session = _session(served)
    approval_id = _write(served, session, "deny me").meta["approval_id"]  # type: ignore[index]
    with served.client() as http:
        assert http.post(f"/admin/approvals/{approval_id}/deny", json={"by": "olga"}).status_code == 422
        blank = http.post(f"/admin/approvals/{approval_id}/deny", json={"by": "olga", "reason": " "})
        assert blank.status_code == 422
        denied = http.post(f"/admin/approvals/{approval_id}/deny", json={"by": "olga", "reason": "too risky"})
        assert denied.status_code == 200, denied.text
        assert denied.json()["decided_reason"] == "too risky"
        refused = _write(served, session, "deny me")
        assert refused.code == "denied" and "too risky" in refused.text
        missing = http.get("/admin/approvals/apr_doesnotexist")
        assert missing.status_code == 404 and "no approval request" in missing.json()["error"]
        assert http.get("/admin/approvals/not-an-id").status_code == 422
        assert http.get("/admin/approvals", params={"state": "maybe"}).status_code == 422
        assert http.get("/admin/approvals", params={"stat": "used"}).status_code == 422
        unknown = http.post("/admin/approvals/apr_doesnotexist/approve", json={"by": "a", "reason": "b"})
        assert unknown.status_code == 404
    with served.client() as http:
        http.headers.pop("Authorization")
        assert http.get("/admin/approvals").status_code == 401
        assert (
            http.post(f"/admin/approvals/{approval_id}/approve", json={"by": "a", "reason": "b"}).status_code
            == 401
        )
