"""Secrets at rest (Fernet), the key file, and redaction."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from urllib.parse import quote

import pytest

from toolpool.errors import UsageError
from toolpool.store import SecretKey, Store

from .helpers import sql

TOKEN = "tok-3f9a/Zq+x 'quoted' \"double\""


def test_a_key_file_is_created_for_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "secret.key"
    key = SecretKey.generate()
    key.write_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SecretKey.read_file(path).to_text() == key.to_text()


def test_a_key_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "secret.key"
    SecretKey.generate().write_file(path)
    before = path.read_text()
    with pytest.raises(UsageError, match="already exists"):
        SecretKey.generate().write_file(path)
    assert path.read_text() == before


def test_a_key_file_that_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secret.key"
    SecretKey.generate().write_file(path)
    os.chmod(path, 0o644)
    with pytest.raises(UsageError, match="chmod 600"):
        SecretKey.read_file(path)


def test_a_missing_key_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read secret key file"):
        SecretKey.read_file(tmp_path / "nope.key")


def test_a_malformed_key_is_refused_without_repeating_it() -> None:
    with pytest.raises(UsageError, match="not a valid secret key") as caught:
        SecretKey.from_text("hunter2-is-not-a-key")
    assert "hunter2" not in str(caught.value)


def test_a_key_never_shows_itself() -> None:
    key = SecretKey.generate()
    assert key.to_text() not in repr(key) and key.to_text() not in str(key)


def test_a_secret_round_trips_and_is_encrypted_at_rest(store: Store, store_url: str) -> None:
    store.secrets.set_secret("tickets_token", TOKEN, actor="ana")
    assert store.secrets.secret("tickets_token") == TOKEN
    assert store.secrets.secret_names() == ["tickets_token"]
    [(token,)] = sql(store_url, "SELECT token FROM secrets")
    assert "tok-3f9a" not in token


def test_a_secret_can_be_replaced_and_deleted(store: Store) -> None:
    store.secrets.set_secret("a", "first-value", actor="ana")
    store.secrets.set_secret("a", "second-value", actor="ana")
    assert store.secrets.secret("a") == "second-value"
    store.secrets.delete_secret("a", actor="ana")
    assert store.secrets.secret_names() == []
    with pytest.raises(UsageError, match="no secret 'a'"):
        store.secrets.secret("a")
    with pytest.raises(UsageError, match="no secret 'a'"):
        store.secrets.delete_secret("a", actor="ana")


def test_an_empty_secret_is_refused(store: Store) -> None:
    with pytest.raises(UsageError, match="cannot be empty"):
        store.secrets.set_secret("a", "", actor="ana")


def test_without_a_key_secrets_are_unavailable_with_a_clear_error(store: Store, store_url: str) -> None:
    store.secrets.set_secret("a", "value-1234", actor="ana")
    with Store.open(store_url) as keyless:
        assert keyless.secrets.secret_names() == ["a"]
        with pytest.raises(UsageError, match="without a secret key"):
            keyless.secrets.secret("a")
        with pytest.raises(UsageError, match="without a secret key"):
            keyless.secrets.set_secret("b", "value", actor="ana")


def test_another_key_cannot_decrypt_a_secret(store: Store, store_url: str) -> None:
    store.secrets.set_secret("a", "value-1234", actor="ana")
    with (
        Store.open(store_url, key=SecretKey.generate()) as other,
        pytest.raises(UsageError, match="cannot be decrypted"),
    ):
        other.secrets.secret("a")


@pytest.mark.parametrize(
    "form",
    [
        TOKEN,
        json.dumps(TOKEN)[1:-1],
        quote(TOKEN, safe=""),
        base64.b64encode(TOKEN.encode()).decode().rstrip("="),
    ],
    ids=["raw", "json", "url", "base64"],
)
def test_redact_replaces_a_secret_value_and_its_encodings(store: Store, form: str) -> None:
    store.secrets.set_secret("tickets_token", TOKEN, actor="ana")
    assert (
        store.secrets.redact(f"upstream said: bad token {form}!")
        == "upstream said: bad token [secret:tickets_token]!"
    )


def test_redact_prefers_the_longer_of_two_overlapping_secrets(store: Store) -> None:
    store.secrets.set_secret("short", "abcd1234", actor="ana")
    store.secrets.set_secret("long", "abcd1234-and-more", actor="ana")
    assert store.secrets.redact("x abcd1234-and-more y abcd1234") == "x [secret:long] y [secret:short]"


def test_redact_knows_a_secret_set_through_another_store_object(
    store: Store, store_url: str, key: SecretKey
) -> None:
    assert store.secrets.redact("value-5678") == "value-5678"
    with Store.open(store_url, key=key) as other:
        other.secrets.set_secret("late", "value-5678", actor="ana")
    assert store.secrets.redact("value-5678") == "[secret:late]"


def test_audit_details_never_hold_a_secret_value(store: Store, store_url: str) -> None:
    store.secrets.set_secret("tickets_token", TOKEN, actor="ana")
    store.audit.audit(
        "pool",
        "call.denied",
        f"tickets/create?auth={TOKEN}",
        {"error": f"401: token {TOKEN} expired", TOKEN: [TOKEN, {"nested": quote(TOKEN, safe="")}]},
    )
    event = store.audit.audit_events()[-1]
    assert event.resource == "tickets/create?auth=[secret:tickets_token]"
    assert event.detail == {
        "error": "401: token [secret:tickets_token] expired",
        "[secret:tickets_token]": ["[secret:tickets_token]", {"nested": "[secret:tickets_token]"}],
    }
    dump = json.dumps(sql(store_url, "SELECT actor, action, resource, detail FROM audit_events"))
    assert "tok-3f9a" not in dump
    assert store.audit.verify_audit().ok
