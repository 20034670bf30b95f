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


def test_a_ticket_made_for_one_principal_is_denied_to_another() -> None:
    ticket = Ticket.allow("demo.*", principal="ana")
    assert authorize(ticket, "demo.lookup", None, NOW, principal="ana").allowed
    refused = authorize(ticket, "demo.lookup", None, NOW, principal="bob")
    assert refused.code == "denied" and "'ana'" in refused.reason and "'bob'" in refused.reason


def test_a_ticket_is_not_good_before_its_not_before() -> None:
    ticket = Ticket("ana", ("*",), not_before=NOW)
    early = authorize(ticket, "demo.lookup", None, NOW - timedelta(seconds=1))
    assert early.code == "denied" and "not valid yet" in early.reason
    assert authorize(ticket, "demo.lookup", None, NOW).allowed
    assert ticket.timed and not Ticket.allow("*").timed


def test_an_action_the_ticket_only_asks_for_needs_an_approval_and_is_still_shown() -> None:
    ticket = Ticket("ana", ("demo.lookup",), ask=("beta.*",))
    assert authorize(ticket, "demo.lookup", None, NOW).allowed
    asked = authorize(ticket, "beta.write_note", None, NOW)
    assert asked.code == "approval_pending" and asked.needs_approval and not asked.allowed
    assert authorize(ticket, "faulty.crash", None, NOW).code == "denied"
    assert ticket.shows_action("beta.write_note") and not ticket.shows_action("faulty.crash")


def test_asking_does_not_widen_the_resources_a_ticket_covers() -> None:
    ticket = Ticket("ana", (), resources=("k*",), ask=("demo.*",))
    assert authorize(ticket, "demo.lookup", "k1", NOW).needs_approval
    assert authorize(ticket, "demo.lookup", "x1", NOW).code == "denied"


def test_a_ticket_the_host_made_without_a_principal_is_good_in_any_session() -> None:
    ticket = Ticket.allow("demo.*")
    assert ticket.principal == "*"
    assert authorize(ticket, "demo.lookup", None, NOW, principal="bob").allowed
    assert authorize(Ticket("*", ("demo.*",)), "demo.lookup", None, NOW, principal="ana").allowed
