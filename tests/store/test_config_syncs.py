"""The store remembers which configuration text a sync brought it in line with, until the next
release; and lists every tool's state in one query (``toolpool tools`` at 100,000 tools)."""

from __future__ import annotations

import pytest

from toolpool.errors import UsageError
from toolpool.store import ListedState, Store

from .helpers import FORBIDDEN, imported, read

CONFIG = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64


def test_a_sync_with_its_config_hash_is_remembered_until_the_next_release(store: Store) -> None:
    assert not store.tools.is_synced(CONFIG)
    store.tools.sync_policies({"demo": {"lookup": read("demo.lookup")}}, config_hash=CONFIG)
    assert store.tools.is_synced(CONFIG)
    assert not store.tools.is_synced(OTHER)

    store.tools.record_import("demo", [imported("lookup")], actor="ana")  # a release
    assert not store.tools.is_synced(CONFIG)
    assert store.tools.sync_policies({"demo": {"lookup": read("demo.lookup")}}, config_hash=CONFIG) is None
    assert store.tools.is_synced(CONFIG)

    store.tools.enable("demo", "lookup", actor="ana")  # another process's change: a release
    assert not store.tools.is_synced(CONFIG)


def test_another_configurations_sync_that_changes_the_store_forgets_the_first(store: Store) -> None:
    store.tools.sync_policies({"demo": {"lookup": read("demo.lookup")}}, config_hash=CONFIG)
    store.tools.sync_policies({"demo": {"lookup": FORBIDDEN}}, config_hash=OTHER)
    assert store.tools.is_synced(OTHER)
    assert not store.tools.is_synced(CONFIG)


def test_a_sync_that_changes_nothing_keeps_both_configurations_synced(store: Store) -> None:
    policies = {"demo": {"lookup": read("demo.lookup")}}
    store.tools.sync_policies(policies, config_hash=CONFIG)
    assert store.tools.sync_policies(policies, config_hash=OTHER) is None
    assert store.tools.is_synced(CONFIG) and store.tools.is_synced(OTHER)


def test_a_config_hash_that_is_not_a_sha256_is_refused_before_anything_is_written(store: Store) -> None:
    with pytest.raises(UsageError, match="not a configuration hash"):
        store.tools.sync_policies({"demo": {"lookup": read("demo.lookup")}}, config_hash="md5:00")
    assert store.tools.tool_states() == []


def test_listed_states_agree_with_tool_states(store: Store) -> None:
    store.tools.record_import(
        "demo", [imported("lookup"), imported("odd", verdict="drop", reasons=("hidden ✓ text",))], actor="ana"
    )
    store.tools.sync_policies({"demo": {"lookup": read("demo.lookup"), "odd": FORBIDDEN, "new": read("n")}})
    store.tools.enable("demo", "lookup", actor="ana")
    listed = store.tools.listed_states()
    full = store.tools.tool_states()
    assert sorted(listed) == [(state.alias, state.name) for state in full]
    for state in full:
        assert listed[state.alias, state.name] == ListedState(
            state.enabled,
            state.approved_hash,
            state.current_hash,
            state.verdict,
            state.reasons,
            state.write_approved_by,
        )
    assert listed["demo", "lookup"].enabled and listed["demo", "odd"].reasons == ("hidden ✓ text",)
    assert listed["demo", "new"].current_hash is None
