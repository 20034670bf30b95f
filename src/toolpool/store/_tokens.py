"""Bearer tokens for the gateway's HTTP front: made here, kept only as a hash.

A token is ``tp_`` and 43 URL-safe characters (256 random bits). The store keeps its sha256,
never the token, so a copy of the database grants nothing; a presented token is looked up
by its hash. Each token names a principal (``token:NAME``) and what it grants: action globs
and resource globs, as a ``Ticket`` takes them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, delete, insert, select

from toolpool.errors import UsageError
from toolpool.store._codec import canonical
from toolpool.store._database import Database
from toolpool.store._tables import tokens

__all__ = [
    "TokenHolder",
    "Tokens",
    "all_tokens",
    "delete_token",
    "holder_of",
    "insert_token",
    "plausible",
    "token_hash",
]

_PREFIX = "tp_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# Globs are local policy written by a person: printable, no whitespace, bounded.
_GLOB = re.compile(r"^[!-~]{1,256}$")
_MAX_GLOBS = 64
# Anything longer than this cannot be one of ours; it is refused without a lookup.
_MAX_TOKEN_CHARS = 256
# Token holders remembered by their row; a store has a handful of tokens.
_HOLDERS_KEPT = 256


@dataclass(frozen=True, slots=True)
class TokenHolder:
    """Who a bearer token stands for, and what it grants. Never carries the token or its hash."""

    name: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    created_at: datetime
    created_by: str

    @property
    def principal(self) -> str:
        """The principal that calls made with this token are recorded under."""
        return f"token:{self.name}"


class Tokens:
    """Bearer tokens for the gateway's HTTP front: ``store.tokens``."""

    def __init__(self, database: Database) -> None:
        self._db = database
        self._holders: dict[tuple[Any, ...], TokenHolder] = {}

    def add_token(self, name: str, actions: Sequence[str], resources: Sequence[str], actor: str) -> str:
        """Make a bearer token granting ``actions`` on ``resources``; returns it (only its hash is kept).

        Raises:
            UsageError: a bad name or glob, no action, or a token of that name exists.
        """
        with self._db.write() as tx:
            token, grants = insert_token(tx.connection, name, actions, resources, tx.at, actor)
            tx.append(actor, "token.add", name, grants)
        return token

    def token_holder(self, token: str) -> TokenHolder | None:
        """Who ``token`` stands for, looked up by its hash; None if unknown or revoked.

        It runs before every HTTP request, so it reads the token's row on the gate's raw
        connection (no SQLAlchemy, no thread hop needed), on SQLite from memory while nothing
        was committed since it was read (``Database.found_row``), and reuses the holder made
        for the same row before: a revoked or re-made token still changes the answer at once.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        if not plausible(token):
            return None
        wanted = token_hash(token)
        row = self._db.found_row(self._db.gate.token_sql, (wanted,))
        if row is None or not hmac.compare_digest(row[0], wanted):
            return None
        key = tuple(row)
        holder = self._holders.get(key)
        if holder is None:
            with self._db.read() as connection:
                holder = holder_of(connection, token)
            if holder is None:  # revoked between the two reads
                return None
            if len(self._holders) >= _HOLDERS_KEPT:
                self._holders.clear()
            self._holders[key] = holder
        return holder

    def tokens(self) -> list[TokenHolder]:
        """Every token's name and grants, by name (never a token or a hash)."""
        with self._db.read() as connection:
            return all_tokens(connection)

    def revoke_token(self, name: str, actor: str) -> None:
        """Revoke a token at once: the next request that presents it is refused.

        Raises:
            UsageError: there is no such token.
        """
        with self._db.write() as tx:
            delete_token(tx.connection, name)
            tx.append(actor, "token.revoke", name, {})


def token_hash(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def insert_token(
    connection: Connection,
    name: str,
    actions: Sequence[str],
    resources: Sequence[str],
    at: datetime,
    actor: str,
) -> tuple[str, dict[str, object]]:
    """Make a token for ``name``; returns it with the audit detail of its grants.

    Raises:
        UsageError: a bad name or glob, no action, or a token of that name exists.
    """
    grants = {"actions": _globs("--allow", actions), "resources": _globs("--resource", resources)}
    if not _NAME.match(name):
        raise UsageError(f"not a token name: {name[:80]!r} (letters, digits, '.', '_', '-'; at most 64)")
    if connection.scalar(select(tokens.c.name).where(tokens.c.name == name)) is not None:
        raise UsageError(f"a token named {name!r} exists; revoke it first")
    token = _PREFIX + secrets.token_urlsafe(32)
    connection.execute(
        insert(tokens).values(
            name=name,
            token_hash=token_hash(token),
            actions=canonical(grants["actions"]),
            resources=canonical(grants["resources"]),
            created_at=at,
            created_by=actor,
        )
    )
    return token, dict(grants)


def plausible(token: str) -> bool:
    """Whether ``token`` could be one of ours at all (else it is refused without a lookup)."""
    return token.startswith(_PREFIX) and len(token) <= _MAX_TOKEN_CHARS


def holder_of(connection: Connection, token: str) -> TokenHolder | None:
    """The holder of ``token``, or None for a token the store does not know (or revoked)."""
    if not plausible(token):
        return None
    wanted = token_hash(token)
    row = connection.execute(select(tokens).where(tokens.c.token_hash == wanted)).one_or_none()
    if row is None or not hmac.compare_digest(row.token_hash, wanted):
        return None
    return _holder(row)


def all_tokens(connection: Connection) -> list[TokenHolder]:
    return [_holder(row) for row in connection.execute(select(tokens).order_by(tokens.c.name))]


def delete_token(connection: Connection, name: str) -> None:
    """Raises UsageError if there is no token of that name."""
    if connection.execute(delete(tokens).where(tokens.c.name == name)).rowcount == 0:
        raise UsageError(f"there is no token {name!r}")


def _holder(row: Row[Any]) -> TokenHolder:
    return TokenHolder(
        name=row.name,
        actions=tuple(json.loads(row.actions)),
        resources=tuple(json.loads(row.resources)),
        created_at=row.created_at,
        created_by=row.created_by,
    )


def _globs(option: str, globs: Sequence[str]) -> list[str]:
    chosen = list(dict.fromkeys(globs))
    if not chosen:
        raise UsageError(f"a token needs at least one {option} GLOB")
    if len(chosen) > _MAX_GLOBS:
        raise UsageError(f"a token takes at most {_MAX_GLOBS} {option} globs")
    for glob in chosen:
        if not _GLOB.match(glob):
            raise UsageError(f"not a glob for {option}: {glob[:80]!r} (printable, no spaces, at most 256)")
    return chosen
