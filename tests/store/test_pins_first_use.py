"""R7's trust on first use, for a server's tools all at once: one release however many tools a
server brings (a release per tool stored the whole state once per tool: a first connect of a
1,000-tool server wrote 1,000 releases), one audit event per tool pinned, and a pin somebody
made meanwhile — or in the configuration — is never replaced."""

from __future__ import annotations

import pytest

from toolpool.errors import UsageError
from toolpool.store import Store
from toolpool.store._pins import ConfigFirstPins
from toolpool.vetting.pins import MemoryPins, Pin

from .helpers import published, read

TOOLS = 120


def _definitions(
    count: int, description: str = "Looks a key up."
) -> list[tuple[str, dict[str, object], str]]:
    tools = [published(f"tool_{n:03d}", description) for n in range(count)]
    return [(tool.name, tool.definition(), tool.definition_hash()) for tool in tools]


def test_r7_a_servers_first_tools_are_pinned_in_one_release_with_an_event_each(store: Store) -> None:
    # One tool enabled before the server's first connect: its pin is in the release.
    store.tools.sync_policy("wide", {"tool_007": read("wide.tool_007", enabled=True)})
    before = store.releases.version
    release = store.pins.approve_first("wide", _definitions(TOOLS), actor="pool")
    assert release == before + 1 == store.releases.version
    assert (
        store.releases.release(release).content["tools"]["wide/tool_007"]["approved_hash"]
        == (_definitions(TOOLS)[7][2])
    )
    events = [event for event in store.audit.audit_events() if event.action == "tool.approve_pin"]
    assert sorted(event.resource for event in events) == [f"wide/tool_{n:03d}" for n in range(TOOLS)]
    assert {event.detail["release"] for event in events} == {release}
    for name, definition, definition_hash in _definitions(TOOLS):
        pin = store.pins.pin_of("wide", name)
        assert pin is not None and (pin.hash, pin.definition, pin.approved_by) == (
            definition_hash,
            definition,
            "pool",
        )
    assert store.pins.approve_first("wide", _definitions(TOOLS), actor="pool") is None  # all pinned
    assert store.releases.version == release


def test_r7_first_pins_of_disabled_tools_write_no_release_and_name_the_current_one(store: Store) -> None:
    """A release holds the enabled tools' pins only (R15's mapping): pinning a server's disabled
    tools changes nothing in it, so no release stores the whole state again."""
    store.pins.approve_first("other", _definitions(2), actor="pool")
    before = store.releases.version
    assert store.pins.approve_first("wide", _definitions(TOOLS), actor="pool") is None
    assert store.releases.version == before
    events = [event for event in store.audit.audit_events() if event.resource.startswith("wide/")]
    assert len(events) == TOOLS and {event.detail["release"] for event in events} == {before}
    assert store.pins.pin_of("wide", "tool_000") is not None


def test_r7_first_use_never_replaces_a_pin_made_meanwhile(store: Store, store_url: str) -> None:
    changed = published("tool_001", "Looks a key up, and more.")
    with Store.open(store_url) as other:  # another process approved a definition first
        other.pins.approve_pin("wide", "tool_001", changed.definition(), changed.definition_hash(), "bo")
    store.pins.approve_first("wide", _definitions(3), actor="pool")
    pin = store.pins.pin_of("wide", "tool_001")
    assert pin is not None and (pin.hash, pin.approved_by) == (changed.definition_hash(), "bo")
    assert {name for name in ("tool_000", "tool_002") if store.pins.pin_of("wide", name) is not None} == {
        "tool_000",
        "tool_002",
    }


def test_r7_first_use_with_one_bad_hash_pins_nothing(store: Store) -> None:
    definitions = _definitions(3)
    name, definition, _ = definitions[1]
    definitions[1] = (name, definition, "sha256:" + "0" * 64)
    before = store.releases.version
    with pytest.raises(UsageError, match="does not match"):
        store.pins.approve_first("wide", definitions, actor="pool")
    assert store.releases.version == before
    assert store.pins.pin_of("wide", "tool_000") is None


def test_r7_first_use_leaves_the_configurations_pins_to_the_configuration(store: Store) -> None:
    tools = [published(f"tool_{n:03d}") for n in range(3)]
    configured = {("wide", "tool_000"): "sha256:" + "1" * 64}
    pins = ConfigFirstPins(configured, store.pins.as_pins(actor="pool"))
    pins.trust_first("wide", tools)
    assert store.pins.pin_of("wide", "tool_000") is None  # the configuration's pin stays the one
    assert pins.pin_of("wide", "tool_000") == Pin("sha256:" + "1" * 64)
    assert (
        store.pins.pin_of("wide", "tool_001") is not None
        and store.pins.pin_of("wide", "tool_002") is not None
    )
    memory = MemoryPins(configured)
    memory.trust_first("wide", tools)
    assert memory.pin_of("wide", "tool_000") == Pin("sha256:" + "1" * 64)
    assert memory.pin_of("wide", "tool_001") == Pin(tools[1].definition_hash(), tools[1].definition())


def test_r7_a_servers_pins_are_read_at_once_as_one_by_one(store: Store) -> None:
    store.pins.approve_first("wide", _definitions(5), actor="pool")
    store.pins.approve_first("narrow", _definitions(2), actor="pool")
    at_once = store.pins.pins_of("wide")
    assert sorted(at_once) == [f"tool_{n:03d}" for n in range(5)]
    assert all(at_once[name] == store.pins.pin_of("wide", name) for name in at_once)
    configured = {("wide", "tool_000"): "sha256:" + "1" * 64, ("narrow", "tool_001"): "sha256:" + "2" * 64}
    pins = ConfigFirstPins(configured, store.pins.as_pins(actor="pool"))
    overlaid = pins.pins_of("wide")
    assert overlaid["tool_000"] == Pin("sha256:" + "1" * 64) == pins.pin_of("wide", "tool_000")
    assert {name: overlaid[name] for name in overlaid if name != "tool_000"} == {
        name: pin for name, pin in at_once.items() if name != "tool_000"
    }
    assert store.pins.pins_of("nobody") == {}
