"""Releases and sessions (R15): every management change is a numbered, hashed release."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import pytest

from toolpool.config import ToolPolicy
from toolpool.errors import UsageError
from toolpool.store import Store

from .helpers import imported, published, read, write


@pytest.fixture
def demo(store: Store) -> Store:
    store.tools.record_import("demo", [imported("lookup"), imported("send")], actor="ana")
    store.tools.sync_policy("demo", {"lookup": read("demo.lookup"), "send": write("demo.send")})
    return store


def test_a_new_store_has_release_one_with_nothing_enabled(store: Store) -> None:
    first = store.releases.current_release()
    assert first.number == 1 and store.releases.version == 1
    assert first.content == {"tools": {}, "disabled_servers": [], "servers": {}}


def test_r15_every_management_change_makes_the_next_release(demo: Store) -> None:
    tool = published("lookup")
    changes: list[Callable[[], None]] = [
        lambda: demo.tools.enable("demo", "lookup", "ana"),
        lambda: demo.tools.approve_write("demo", "send", "bo", "reports", "ana"),
        lambda: demo.tools.disable("demo", "send", "ana"),
        lambda: demo.tools.set_server_enabled("demo", False, "ana"),
        lambda: demo.pins.approve_pin("demo", "lookup", tool.definition(), tool.definition_hash(), "ana"),
        lambda: demo.tools.record_import("demo", [imported("lookup", "New words.")], "ana"),
        lambda: demo.tools.sync_policy("demo", {"lookup": read("demo.lookup2"), "send": write("demo.send")}),
    ]
    for change in changes:
        before = demo.releases.current_release().number
        change()
        assert demo.releases.current_release().number == before + 1


def test_r15_a_release_holds_every_enabled_tool_and_the_disabled_servers(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", "ana")
    demo.tools.approve_write("demo", "send", "bo", "reports", "ana")
    demo.tools.set_server_enabled("other", False, "ana")
    release = demo.releases.current_release()
    assert release.content == {
        "tools": {
            "demo/lookup": {
                "action": "demo.lookup",
                "effect": "read",
                "resource": None,
                "approved_hash": None,
            },
            "demo/send": {"action": "demo.send", "effect": "write", "resource": None, "approved_hash": None},
        },
        "disabled_servers": ["other"],
        "servers": {},
    }
    assert release.actor == "ana" and release.change == "server.disable other"
    canonical = json.dumps(release.content, sort_keys=True, separators=(",", ":"))
    assert release.content_hash == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def test_r15_a_release_holds_each_tools_resource_template_and_each_servers_spec_hash(demo: Store) -> None:
    spec_hash = "sha256:" + "ab" * 32
    policy = ToolPolicy(action="demo.lookup", effect="read", enabled=True, resource="{key}")
    demo.tools.sync_policy("demo", {"lookup": policy}, spec_hash=spec_hash)
    content = demo.releases.current_release().content
    assert content["tools"]["demo/lookup"]["resource"] == "{key}"
    assert content["servers"] == {"demo": spec_hash}
    before = demo.releases.current_release().number
    demo.tools.sync_policy("demo", {"lookup": policy}, spec_hash=spec_hash)
    assert demo.releases.current_release().number == before  # nothing changed: no release


def test_r15_an_old_release_stays_as_it_was(demo: Store) -> None:
    demo.tools.enable("demo", "lookup", "ana")
    old = demo.releases.current_release()
    demo.tools.disable("demo", "lookup", "ana")
    assert demo.releases.release(old.number) == old
    assert old.includes("demo", "lookup") and not demo.releases.current_release().includes("demo", "lookup")


def test_an_unknown_release_is_a_usage_error(store: Store) -> None:
    with pytest.raises(UsageError, match="no release 99"):
        store.releases.release(99)


def test_r15_a_session_keeps_the_release_it_started_with(demo: Store, store_url: str) -> None:
    session_id, number = demo.releases.open_session("ana")
    assert number == demo.releases.current_release().number
    demo.tools.enable("demo", "lookup", "ana")
    later_id, later = demo.releases.open_session("bo")
    assert later == number + 1 and later_id != session_id
    with Store.open(store_url) as resumed:
        assert resumed.releases.session_release(session_id) == number
        assert resumed.releases.session_release(later_id) == later
    assert not demo.releases.release(number).includes("demo", "lookup")


def test_an_unknown_session_has_no_release(store: Store) -> None:
    assert store.releases.session_release("nope") is None
