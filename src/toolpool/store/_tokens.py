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
from toolpool.store._tables import tokens

__all__ = [
    "TokenHolder",
    "all_tokens",
    "delete_token",
    "holder_of",
    "insert_token",
    "plausible",
    "token_hash",
    "token_row_sql",
]

_PREFIX = "tp_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# Globs are local policy written by a person: printable, no whitespace, bounded.
_GLOB = re.compile(r"^[!-~]{1,256}$")
_MAX_GLOBS = 64
# Anything longer than this cannot be one of ours; it is refused without a lookup.
_MAX_TOKEN_CHARS = 256


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


def token_row_sql(mark: str) -> str:
    """The raw read of a token's row by its hash (``mark``: the driver's placeholder); its
    first column is the hash, the whole row tells whether the token changed."""
    return (
        "SELECT token_hash, name, actions, resources, created_at, created_by "  # noqa: S608
        f"FROM tokens WHERE token_hash = {mark}"
    )


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
