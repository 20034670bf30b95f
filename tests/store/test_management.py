"""Import, sync from the configuration, enable, approve and disable (R9), and gate 3."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from toolpool.errors import PolicyRefusal, UsageError
from toolpool.store import Store, StoredPin

from .helpers import FORBIDDEN, imported, published, read, write


@pytest.fixture
def demo(store: Store) -> Store:
    store.tools.record_import("demo", [imported("lookup"), imported("send"), imported("wipe")], actor="ana")
    store.tools.sync_policy(
        "demo", {"lookup": read("demo.lookup"), "send": write("demo.send"), "wipe": FORBIDDEN}
    )
    return store


def _actions(store: Store) -> list[str]:
    return [event.action for event in store.audit.audit_events()]


def test_r9_imported_tools_start_disabled_with_their_screening_verdict(store: Store) -> None:
    tools = [imported("lookup"), imported("evil", verdict="drop", score=2.5, reasons=("R5: injection",))]
    store.tools.record_import("demo", tools, actor="ana")
    states = {state.name: state for state in store.tools.tool_states()}
    assert not states["lookup"].enabled and not store.tools.is_enabled("demo", "lookup")
    assert states["lookup"].current_hash == tools[0].definition_hash and states["lookup"].verdict == "pass"
    assert (states["evil"].verdict, states["evil"].score, states["evil"].reasons) == (
        "drop",
        2.5,
        ("R5: injection",),
    )
    assert states["lookup"].action is None and states["lookup"].effect == "write"


def test_reimporting_keeps_first_seen_and_moves_last_seen_and_the_current_hash(store: Store) -> None:
    store.tools.record_import("demo", [imported("lookup")], actor="ana")
    first = store.tools.tool_states()[0]
    changed = imported("lookup", "Looks a key up, now differently.")
    store.tools.record_import("demo", [changed], actor="ana")
    second = store.tools.tool_states()[0]
    assert second.first_seen == first.first_seen
    assert first.last_seen is not None and second.last_seen is not None and second.last_seen > first.last_seen
    assert second.current_hash == changed.definition_hash != first.current_hash


def test_an_import_that_changes_nothing_is_audited_but_makes_no_release(store: Store) -> None:
    store.tools.record_import("demo", [imported("lookup")], actor="ana")
    version = store.releases.version
    store.tools.record_import("demo", [imported("lookup")], actor="ana")
    assert store.releases.version == version
    assert _actions(store)[-2:] == ["tool.import", "tool.import"]


def test_sync_policy_enables_what_the_config_enables_as_actor_config(store: Store) -> None:
    store.tools.record_import("demo", [imported("lookup"), imported("send")], actor="ana")
    store.tools.sync_policy(
        "demo",
        {"lookup": read("demo.lookup", enabled=True), "send": write("demo.send", enabled=True, by="bo")},
    )
    states = {state.name: state for state in store.tools.tool_states()}
    assert store.tools.is_enabled("demo", "lookup") and store.tools.is_enabled("demo", "send")
    assert states["send"].write_approved_by == "bo" and states["send"].write_approved_reason == "ticket 7"
    assert states["lookup"].action == "demo.lookup" and states["lookup"].effect == "read"
    assert (
        store.audit.audit_events()[-1].actor == "config"
        and store.releases.current_release().actor == "config"
    )


def test_sync_policy_is_idempotent(demo: Store) -> None:
    policies = {"lookup": read("demo.lookup", enabled=True), "send": write("demo.send"), "wipe": FORBIDDEN}
    demo.tools.sync_policy("demo", policies)
    version, events = demo.releases.version, len(demo.audit.audit_events())
    demo.tools.sync_policy("demo", policies)
    assert (demo.releases.version, len(demo.audit.audit_events())) == (version, events)


def test_sync_policy_does_not_undo_a_later_disable(demo: Store) -> None:
    policies = {"lookup": read("demo.lookup", enabled=True), "send": write("demo.send"), "wipe": FORBIDDEN}
    demo.tools.sync_policy("demo", policies)
    demo.tools.disable("demo", "lookup", actor="ana")
    demo.tools.sync_policy("demo", policies)
    assert not demo.tools.is_enabled("demo", "lookup")


def test_sync_policy_disables_a_tool_whose_config_no_longer_enables_it(demo: Store) -> None:
    demo.tools.sync_policy("demo", {"lookup": read("demo.lookup", enabled=True), "send": write("demo.send")})
    assert demo.tools.is_enabled("demo", "lookup")
    demo.tools.sync_policy("demo", {"lookup": read("demo.lookup"), "send": write("demo.send")})
    assert not demo.tools.is_enabled("demo", "lookup")


def test_sync_policy_disables_a_tool_the_config_now_forbids(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", actor="ana")
    demo.tools.sync_policy("demo", {"lookup": FORBIDDEN, "send": write("demo.send"), "wipe": FORBIDDEN})
    assert not demo.tools.is_enabled("demo", "lookup")
    assert next(state for state in demo.tools.tool_states() if state.name == "lookup").action is None


def test_sync_policy_disables_a_tool_that_turned_into_an_unapproved_writer(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", actor="ana")
    demo.tools.sync_policy(
        "demo", {"lookup": write("demo.lookup"), "send": write("demo.send"), "wipe": FORBIDDEN}
    )
    assert not demo.tools.is_enabled("demo", "lookup")


def test_sync_policy_disables_a_tool_no_longer_in_the_config(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", actor="ana")
    demo.tools.sync_policy("demo", {"send": write("demo.send"), "wipe": FORBIDDEN})
    assert not demo.tools.is_enabled("demo", "lookup")


def test_r9_a_read_tool_can_be_enabled_directly(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", actor="ana")
    assert demo.tools.is_enabled("demo", "lookup")
    assert demo.releases.current_release().includes("demo", "lookup")


def test_r9_a_write_tool_without_approval_cannot_be_enabled_and_the_refusal_is_audited(demo: Store) -> None:
    with pytest.raises(PolicyRefusal, match="write approval"):
        demo.tools.enable("demo", "send", actor="ana")
    assert not demo.tools.is_enabled("demo", "send")
    assert demo.audit.audit_events()[-1].action == "tool.enable_refused"


def test_r6_a_forbidden_tool_cannot_be_enabled_or_approved(demo: Store) -> None:
    with pytest.raises(PolicyRefusal, match="forbidden"):
        demo.tools.enable("demo", "wipe", actor="ana")
    with pytest.raises(PolicyRefusal, match="forbidden"):
        demo.tools.approve_write("demo", "wipe", by="ana", reason="why not", actor="ana")
    assert not demo.tools.is_enabled("demo", "wipe")


def test_an_unknown_tool_is_a_usage_error(demo: Store) -> None:
    for change in (demo.tools.enable, demo.tools.disable):
        with pytest.raises(UsageError, match="unknown tool demo/nope"):
            change("demo", "nope", "ana")


def test_r9_approve_write_records_who_when_and_why_and_enables(demo: Store) -> None:
    demo.tools.approve_write("demo", "send", by="bo", reason="sends the weekly report", actor="ana")
    state = next(state for state in demo.tools.tool_states() if state.name == "send")
    assert state.enabled and demo.tools.is_enabled("demo", "send")
    assert (state.write_approved_by, state.write_approved_reason) == ("bo", "sends the weekly report")
    assert state.write_approved_at is not None
    assert demo.audit.audit_events()[-1].action == "tool.approve_write"


def test_an_approved_write_tool_can_be_disabled_and_enabled_again(demo: Store) -> None:
    demo.tools.approve_write("demo", "send", by="bo", reason="reports", actor="ana")
    demo.tools.disable("demo", "send", actor="ana")
    assert not demo.tools.is_enabled("demo", "send")
    demo.tools.enable("demo", "send", actor="ana")
    assert demo.tools.is_enabled("demo", "send")


@pytest.mark.parametrize(("by", "reason"), [("", "why"), ("bo", " ")])
def test_a_write_approval_needs_who_and_why(demo: Store, by: str, reason: str) -> None:
    with pytest.raises(UsageError, match="--by"):
        demo.tools.approve_write("demo", "send", by=by, reason=reason, actor="ana")


def test_gate3_disabling_a_server_disables_all_its_tools(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", actor="ana")
    demo.tools.set_server_enabled("demo", False, actor="ana")
    assert not demo.tools.is_enabled("demo", "lookup")
    assert not demo.tools.tool_states()[0].server_enabled
    assert demo.releases.current_release().content["disabled_servers"] == ["demo"]
    demo.tools.set_server_enabled("demo", True, actor="ana")
    assert demo.tools.is_enabled("demo", "lookup")


def test_gate3_an_unknown_tool_or_server_is_not_enabled(demo: Store) -> None:
    assert not demo.tools.is_enabled("demo", "nope")
    assert not demo.tools.is_enabled("nobody", "lookup")


def test_gate3_answers_from_many_threads(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", actor="ana")
    answers: list[bool] = []
    threads = [
        threading.Thread(target=lambda: answers.append(demo.tools.is_enabled("demo", "lookup")))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert answers == [True] * 8


def test_version_changes_with_every_management_change_and_only_then(demo: Store) -> None:
    seen = [demo.releases.version]
    demo.tools.enable("demo", "lookup", actor="ana")
    seen.append(demo.releases.version)
    demo.tools.enable("demo", "lookup", actor="ana")  # already enabled: no change
    demo.tools.tool_states()
    seen.append(demo.releases.version)
    demo.tools.disable("demo", "lookup", actor="ana")
    seen.append(demo.releases.version)
    assert seen[0] < seen[1] == seen[2] < seen[3]


def test_r7_a_pin_is_stored_with_its_definition_and_approver(demo: Store) -> None:
    assert demo.pins.pin_of("demo", "lookup") is None
    tool = published("lookup")
    demo.pins.approve_pin("demo", "lookup", tool.definition(), tool.definition_hash(), actor="ana")
    pin = demo.pins.pin_of("demo", "lookup")
    assert isinstance(pin, StoredPin) and pin.hash == tool.definition_hash()
    assert pin.definition == tool.definition() and pin.approved_by == "ana"
    assert (
        next(s for s in demo.tools.tool_states() if s.name == "lookup").approved_hash
        == tool.definition_hash()
    )


def test_r7_approving_the_same_pin_again_changes_nothing(demo: Store) -> None:
    tool = published("lookup")
    demo.pins.approve_pin("demo", "lookup", tool.definition(), tool.definition_hash(), actor="ana")
    version = demo.releases.version
    demo.pins.approve_pin("demo", "lookup", tool.definition(), tool.definition_hash(), actor="ana")
    assert demo.releases.version == version


def test_r7_a_pin_whose_hash_does_not_match_its_definition_is_refused(demo: Store) -> None:
    with pytest.raises(UsageError, match="does not match"):
        demo.pins.approve_pin(
            "demo", "lookup", published("lookup").definition(), "sha256:" + "0" * 64, actor="ana"
        )


def test_r7_the_store_serves_the_vetting_layers_pins_protocol(demo: Store) -> None:
    pins = demo.pins.as_pins(actor="pool")
    changed = published("lookup", "Looks a key up, then more.")
    pins.approve("demo", "lookup", changed)
    pin = pins.pin_of("demo", "lookup")
    assert (
        pin is not None and pin.hash == changed.definition_hash() and pin.definition == changed.definition()
    )


def test_the_era_of_an_alias_is_remembered(store: Store, store_url: str) -> None:
    assert store.tools.remembered_era("demo") is None
    store.tools.remember_era("demo", "legacy")
    with Store.open(store_url) as other:
        assert other.tools.remembered_era("demo") == "legacy"


def test_a_tool_name_or_hash_the_config_could_not_name_is_refused_before_the_database(store: Store) -> None:
    good = imported("lookup")
    for name in ("bad name; DROP TABLE", "x" * 129):
        with pytest.raises(UsageError, match="not a tool name"):
            store.tools.record_import("demo", [replace(good, name=name)], actor="ana")
    with pytest.raises(UsageError, match="not a definition hash"):
        store.tools.record_import("demo", [replace(good, definition_hash="md5:abc")], actor="ana")
    with pytest.raises(UsageError, match="not an alias"):
        store.tools.record_import("demo__x", [good], actor="ana")
    assert store.tools.tool_states() == []


def test_long_actor_and_approver_names_are_kept_whole(demo: Store) -> None:
    someone = "a" * 500
    demo.tools.approve_write("demo", "send", by=someone, reason="r" * 5000, actor=someone)
    state = next(state for state in demo.tools.tool_states() if state.name == "send")
    assert state.write_approved_by == someone and demo.releases.current_release().actor == someone
