"""Tickets and authorize(): a pure function of ticket, action, resource and time (gate 4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from toolpool import Ticket, authorize

NOW = datetime(2026, 12, 2, tzinfo=UTC)


def test_allow_grants_the_action_globs_on_any_resource_without_expiry() -> None:
    ticket = Ticket.allow("demo.*", "beta.lookup")
    assert authorize(ticket, "demo.lookup", "anything", NOW).allowed
    assert authorize(ticket, "beta.lookup", None, NOW).allowed
    assert authorize(ticket, "beta.write_note", None, NOW).code == "denied"


def test_resources_are_matched_against_the_ticket_patterns() -> None:
    ticket = Ticket("ana", ("files.read",), resources=("/srv/public/*",))
    assert authorize(ticket, "files.read", "/srv/public/a.txt", NOW).allowed
    assert authorize(ticket, "files.read", "/etc/passwd", NOW).code == "denied"


def test_an_expired_ticket_is_refused_with_its_own_code() -> None:
    ticket = Ticket("ana", ("*",), expires_at=NOW)
    assert authorize(ticket, "demo.lookup", None, NOW - timedelta(seconds=1)).allowed
    assert authorize(ticket, "demo.lookup", None, NOW).code == "ticket_expired"


def test_no_ticket_is_denied() -> None:
    assert authorize(None, "demo.lookup", None, NOW).code == "denied"


def test_tickets_are_values() -> None:
    assert Ticket.allow("a.*") == Ticket.allow("a.*")
    assert hash(Ticket.allow("a.*")) == hash(Ticket.allow("a.*"))
