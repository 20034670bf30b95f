"""A sync of many aliases (a pool's start at 20,000 servers) reads first what it would change
and writes only that: it leaves exactly what a sync of every alias leaves — rows, spec hashes,
release (or none) and audit events — from any prior state, writes nothing when nothing
differs, and syncs everything when a release came in between its read and its write."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolpool.config import ToolPolicy
from toolpool.store import SecretKey, Store, _sync_diff

from .helpers import FORBIDDEN, read
from .test_sync_and_list import Config, _apply, _config_pairs, _operations, _outcome, _prefixed, twins

__all__ = ["twins"]  # the fixture: two stores on one kind of database

_examples = itertools.count()
_HASHES = ("sha256:" + "1" * 64, "sha256:" + "2" * 64)
_spec_hashes = st.dictionaries(st.sampled_from(["p", "q", "r", "s"]), st.sampled_from(_HASHES), max_size=4)


def _planned(store: Store, monkeypatch: pytest.MonkeyPatch, planned: bool, *args: Any, **kwargs: Any) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(_sync_diff, "PLAN_ABOVE", -1 if planned else 1 << 30)
        return store.tools.sync_policies(*args, **kwargs)


def _servers(store: Store, prefix: str) -> list[tuple[str, str | None, bool]]:
    release = store.releases.current_release()
    return sorted(
        (alias, spec_hash, alias in release.content.get("disabled_servers", []))
        for alias, spec_hash in release.content.get("servers", {}).items()
        if alias.startswith(prefix)
    )


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    configs=_config_pairs(),
    hashes=st.tuples(_spec_hashes, _spec_hashes),
    operations=_operations,
)
def test_a_planned_sync_leaves_what_a_sync_of_every_alias_leaves_from_any_prior_state(
    twins: tuple[Store, Store],
    monkeypatch: pytest.MonkeyPatch,
    configs: tuple[Config, Config],
    hashes: tuple[Mapping[str, str], Mapping[str, str]],
    operations: list[tuple[str, str, str]],
) -> None:
    full, planned = twins
    before, after = configs
    number = next(_examples)
    prefix = f"e{number}_"
    hashes_before, hashes_after = ({prefix + alias: h for alias, h in each.items()} for each in hashes)
    for store in twins:
        store.tools.sync_policies(_prefixed(before, prefix), spec_hashes=hashes_before)
        for operation, alias, name in operations:
            _apply(store, operation, prefix + alias, name)
    marks = [store.audit.last_audit_id() for store in twins]
    policies = _prefixed(after, prefix)

    written = _planned(full, monkeypatch, False, policies, spec_hashes=hashes_after)
    planned_written = _planned(planned, monkeypatch, True, policies, spec_hashes=hashes_after)

    assert (planned_written is None) == (written is None)
    assert _outcome(planned, prefix, marks[1]) == _outcome(full, prefix, marks[0])
    assert _servers(planned, prefix) == _servers(full, prefix)


def test_a_planned_sync_that_changes_nothing_opens_no_write(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    policies: dict[str, dict[str, ToolPolicy]] = {
        f"a{i}": {"lookup": read(f"a{i}.lookup", enabled=True)} for i in range(3)
    }
    hashes = {alias: _HASHES[0] for alias in policies}
    store.tools.sync_policies(policies, spec_hashes=hashes)
    store.tools.disable("a1", "lookup", actor="ana")
    release, last = store.releases.version, store.audit.last_audit_id()

    def no_write() -> None:
        raise AssertionError("a sync that changes nothing took the write lock")

    with monkeypatch.context() as patch:
        patch.setattr(store._db, "write", no_write)  # the write lock is what this is about
        assert _planned(store, monkeypatch, True, policies, spec_hashes=hashes) is None

    assert store.releases.version == release and store.audit.last_audit_id() == last
    assert not store.tools.is_enabled("a1", "lookup")  # ana's disable stays, as a full sync leaves it


def test_a_planned_sync_writes_a_moved_spec_hash_and_nothing_else(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    policies = {alias: {"lookup": read(f"{alias}.lookup")} for alias in ("a", "b", "c")}
    store.tools.sync_policies(policies, spec_hashes=dict.fromkeys(policies, _HASHES[0]))
    last = store.audit.last_audit_id()

    moved = {**dict.fromkeys(policies, _HASHES[0]), "b": _HASHES[1]}
    assert _planned(store, monkeypatch, True, policies, spec_hashes=moved) is not None

    events = store.audit.audit_events(after_id=last)
    assert [(event.action, event.resource) for event in events] == [("policy.sync", "b")]
    assert store.releases.current_release().content["servers"]["b"] == _HASHES[1]


def test_a_release_between_the_planned_read_and_the_write_makes_it_sync_everything(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = SecretKey.generate()
    policies = {"a": {"lookup": read("a.lookup")}, "b": {"lookup": read("b.lookup")}}
    with Store.open(store_url, key=key) as store, Store.open(store_url, key=key) as other:
        store.tools.sync_policies({**policies, "b": {"lookup": FORBIDDEN}})
        read_plan, raced = _sync_diff.changed_aliases, []

        def plan_then_race(*args: Any) -> Any:
            planned = read_plan(*args)
            if raced:  # the other process's own sync
                return planned
            raced.append(True)
            assert planned[1] == ("b",)
            # Another process's sync, committed after the read: it forbids a/lookup.
            other.tools.sync_policies({"a": {"lookup": FORBIDDEN}})
            return planned

        with monkeypatch.context() as patch:
            patch.setattr(_sync_diff, "changed_aliases", plan_then_race)
            _planned(store, monkeypatch, True, policies)

        actions = {state.alias: state.action for state in store.tools.tool_states()}
        assert actions == {"a": "a.lookup", "b": "b.lookup"}  # a too: the write synced everything
        assert store.tools.sync_policies(policies) is None
