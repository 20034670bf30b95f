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

    def set_secret(self, name: str, value: str, actor: str, *, principal: str = "") -> None:
        """Store (or replace) a secret, encrypted with the store's key: the pool-wide value, or
        with ``principal`` the value of a ``per_principal`` secret for that principal only.

        Raises:
            UsageError: no key, an empty value, or a name or principal outside 1-128 characters.
        """
        key = self._require_key()
        if not 1 <= len(name) <= 128 or storable(name) != name:
            raise UsageError("a secret's name must be 1 to 128 characters")
        if len(principal) > 128 or storable(principal) != principal:
            raise UsageError("a principal's name must be 1 to 128 characters")
        if not value:
            raise UsageError(f"secret {name!r} cannot be empty")
        token = key.encrypt(value)
        where = (secrets.c.name == name) & (secrets.c.principal == principal)
        with self._db.write() as tx:
            exists = tx.connection.scalar(select(secrets.c.name).where(where)) is not None
            detail: dict[str, object] = {"replaced": exists}
            if principal:
                detail["principal"] = principal
            tx.append(actor, "secret.set", name, detail)
            statement: Any
            if exists:
                statement = update(secrets).where(where)
            else:
                statement = insert(secrets).values(name=name, principal=principal, created_at=tx.at)
            tx.connection.execute(statement.values(token=token, changed_at=tx.at, changed_by=actor))
            _bump_secrets(tx)

    def secret(self, name: str, *, principal: str = "") -> str:
        """A secret's pool-wide value, or with ``principal`` that principal's own value.

        Raises:
            UsageError: no key, an unknown name (for that principal), or a token this key
                cannot decrypt.
        """
        key = self._require_key()
        where = (secrets.c.name == name) & (secrets.c.principal == principal)
        with self._db.read() as connection:
            token = connection.scalar(select(secrets.c.token).where(where))
        if token is None:
            owner = f" for principal {principal!r}" if principal else ""
            raise UsageError(f"there is no secret {name!r}{owner}")
        return key.decrypt(token, name)

    def secret_names(self) -> list[str]:
        """The names of the pool-wide secrets."""
        with self._db.read() as connection:
            query = select(secrets.c.name).where(secrets.c.principal == "").order_by(secrets.c.name)
            return list(connection.scalars(query))

    def secret_entries(self) -> list[tuple[str, str]]:
        """Every stored secret as (name, principal), ``""`` for a pool-wide value; never values."""
        with self._db.read() as connection:
            query = select(secrets.c.name, secrets.c.principal).order_by(secrets.c.name, secrets.c.principal)
            return [(row.name, row.principal) for row in connection.execute(query)]

    def delete_secret(self, name: str, actor: str, *, principal: str = "") -> None:
        """Remove a secret (the pool-wide value, or ``principal``'s own).

        Raises:
            UsageError: there is no such secret.
        """
        where = (secrets.c.name == name) & (secrets.c.principal == principal)
        with self._db.write() as tx:
            if tx.connection.execute(delete(secrets).where(where)).rowcount == 0:
                owner = f" for principal {principal!r}" if principal else ""
                raise UsageError(f"there is no secret {name!r}{owner}")
            _bump_secrets(tx)
            tx.append(actor, "secret.delete", name, {"principal": principal} if principal else {})

    def version(self) -> int:
        """A number that changes whenever any secret is set or deleted, in any process (one
        cheap read): whoever caches values checks it before trusting them."""
        return int(self._db.hot(self._db.gate.secrets_version_sql))

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
