"""R9's transition table (toolpool.enablement): complete, and what it allows."""

from __future__ import annotations

import pytest

from toolpool.enablement import TRANSITIONS, Event, Refusal, Standing, standing_of, transition


def test_r9_table_answers_every_standing_and_event() -> None:
    assert set(TRANSITIONS) == set(Standing)
    assert all(set(row) == set(Event) for row in TRANSITIONS.values())


@pytest.mark.parametrize("enabled", [False, True])
def test_r9_only_read_and_approved_write_tools_are_enabled_directly(enabled: bool) -> None:
    assert transition(Standing.READ, Event.ENABLE, enabled) is True
    assert transition(Standing.WRITE_APPROVED, Event.ENABLE, enabled) is True
    assert transition(Standing.WRITE_UNAPPROVED, Event.ENABLE, enabled) is Refusal.WRITE_NEEDS_APPROVAL
    assert transition(Standing.FORBIDDEN, Event.ENABLE, enabled) is Refusal.FORBIDDEN
    assert transition(Standing.FORBIDDEN, Event.APPROVE_WRITE, enabled) is Refusal.FORBIDDEN
    assert all(transition(standing, Event.DISABLE, enabled) is False for standing in Standing)


def test_r9_a_policy_change_disables_what_it_no_longer_allows_and_keeps_the_rest() -> None:
    assert transition(Standing.READ, Event.POLICY_CHANGED, True) is True
    assert transition(Standing.READ, Event.POLICY_CHANGED, False) is False
    assert transition(Standing.WRITE_UNAPPROVED, Event.POLICY_CHANGED, True) is False
    assert transition(Standing.FORBIDDEN, Event.POLICY_CHANGED, True) is False


def test_r9_standing_puts_forbidden_before_effect() -> None:
    assert standing_of(forbidden=True, effect="read", write_approved=True) is Standing.FORBIDDEN
    assert standing_of(forbidden=False, effect="read", write_approved=False) is Standing.READ
    assert standing_of(forbidden=False, effect="write", write_approved=False) is Standing.WRITE_UNAPPROVED
    assert standing_of(forbidden=False, effect="write", write_approved=True) is Standing.WRITE_APPROVED
