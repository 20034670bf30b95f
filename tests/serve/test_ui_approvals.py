"""The web UI's approvals page: over plain HTTP (login, CSRF, a reason required, escaping) and
in Chromium, where a call's request appears live (from the audit tail, as in the service),
the operator approves it with a reason, and the retried call runs once."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.sync_api import Page, expect

from tests.helpers import BETA_TOOLS, demo_server, write_config
from tests.serve.test_ui_browser import CHROMIUM, browser, page  # noqa: F401 (fixtures)
from tests.serve.ui_helpers import TOKEN, UiServer, csrf_of, log_in, serve_ui
from toolpool import Ticket
from toolpool.calls import Envelope, Session
from toolpool.serve._service import AuditTail
from toolpool.store import SecretKey, Store

WRITE = "mcp__demo_beta__write_note"
_CONNECT_S = 60  # a real demo server starts (Python start-up, the MCP handshake)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}", key=SecretKey.generate()) as opened:
        yield opened


@pytest.fixture
def served(store: Store, tmp_path: Path) -> Iterator[UiServer]:
    beta = {**BETA_TOOLS, "write_note": {**BETA_TOOLS["write_note"], "approval": "each_call"}}
    write_config(tmp_path, demo_server("demo_beta", "beta", beta))
    with serve_ui(store, config=tmp_path / "toolpool.toml") as running:
        assert running.pool is not None
        running.portal.call(_bounded, running.pool.connect, "demo_beta")
        tail = running.portal.start_task_soon(AuditTail(store, running.hub, interval_s=0.1).run)
        try:
            yield running
        finally:
            tail.cancel()


async def _bounded(function: Any, *args: Any) -> Any:
    with anyio.fail_after(_CONNECT_S):
        return await function(*args)


def _session(served: UiServer) -> Session:
    assert served.pool is not None
    ticket = Ticket.allow("beta.*", principal="ana")
    return served.portal.call(functools.partial(served.pool.session, "ana", ticket))


def _write(served: UiServer, session: Session, text: str) -> Envelope:
    envelope: Envelope = served.portal.call(_bounded, session.call, session.snapshot(), WRITE, {"text": text})
    return envelope


def _pending(served: UiServer, session: Session, text: str) -> str:
    envelope = _write(served, session, text)
    assert envelope.code == "approval_pending" and envelope.meta is not None
    return str(envelope.meta["approval_id"])


def test_the_approvals_page_needs_a_login_a_csrf_token_and_a_reason(store: Store, served: UiServer) -> None:
    session = _session(served)
    approval_id = _pending(served, session, "<b>bold</b> move")
    with served.client() as anonymous:
        assert anonymous.get("/approvals").status_code == 303
        assert anonymous.get("/approvals/events").status_code == 401
        refused = anonymous.post(f"/approvals/{approval_id}/approve", data={"reason": "x", "csrf": "x"})
        assert refused.status_code == 303 and refused.headers["location"] == "/ui/login"
    with served.client() as client:
        log_in(client, "olga")
        listed = client.get("/approvals")
        assert f'data-approval="{approval_id}"' in listed.text
        assert "&lt;b&gt;bold&lt;/b&gt; move" in listed.text and "<b>bold</b>" not in listed.text
        forged = client.post(f"/approvals/{approval_id}/approve", data={"reason": "ok", "csrf": "forged"})
        assert forged.status_code == 403
        csrf = csrf_of(client, "/approvals")
        blank = client.post(f"/approvals/{approval_id}/deny", data={"reason": "  ", "csrf": csrf})
        assert blank.status_code == 303
        assert "a reason (--reason) is needed" in client.get("/approvals").text
        found = store.approvals.get(approval_id)
        assert found is not None and found.state == "pending"
        denied = client.post(f"/approvals/{approval_id}/deny", data={"reason": "not today", "csrf": csrf})
        assert denied.status_code == 303
        after = client.get("/approvals").text
        assert f"{approval_id} denied" in after and 'data-state="denied"' in after
    decided = store.approvals.get(approval_id)
    assert decided is not None and (decided.decided_by, decided.decided_reason) == ("ui:olga", "not today")
    assert _write(served, session, "<b>bold</b> move").code == "denied"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing")
def test_an_operator_sees_a_request_arrive_live_and_approves_it_in_the_browser(
    store: Store,
    served: UiServer,
    page: Page,  # noqa: F811 (the fixture imported above)
) -> None:
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.goto(served.url + "/login")
    page.get_by_label("Admin token").fill(TOKEN)
    page.get_by_label("Your name, for the audit log (optional)").fill("olga")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Approvals").click()
    pending = page.locator("#approvals-pending")
    expect(pending).to_have_attribute("data-state", "open")
    expect(page.get_by_text("No call is waiting for approval.")).to_be_visible()
    served.wait_subscribers(1)

    session = _session(served)
    approval_id = _pending(served, session, "ship the release")
    request = page.locator(f'section[data-approval="{approval_id}"]')
    expect(request).to_be_visible()  # arrived live, without a reload
    expect(request.locator('[data-field="arguments"]')).to_have_text('{"text": "ship the release"}')
    expect(request.locator('[data-field="principal"]')).to_have_text("ana")
    expect(page.get_by_text("No call is waiting for approval.")).to_be_hidden()

    other = _pending(served, session, "and the notes")
    expect(page.locator(f'section[data-approval="{other}"]')).to_be_visible()
    request.get_by_label("Reason").fill("release day")
    request.get_by_role("button", name="Approve").click()
    expect(page.get_by_role("status")).to_contain_text(f"{approval_id} approved")
    expect(request).to_have_count(0)
    expect(page.locator(f'section[data-approval="{other}"]')).to_be_visible()

    ran = _write(served, session, "ship the release")
    assert (ran.code, ran.text) == ("ok", "note-1")
    assert _write(served, session, "ship the release").code == "approval_pending"
    decided = store.approvals.get(approval_id)
    assert decided is not None and decided.state == "used" and decided.decided_by == "ui:olga"
    assert problems == []
