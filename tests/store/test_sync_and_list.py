"""``store.tools.sync_and_list`` writes only the aliases a sync changes, and leaves exactly what
a full ``sync_policies`` leaves: the same rows, the same release (or none) and the same audit
events, from any prior state; a release written by someone else between its read and its
write makes it sync everything."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolpool.config import ToolPolicy, WriteApproval
from toolpool.errors import PolicyRefusal, UsageError
from toolpool.store import SecretKey, Store, SyncedPolicy

from .conftest import postgres_schema
from .helpers import FORBIDDEN, imported, read, write

_CONFIG = "sha256:" + "c" * 64
_OTHER = "sha256:" + "d" * 64
_NAMES = ("lookup", "send", "fetch")
_examples = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def twins(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    """Two stores on one kind of database, to be brought into the same state."""
    key = SecretKey.generate()
    if request.param == "sqlite":
        urls = [f"sqlite:///{tmp_path / 'full.db'}", f"sqlite:///{tmp_path / 'diff.db'}"]
        stores = [Store.open(url, key=key) for url in urls]
        yield stores[0], stores[1]
        for store in stores:
            store.close()
        return
    with postgres_schema() as first, postgres_schema() as second:
        stores = [Store.open(url, key=key) for url in (first, second)]
        try:
            yield stores[0], stores[1]
        finally:
            for store in stores:
                store.close()


def _policy(
    action: str | bool, effect: str, enabled: bool, approved: bool, resource: Any, approval: str
) -> ToolPolicy:
    forbidden = action is False
    approval_given = approved or (enabled and effect == "write")
    return ToolPolicy.model_validate(
        {
            "action": False if forbidden else action,
            "effect": effect,
            "enabled": enabled and not forbidden,
            "write_approval": WriteApproval(by="ana", reason="ticket") if approval_given else None,
            "resource": resource,
            "approval": approval,
        }
    )


_policies = st.builds(
    _policy,
    st.sampled_from(["x.one", "x.two", False]),
    st.sampled_from(["read", "write"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, "{key}"]),
    st.sampled_from(["none", "each_call"]),
)
# alias (of 3) -> tool (of 3) -> policy: aliases and tools come and go between two configurations.
_configs = st.dictionaries(
    st.sampled_from(["p", "q", "r"]),
    st.dictionaries(st.sampled_from(_NAMES), _policies, max_size=3),
    max_size=3,
)
Config = dict[str, dict[str, ToolPolicy]]


@st.composite
def _config_pairs(draw: st.DrawFn) -> tuple[Config, Config]:
    """A configuration and the next one: most aliases kept, some edited (tools dropped, added
    or changed), some gone, some new; a random pair would rarely differ in one tool only."""
    before = draw(_configs)
    after: Config = {}
    for alias, tools in before.items():
        fate = draw(st.sampled_from(["same", "edited", "gone"]))
        if fate == "same":
            after[alias] = dict(tools)
        elif fate == "edited":
            kept = {name: policy for name, policy in tools.items() if draw(st.booleans())}
            after[alias] = kept | draw(st.dictionaries(st.sampled_from(_NAMES), _policies, max_size=1))
    for alias, tools in draw(_configs).items():
        after.setdefault(alias, tools)
    return before, after


_operations = st.lists(
    st.tuples(
        st.sampled_from(["import", "enable", "disable", "approve", "server_off", "server_on"]),
        st.sampled_from(["p", "q", "r"]),
        st.sampled_from(_NAMES),
    ),
    max_size=6,
)


def _apply(store: Store, operation: str, alias: str, name: str) -> None:
    """Someone else's change, as any process makes it; a refused one is audited and that is all."""
    try:
        if operation == "import":
            store.tools.record_import(alias, [imported(name)], actor="ana")
        elif operation == "enable":
            store.tools.enable(alias, name, actor="ana")
        elif operation == "disable":
            store.tools.disable(alias, name, actor="ana")
        elif operation == "approve":
            store.tools.approve_write(alias, name, "bo", "reviewed", actor="bo")
        else:
            store.tools.set_server_enabled(alias, operation == "server_on", actor="ana")
    except (PolicyRefusal, UsageError):
        pass


def _prefixed(
    config: Mapping[str, Mapping[str, ToolPolicy]], prefix: str
) -> dict[str, dict[str, ToolPolicy]]:
    return {f"{prefix}{alias}": dict(tools) for alias, tools in config.items()}


