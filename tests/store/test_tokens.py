"""Bearer tokens: made once, kept only as a hash, looked up by it, revoked at once, audited."""

from __future__ import annotations

import hashlib

import pytest

from toolpool.errors import UsageError
from toolpool.store import SecretKey, Store

from .helpers import sql


def test_a_new_token_is_returned_once_and_only_its_hash_is_stored(store: Store, store_url: str) -> None:
    token = store.tokens.add_token("ci", ["demo.*"], ["*"], actor="ana")
    rows = sql(store_url, "SELECT name, token_hash, actions, resources FROM tokens")
    assert rows == [("ci", "sha256:" + hashlib.sha256(token.encode()).hexdigest(), '["demo.*"]', '["*"]')]
    assert token not in repr(sql(store_url, "SELECT * FROM tokens"))
    assert token not in repr(sql(store_url, "SELECT * FROM audit_events"))


def test_a_token_names_its_holder_and_grants(store: Store) -> None:
    token = store.tokens.add_token("ci", ["demo.lookup", "beta.*"], ["k*"], actor="ana")
    holder = store.tokens.token_holder(token)
    assert holder is not None
    assert (holder.name, holder.principal, holder.actions, holder.resources, holder.created_by) == (
        "ci",
        "token:ci",
        ("demo.lookup", "beta.*"),
        ("k*",),
        "ana",
    )


@pytest.mark.parametrize("presented", ["", "tp_", "tp_wrong", "not-a-token", "tp_" + "x" * 400])
def test_an_unknown_token_has_no_holder(store: Store, presented: str) -> None:
    store.tokens.add_token("ci", ["*"], ["*"], actor="ana")
    assert store.tokens.token_holder(presented) is None


def test_each_token_is_different(store: Store) -> None:
    first = store.tokens.add_token("one", ["*"], ["*"], actor="ana")
    second = store.tokens.add_token("two", ["*"], ["*"], actor="ana")
    assert first != second and len(first) > 40
    assert [holder.name for holder in store.tokens.tokens()] == ["one", "two"]


def test_a_revoked_token_is_refused_at_once_and_its_name_is_free_again(store: Store) -> None:
    token = store.tokens.add_token("ci", ["*"], ["*"], actor="ana")
    store.tokens.revoke_token("ci", actor="ana")
    assert store.tokens.token_holder(token) is None and store.tokens.tokens() == []
    again = store.tokens.add_token("ci", ["demo.*"], ["*"], actor="ana")
    assert again != token and store.tokens.token_holder(again) is not None


def test_a_token_used_before_is_refused_at_once_when_another_process_revokes_it(
    store: Store, store_url: str, key: SecretKey
) -> None:
    token = store.tokens.add_token("ci", ["demo.*"], ["*"], actor="ana")
    assert store.tokens.token_holder(token) is not None and store.tokens.token_holder(token) is not None
    with Store.open(store_url, key=key) as other:
        other.tokens.revoke_token("ci", actor="bo")
        again = other.tokens.add_token("ci", ["beta.*"], ["k1"], actor="bo")
    assert store.tokens.token_holder(token) is None
    holder = store.tokens.token_holder(again)
    assert holder is not None and (holder.actions, holder.resources, holder.created_by) == (
        ("beta.*",),
        ("k1",),
        "bo",
    )


def test_adding_and_revoking_tokens_is_audited_without_the_token(store: Store) -> None:
    token = store.tokens.add_token("ci", ["demo.*"], ["*"], actor="ana")
    store.tokens.revoke_token("ci", actor="bo")
    events = [(e.actor, e.action, e.resource, dict(e.detail)) for e in store.audit.audit_events()[-2:]]
    assert events == [
        ("ana", "token.add", "ci", {"actions": ["demo.*"], "resources": ["*"]}),
        ("bo", "token.revoke", "ci", {}),
    ]
    assert token not in repr(store.audit.audit_events())
    assert store.audit.verify_audit().ok


@pytest.mark.parametrize(
    ("name", "actions", "resources", "message"),
    [
        ("ci", [], ["*"], "at least one --allow"),
        ("ci", ["*"], [], "at least one --resource"),
        ("bad name", ["*"], ["*"], "not a token name"),
        ("ci", ["demo .*"], ["*"], "not a glob"),
        ("x" * 65, ["*"], ["*"], "not a token name"),
    ],
)
def test_bad_token_requests_are_usage_errors(
    store: Store, name: str, actions: list[str], resources: list[str], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        store.tokens.add_token(name, actions, resources, actor="ana")
    assert store.tokens.tokens() == []


def test_a_token_name_is_taken_until_it_is_revoked(store: Store) -> None:
    store.tokens.add_token("ci", ["*"], ["*"], actor="ana")
    with pytest.raises(UsageError, match="exists"):
        store.tokens.add_token("ci", ["*"], ["*"], actor="ana")


def test_revoking_an_unknown_token_is_a_usage_error(store: Store) -> None:
    with pytest.raises(UsageError, match="no token 'ci'"):
        store.tokens.revoke_token("ci", actor="ana")
