"""The store's releases and sessions (R15): numbered, immutable versions of the management
state, and the release each session was bound to when it opened."""

from __future__ import annotations

from uuid import uuid4

from sqlalchemy import insert, select

from toolpool.errors import UsageError
from toolpool.store._changes import release_number, write_release
from toolpool.store._codec import storable
from toolpool.store._database import Database
from toolpool.store._rows import release_value
from toolpool.store._tables import releases, session_taint, sessions
from toolpool.store._values import Release

__all__ = ["Releases", "ensure_first_release"]

_FIRST_RELEASE_ACTOR = "store"


class Releases:
    """Releases and the sessions bound to them: ``store.releases``."""

    def __init__(self, database: Database) -> None:
        self._db = database

    @property
    def version(self) -> int:
        """Changes with every management change, in any process: the current release's number.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        return int(self._db.hot(self._db.gate.version_sql) or 0)

    def current_release(self) -> Release:
        with self._db.read() as connection:
            row = connection.execute(select(releases).order_by(releases.c.number.desc()).limit(1)).one()
        return release_value(row)

    def release(self, number: int) -> Release:
        """Release ``number``.

        Raises:
            UsageError: there is no such release.
        """
        with self._db.read() as connection:
            row = connection.execute(select(releases).where(releases.c.number == number)).one_or_none()
        if row is None:
            raise UsageError(f"there is no release {number}")
        return release_value(row)

    def open_session(self, principal: str) -> tuple[str, int]:
        """A new session bound to the current release: ``(session_id, release_number)``."""
        session_id = uuid4().hex
        with self._db.write() as tx:
            number = release_number(tx.connection)
            tx.connection.execute(
                insert(sessions).values(
                    id=session_id, principal=storable(principal), release=number, created_at=tx.at
                )
            )
            tx.append(principal, "session.open", session_id, {"release": number})
        return session_id, number

    def session_release(self, session_id: str) -> int | None:
        """The release a session was bound to when it opened, or None for an unknown id."""
        with self._db.read() as connection:
            return connection.scalar(select(sessions.c.release).where(sessions.c.id == session_id))

    def session_taint(self, session_id: str) -> list[str]:
        """What ``store.calls.record_calls`` kept of a session's taint, oldest first (opaque text)."""
        query = (
            select(session_taint.c.data)
            .where(session_taint.c.session_id == session_id)
            .order_by(session_taint.c.id)
        )
        with self._db.read() as connection:
            return list(connection.scalars(query))


def ensure_first_release(database: Database) -> None:
    """Write release 1 (and its audit event) into a store that has none yet."""
    with database.read() as connection:
        if release_number(connection):
            return
    with database.write() as tx:
        if not release_number(tx.connection):
            number = write_release(tx, _FIRST_RELEASE_ACTOR, "store.create")
            tx.append(_FIRST_RELEASE_ACTOR, "store.create", database.display, {"release": number})
