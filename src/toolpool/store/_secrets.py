"""The store's secrets: encrypted at rest with the store's key, and redacted wherever the
store writes or shows text (audit events, ``redact``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select, update

from toolpool.errors import UsageError
from toolpool.store._codec import storable
from toolpool.store._crypto import SecretKey
from toolpool.store._database import Database, Tx
from toolpool.store._tables import secrets, store_head

__all__ = ["Secrets"]


class Secrets:
    """Named secret values: ``store.secrets``. Without a key only ``redact`` works."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def set_secret(self, name: str, value: str, actor: str) -> None:
        """Store (or replace) a secret, encrypted with the store's key.

        Raises:
            UsageError: no key, an empty value, or a name outside 1-128 characters.
        """
        key = self._require_key()
        if not 1 <= len(name) <= 128 or storable(name) != name:
            raise UsageError("a secret's name must be 1 to 128 characters")
        if not value:
            raise UsageError(f"secret {name!r} cannot be empty")
        token = key.encrypt(value)
        with self._db.write() as tx:
            exists = tx.connection.scalar(select(secrets.c.name).where(secrets.c.name == name)) is not None
            tx.append(actor, "secret.set", name, {"replaced": exists})
            statement: Any
            if exists:
                statement = update(secrets).where(secrets.c.name == name)
            else:
                statement = insert(secrets).values(name=name, created_at=tx.at)
            tx.connection.execute(statement.values(token=token, changed_at=tx.at, changed_by=actor))
            _bump_secrets(tx)

    def secret(self, name: str) -> str:
        """A secret's value.

        Raises:
            UsageError: no key, an unknown name, or a token this key cannot decrypt.
        """
        key = self._require_key()
        with self._db.read() as connection:
            token = connection.scalar(select(secrets.c.token).where(secrets.c.name == name))
        if token is None:
            raise UsageError(f"there is no secret {name!r}")
        return key.decrypt(token, name)

    def secret_names(self) -> list[str]:
        with self._db.read() as connection:
            return list(connection.scalars(select(secrets.c.name).order_by(secrets.c.name)))

    def delete_secret(self, name: str, actor: str) -> None:
        """Remove a secret.

        Raises:
            UsageError: there is no such secret.
        """
        with self._db.write() as tx:
            if tx.connection.execute(delete(secrets).where(secrets.c.name == name)).rowcount == 0:
                raise UsageError(f"there is no secret {name!r}")
            _bump_secrets(tx)
            tx.append(actor, "secret.delete", name, {})

    def redact(self, text: str) -> str:
        """``text`` with every stored secret's value (raw, JSON-escaped, URL-encoded, base64)
        replaced by ``[secret:NAME]``. Without a key there is nothing this process could leak."""
        version = self._db.hot(self._db.gate.secrets_version_sql)
        return self._db.redactor(version)(text)

    def _require_key(self) -> SecretKey:
        if self._db.key is None:
            raise UsageError(
                "secrets are unavailable: the store was opened without a secret key "
                "(TOOLPOOL_SECRET_KEY or the key file that `toolpool init` creates)"
            )
        return self._db.key


def _bump_secrets(tx: Tx) -> None:
    """Tell every process's redactor that the secrets changed."""
    tx.head.secrets_version += 1
    tx.connection.execute(
        update(store_head).where(store_head.c.id == 1).values(secrets_version=tx.head.secrets_version)
    )