def _outcome(store: Store, prefix: str, audit_after: int) -> tuple[Any, ...]:
    """What a sync left, without the moments it and the changes before it ran at."""
    states = [
        (
            replace(state, write_approved_at=None, first_seen=None, last_seen=None),
            state.write_approved_at is None,
        )
        for state in store.tools.tool_states()
        if state.alias.startswith(prefix)
    ]
    release = store.releases.current_release()
    events = [
        (event.actor, event.action, event.resource, event.detail)
        for event in store.audit.audit_events(after_id=audit_after)
    ]
    return states, (release.number, release.change, release.content), events


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(configs=_config_pairs(), operations=_operations)
def test_sync_and_list_leaves_what_a_full_sync_leaves_from_any_prior_state(
    twins: tuple[Store, Store], configs: tuple[Config, Config], operations: list[tuple[str, str, str]]
) -> None:
    full, diff = twins
    before, after = configs
    # Each example has aliases of its own: the stores are shared by every example, and a sync
    # touches only the aliases it is given.
    number = next(_examples)
    prefix, config_hash = f"e{number}_", f"sha256:{number:064x}"
    for store in twins:
        store.tools.sync_policies(_prefixed(before, prefix), config_hash=_OTHER)
        for operation, alias, name in operations:
            _apply(store, operation, prefix + alias, name)
    marks = [store.audit.last_audit_id() for store in twins]
    policies = _prefixed(after, prefix)

    full.tools.sync_policies(policies, config_hash=config_hash)
    synced = {
        alias: {name: SyncedPolicy.of(policy) for name, policy in tools.items()}
        for alias, tools in policies.items()
    }
    listed = diff.tools.sync_and_list(synced, config_hash=config_hash)

    assert _outcome(diff, prefix, marks[1]) == _outcome(full, prefix, marks[0])
    assert dict(listed) == diff.tools.listed_states()
    assert diff.tools.is_synced(config_hash) and full.tools.is_synced(config_hash)


def test_a_sync_that_changes_nothing_writes_no_release_and_no_event(store: Store) -> None:
    policies = {"demo": {"lookup": read("demo.lookup", enabled=True), "send": write("demo.send")}}
    store.tools.sync_policies(policies)
    store.tools.disable("demo", "lookup", actor="ana")  # a release: the store is no longer known synced
    release, last = store.releases.version, store.audit.last_audit_id()

    plan = store.tools.plan_sync(policies, config_hash=_CONFIG)
    assert not plan.synced and plan.aliases == ()
    listed = store.tools.apply_sync(plan)

    assert store.releases.version == release
    assert [event.action for event in store.audit.audit_events(after_id=last)] == []
    assert not listed["demo", "lookup"].enabled  # the config's `enabled` did not change: ana's disable stays
    assert store.tools.is_synced(_CONFIG)
    assert store.tools.plan_sync(policies, config_hash=_CONFIG).synced


def test_only_the_aliases_that_differ_are_planned(store: Store) -> None:
    policies = {alias: {"lookup": read(f"{alias}.lookup")} for alias in ("a", "b", "c")}
    store.tools.sync_policies(policies)
    policies["b"] = {"lookup": FORBIDDEN}
    policies["d"] = {}  # a server the store does not know yet
    assert store.tools.plan_sync(policies, config_hash=_CONFIG).aliases == ("b", "d")


def test_a_release_written_between_the_read_and_the_write_makes_it_sync_everything(store_url: str) -> None:
    key = SecretKey.generate()
    policies = {"a": {"lookup": read("a.lookup")}, "b": {"lookup": read("b.lookup")}}
    with Store.open(store_url, key=key) as store, Store.open(store_url, key=key) as other:
        store.tools.sync_policies(policies)
        store.tools.enable("a", "lookup", actor="ana")
        plan = store.tools.plan_sync(policies, config_hash=_CONFIG)
        assert plan.aliases == ()  # in line, as read

        # Another process's sync of another configuration, committed before the write: it
        # forbids a/lookup (and so disables it). The plan alone would keep that.
        other.tools.sync_policies({"a": {"lookup": FORBIDDEN}}, config_hash=_OTHER)
        listed = store.tools.apply_sync(plan)

        states = {state.name: state for state in store.tools.tool_states("a")}
        assert states["lookup"].action == "a.lookup" and not states["lookup"].enabled
        assert listed == store.tools.listed_states()
        last = store.audit.audit_events()[-1]
        assert (last.action, last.resource) == ("policy.sync", "a")
        assert store.tools.is_synced(_CONFIG) and not store.tools.is_synced(_OTHER)
        # Nothing is left to change: a full sync of the same policies writes nothing.
        assert store.tools.sync_policies(policies) is None
