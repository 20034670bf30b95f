"""The management plane's store: one object over SQLite or PostgreSQL, safe for many processes.

Every management change (enable, disable, approve_write, set_server_enabled, approve_pin,
record_import and sync_policy when they change something) happens in one write transaction
together with the next release and its audit event. Write transactions serialize: SQLite's
``BEGIN IMMEDIATE``, PostgreSQL's row lock on ``store_head``, taken first.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Self
from uuid import uuid4

from sqlalchemy import Connection, Engine, Row, delete, func, insert, select, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, SQLAlchemyError

from toolpool.config import ALIAS_PATTERN, REMOTE_NAME_PATTERN, ToolPolicy
from toolpool.errors import PolicyRefusal, UsageError
from toolpool.redaction import Redactor
from toolpool.store import _audit, _tokens
from toolpool.store._audit import AuditKey, Head
from toolpool.store._calls_read import call_page, published_definition
from toolpool.store._codec import canonical, digest, now, plain, storable
from toolpool.store._crypto import SecretKey
from toolpool.store._engine import READ_ONLY, connect_engine, migrate, parse_url
from toolpool.store._gate import Gate
from toolpool.store._pins import StorePins, hash_of_definition
from toolpool.store._rows import release_content, release_value, tool_state, where_tool
from toolpool.store._rules import describe_changes, enable_refusal, forbidden, policy_changes
from toolpool.store._stats import call_stats
from toolpool.store._tables import (
    call_records,
    published_tools,
    releases,
    secrets,
    servers,
    session_taint,
    sessions,
    store_head,
    tool_states,
)
from toolpool.store._tokens import TokenHolder
from toolpool.store._values import (
    AuditCheck,
    AuditEntry,
    AuditEvent,
    CallRecord,
    CallStats,
    ImportedTool,
    Release,
    SessionTaint,
    StoredPin,
    ToolState,
)

__all__ = ["Store"]

_FIRST_RELEASE_ACTOR = "store"
_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
# Token holders remembered by their row; a store has a handful of tokens.
_HOLDERS_KEPT = 256


@dataclass(slots=True)
class _Tx:
    """One write transaction: its connection, the locked head, and the moment it stands for."""

    connection: Connection
    head: Head
    at: datetime


class Store:
    """The management plane's persistent state. Open with ``Store.open``; close with ``close``.

    Every method is synchronous and runs short transactions; several processes (and threads)
    may use one database at once.
    """

    def __init__(self, engine: Engine, url: URL, key: SecretKey | None) -> None:
        """Use ``Store.open``: it migrates the database first."""
        self._engine = engine
        self._url = url
        self._key = key
        self._audit_key = None if key is None else AuditKey(key)
        self._gate = Gate(engine)
        self._redactor: tuple[int, Redactor] | None = None
        self._holders: dict[tuple[Any, ...], TokenHolder] = {}
        self._closed = False

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, key: SecretKey | None = None) -> Store:
        """Open the store at ``url``, creating or upgrading its tables (Alembic, to head).

        ``url`` is ``sqlite:///path/toolpool.db`` or ``postgresql+psycopg://...``. Without
        ``key``, everything but secrets works.

        Raises:
            UsageError: the URL is not supported, or the database cannot be opened.
        """
        parsed = parse_url(url)
        engine = connect_engine(parsed)
        try:
            migrate(engine)
            store = cls(engine, parsed, key)
            store._ensure_first_release()
        except SQLAlchemyError as exc:
            engine.dispose()
            raise UsageError(f"cannot open the store at {_display(parsed)}: {_reason(exc)}") from exc
        except BaseException:
            engine.dispose()
            raise
        return store

    def close(self) -> None:
        """Release every connection; calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        self._gate.close()
        self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def url_for_display(self) -> str:
        """The database URL with any password hidden."""
        return _display(self._url)

    # -- gate 3 ----------------------------------------------------------------------------

    def is_enabled(self, alias: str, name: str) -> bool:
        """Gate 3: whether the tool and its server are enabled, as committed right now.

        Fails closed: if the database cannot answer (twice), the answer is False.

        Raises:
            UsageError: the store is closed.
        """
        if self._closed:
            raise UsageError("the store is closed")
        try:
            return self._gate.fetchone(self._gate.enabled_sql, (alias, name)) is not None
        except UsageError:
            raise
        except Exception:
            return False

    @property
    def version(self) -> int:
        """Changes with every management change, in any process: the current release's number.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        return int(self._hot(self._gate.version_sql) or 0)

    # -- tools -----------------------------------------------------------------------------

    def record_import(self, alias: str, tools: Sequence[ImportedTool], actor: str) -> None:
        """Store what an import found: published tools upserted (``first_seen`` kept), a tool
        state for each new tool (disabled, R9), an audit event, and a release if anything
        changed.

        Raises:
            UsageError: a bad alias, tool name or hash, or a verdict other than "pass" / "drop".
        """
        _check_alias(alias)
        for tool in tools:
            _check_tool(alias, tool.name, tool.definition_hash)
            if tool.verdict not in ("pass", "drop"):
                raise UsageError(
                    f"{alias}/{tool.name}: verdict must be 'pass' or 'drop', not {tool.verdict!r}"
                )
        with self._write() as tx:
            self._ensure_server(tx, alias)
            seen = {
                row.name: row
                for row in tx.connection.execute(
                    select(published_tools).where(published_tools.c.alias == alias)
                )
            }
            stateful = set(
                tx.connection.scalars(select(tool_states.c.name).where(tool_states.c.alias == alias))
            )
            added, changed = [], []
            for tool in tools:
                values = {
                    "definition": canonical(plain(tool.definition)),
                    "definition_hash": tool.definition_hash,
                    "verdict": tool.verdict,
                    "score": float(tool.score),
                    "reasons": canonical([str(reason) for reason in tool.reasons]),
                    "last_seen": tx.at,
                }
                old = seen.get(tool.name)
                if old is None:
                    tx.connection.execute(
                        insert(published_tools).values(
                            alias=alias, name=tool.name, first_seen=tx.at, **values
                        )
                    )
                    added.append(tool.name)
                else:
                    tx.connection.execute(
                        where_tool(update(published_tools), alias, tool.name, published_tools).values(
                            **values
                        )
                    )
                    if any(getattr(old, key) != value for key, value in values.items() if key != "last_seen"):
                        changed.append(tool.name)
                if tool.name not in stateful:
                    tx.connection.execute(insert(tool_states).values(alias=alias, name=tool.name))
            detail: dict[str, object] = {
                "tools": sorted(tool.name for tool in tools),
                "added": added,
                "changed": changed,
                "dropped": sorted(tool.name for tool in tools if tool.verdict == "drop"),
                "not_listed": sorted(set(seen) - {tool.name for tool in tools}),
            }
            if added or changed:
                detail["release"] = self._release(tx, actor, f"tool.import {alias}")
            self._append(tx, actor, "tool.import", alias, detail)

    def sync_policy(
        self,
        alias: str,
        policies: Mapping[str, ToolPolicy],
        actor: str = "config",
        spec_hash: str | None = None,
    ) -> None:
        """Bring the store in line with the configuration's tool tables for ``alias``.

        Writes each tool's action (None when forbidden), effect and resource template, and
        the server's ``spec_hash`` when given (how the configuration reaches it). ``enabled`` in the config
        acts when it changes: to true, the tool is enabled (with the config's write approval);
        back to false, it is disabled. So a ``disable`` or ``enable`` made in between by
        someone else stays until the config's ``enabled`` changes again. A forbidden tool, a
        tool no longer in the config, and a write tool without an approval are always
        disabled. Nothing changed: no release and no audit event.
        """
        _check_alias(alias)
        with self._write() as tx:
            self._ensure_server(tx, alias)
            rows = {
                row.name: row
                for row in tx.connection.execute(select(tool_states).where(tool_states.c.alias == alias))
            }
            changes: list[dict[str, object]] = []
            if spec_hash is not None:
                if not _HASH.match(spec_hash):
                    raise UsageError(f"{alias}: not a spec hash: {spec_hash[:80]!r}")
                stored = tx.connection.scalar(select(servers.c.spec_hash).where(servers.c.alias == alias))
                if stored != spec_hash:
                    tx.connection.execute(
                        update(servers).where(servers.c.alias == alias).values(spec_hash=spec_hash)
                    )
                    changes.append({"server": alias, "spec_hash": spec_hash})
            for name, policy in sorted(policies.items()):
                row = rows.get(name)
                if row is None:
                    tx.connection.execute(insert(tool_states).values(alias=alias, name=name))
                    row = self._tool_row(tx.connection, alias, name)
                    changes.append({"tool": name, "added": True})
                values = policy_changes(row, policy, tx.at, actor)
                if values:
                    tx.connection.execute(where_tool(update(tool_states), alias, name).values(**values))
                    changes.append({"tool": name, **describe_changes(values)})
            for name in sorted(set(rows) - set(policies)):
                if rows[name].enabled or rows[name].config_enabled:
                    values = {
                        "enabled": False,
                        "config_enabled": False,
                        "changed_at": tx.at,
                        "changed_by": actor,
                    }
                    tx.connection.execute(where_tool(update(tool_states), alias, name).values(**values))
                    changes.append({"tool": name, "enabled": False, "why": "not in the configuration"})
            if changes:
                release = self._release(tx, actor, f"policy.sync {alias}")
                self._append(tx, actor, "policy.sync", alias, {"changes": changes, "release": release})

    def tool_states(self, alias: str | None = None) -> list[ToolState]:
        """Every tool the store knows (of ``alias``), ordered by alias and name."""
        query = (
            select(
                tool_states,
                servers.c.enabled.label("server_enabled"),
                published_tools.c.definition_hash,
                published_tools.c.verdict,
                published_tools.c.score,
                published_tools.c.reasons,
                published_tools.c.first_seen,
                published_tools.c.last_seen,
            )
            .join(servers, servers.c.alias == tool_states.c.alias)
            .outerjoin(
                published_tools,
                (published_tools.c.alias == tool_states.c.alias)
                & (published_tools.c.name == tool_states.c.name),
            )
            .order_by(tool_states.c.alias, tool_states.c.name)
        )
        if alias is not None:
            query = query.where(tool_states.c.alias == alias)
        with self._read() as connection:
            return [tool_state(row) for row in connection.execute(query)]

    def enable(self, alias: str, name: str, actor: str) -> None:
        """Enable a tool: a ``read`` tool, or a ``write`` tool that already has an approval.

        Raises:
            UsageError: the store does not know the tool.
            PolicyRefusal: the tool is forbidden, or writes without an approval (R9).
        """
        refusal = None
        with self._write() as tx:
            row = self._tool_row(tx.connection, alias, name)
            refusal = enable_refusal(row)
            if refusal is not None:
                self._append(tx, actor, "tool.enable_refused", f"{alias}/{name}", {"reason": refusal})
            elif not row.enabled:
                self._change_tool(tx, alias, name, actor, "tool.enable", {"enabled": True})
        if refusal is not None:
            raise PolicyRefusal(refusal)

    def disable(self, alias: str, name: str, actor: str) -> None:
        """Disable a tool; calls fail at gate 3 from the next one on, in every process.

        Raises:
            UsageError: the store does not know the tool.
        """
        with self._write() as tx:
            if self._tool_row(tx.connection, alias, name).enabled:
                self._change_tool(tx, alias, name, actor, "tool.disable", {"enabled": False})

    def approve_write(self, alias: str, name: str, by: str, reason: str, actor: str) -> None:
        """Record who approved a tool to write, when and why, and enable it (R9).

        Raises:
            UsageError: ``by`` or ``reason`` is empty, or the store does not know the tool.
            PolicyRefusal: the tool is forbidden.
        """
        if not by.strip() or not reason.strip():
            raise UsageError("a write approval needs who approved it (--by) and why (--reason)")
        refusal = None
        with self._write() as tx:
            row = self._tool_row(tx.connection, alias, name)
            if row.action is None:
                refusal = forbidden(alias, name)
                self._append(tx, actor, "tool.approve_write_refused", f"{alias}/{name}", {"reason": refusal})
            else:
                values = {
                    "write_approved_by": storable(by),
                    "write_approved_at": tx.at,
                    "write_approved_reason": storable(reason),
                    "enabled": True,
                }
                self._change_tool(tx, alias, name, actor, "tool.approve_write", values)
        if refusal is not None:
            raise PolicyRefusal(refusal)

    def set_server_enabled(self, alias: str, enabled: bool, actor: str) -> None:
        """Enable or disable a whole server; gate 3 asks for both the tool and its server.

        Raises:
            UsageError: ``alias`` is not an alias the configuration could name.
        """
        _check_alias(alias)
        with self._write() as tx:
            current = self._ensure_server(tx, alias)
            if current != enabled:
                tx.connection.execute(
                    update(servers)
                    .where(servers.c.alias == alias)
                    .values(enabled=enabled, changed_at=tx.at, changed_by=actor)
                )
                verb = "enable" if enabled else "disable"
                release = self._release(tx, actor, f"server.{verb} {alias}")
                self._append(tx, actor, f"server.{verb}", alias, {"release": release})

    # -- pins ------------------------------------------------------------------------------

    def pin_of(self, alias: str, name: str) -> StoredPin | None:
        """The approved definition of a tool (R7), or None if nothing was approved yet."""
        query = where_tool(
            select(
                tool_states.c.approved_hash,
                tool_states.c.approved_definition,
                tool_states.c.pinned_by,
                tool_states.c.pinned_at,
            ),
            alias,
            name,
        )
        with self._read() as connection:
            row = connection.execute(query).one_or_none()
        if row is None or row.approved_hash is None:
            return None
        definition = None if row.approved_definition is None else json.loads(row.approved_definition)
        return StoredPin(row.approved_hash, definition, row.pinned_by, row.pinned_at)

    def approve_pin(
        self, alias: str, name: str, definition: Mapping[str, Any], definition_hash: str, actor: str
    ) -> None:
        """Approve ``definition`` as the tool's pin (trust on first use, or a reviewed change).

        Raises:
            UsageError: ``definition_hash`` is not the hash of ``definition``.
        """
        _check_alias(alias)
        _check_tool(alias, name, definition_hash)
        if hash_of_definition(definition) != definition_hash:
            raise UsageError(f"{alias}/{name}: the pin's hash does not match its definition")
        stored = canonical(plain(definition))
        with self._write() as tx:
            self._ensure_server(tx, alias)
            row = tx.connection.execute(where_tool(select(tool_states), alias, name)).one_or_none()
            if row is None:
                tx.connection.execute(insert(tool_states).values(alias=alias, name=name))
            elif row.approved_hash == definition_hash and row.approved_definition == stored:
                return
            values = {
                "approved_hash": definition_hash,
                "approved_definition": stored,
                "pinned_by": actor,
                "pinned_at": tx.at,
            }
            self._change_tool(tx, alias, name, actor, "tool.approve_pin", values, {"hash": definition_hash})

    def pins(self, actor: str) -> StorePins:
        """These pins behind ``toolpool.vetting.pins.Pins``; approvals are recorded as ``actor``."""
        return StorePins(self, actor)

    # -- releases and sessions (R15) -------------------------------------------------------

    def current_release(self) -> Release:
        with self._read() as connection:
            row = connection.execute(select(releases).order_by(releases.c.number.desc()).limit(1)).one()
        return release_value(row)

    def release(self, number: int) -> Release:
        """Release ``number``.

        Raises:
            UsageError: there is no such release.
        """
        with self._read() as connection:
            row = connection.execute(select(releases).where(releases.c.number == number)).one_or_none()
        if row is None:
            raise UsageError(f"there is no release {number}")
        return release_value(row)

    def open_session(self, principal: str) -> tuple[str, int]:
        """A new session bound to the current release: ``(session_id, release_number)``."""
        session_id = uuid4().hex
        with self._write() as tx:
            number = self._release_number(tx.connection)
            tx.connection.execute(
                insert(sessions).values(
                    id=session_id, principal=storable(principal), release=number, created_at=tx.at
                )
            )
            self._append(tx, principal, "session.open", session_id, {"release": number})
        return session_id, number

    def session_release(self, session_id: str) -> int | None:
        """The release a session was bound to when it opened, or None for an unknown id."""
        with self._read() as connection:
            return connection.scalar(select(sessions.c.release).where(sessions.c.id == session_id))

    def session_taint(self, session_id: str) -> list[str]:
        """What ``record_calls`` kept of a session's taint, oldest first (opaque text)."""
        query = (
            select(session_taint.c.data)
            .where(session_taint.c.session_id == session_id)
            .order_by(session_taint.c.id)
        )
        with self._read() as connection:
            return list(connection.scalars(query))

    # -- secrets ---------------------------------------------------------------------------

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
        with self._write() as tx:
            exists = tx.connection.scalar(select(secrets.c.name).where(secrets.c.name == name)) is not None
            self._append(tx, actor, "secret.set", name, {"replaced": exists})
            statement: Any
            if exists:
                statement = update(secrets).where(secrets.c.name == name)
            else:
                statement = insert(secrets).values(name=name, created_at=tx.at)
            tx.connection.execute(statement.values(token=token, changed_at=tx.at, changed_by=actor))
            self._bump_secrets(tx)

    def secret(self, name: str) -> str:
        """A secret's value.

        Raises:
            UsageError: no key, an unknown name, or a token this key cannot decrypt.
        """
        key = self._require_key()
        with self._read() as connection:
            token = connection.scalar(select(secrets.c.token).where(secrets.c.name == name))
        if token is None:
            raise UsageError(f"there is no secret {name!r}")
        return key.decrypt(token, name)

    def secret_names(self) -> list[str]:
        with self._read() as connection:
            return list(connection.scalars(select(secrets.c.name).order_by(secrets.c.name)))

    def delete_secret(self, name: str, actor: str) -> None:
        """Remove a secret.

        Raises:
            UsageError: there is no such secret.
        """
        with self._write() as tx:
            if tx.connection.execute(delete(secrets).where(secrets.c.name == name)).rowcount == 0:
                raise UsageError(f"there is no secret {name!r}")
            self._bump_secrets(tx)
            self._append(tx, actor, "secret.delete", name, {})

    def redact(self, text: str) -> str:
        """``text`` with every stored secret's value (raw, JSON-escaped, URL-encoded, base64)
        replaced by ``[secret:NAME]``. Without a key there is nothing this process could leak."""
        version = self._hot(self._gate.secrets_version_sql)
        if self._redactor is None or self._redactor[0] != version:
            with self._read() as connection:
                self._redactor = (version, self._load_redactor(connection))
        return self._redactor[1](text)

    # -- audit -----------------------------------------------------------------------------

    def audit(self, actor: str, action: str, resource: str, detail: Mapping[str, object]) -> None:
        """Append an event to the hash chain, with every secret value redacted."""
        with self._write() as tx:
            self._append(tx, actor, action, resource, detail)

    def audit_events(self, limit: int | None = None, after_id: int | None = None) -> list[AuditEvent]:
        """Events in id order, after ``after_id``, at most ``limit``."""
        with self._read() as connection:
            return _audit.events(connection, limit, after_id)

    def last_audit_id(self) -> int:
        """The id of the newest audit event (0 when there is none): where a reader that wants
        only what comes next starts."""
        with self._read() as connection:
            return _audit.last_id(connection)

    def verify_audit(self) -> AuditCheck:
        """Walk the chain and its head; report the first bad event and its kind (see
        ``AuditCheck``). With the store's secret key, the events' MACs are checked too. Never
        raises for what the tables hold: a malformed row or head is a finding."""
        with self._read(snapshot=True) as connection:
            return _audit.verify(connection, self._audit_key)

    # -- call records ----------------------------------------------------------------------

    def record_call(self, record: CallRecord) -> None:
        """Store one call's record (gate 10)."""
        self.record_calls([record])

    def record_calls(
        self,
        records: Sequence[CallRecord],
        events: Sequence[AuditEntry] = (),
        taints: Sequence[SessionTaint] = (),
    ) -> None:
        """Store call records, append audit events and keep sessions' taint, all in one
        transaction: gate 10 for a batch of calls costs about what one call's costs."""
        rows = [_call_values(record) for record in records]
        if not events:
            with self._guard(), self._engine.begin() as connection:
                if rows:
                    connection.execute(insert(call_records), rows)
                _insert_taints(connection, taints)
            return
        with self._write() as tx:
            redact = self._redactor_for(tx)
            _audit.append_many(
                tx.connection,
                tx.head,
                tx.at,
                [
                    (
                        redact(event.actor),
                        event.action,
                        redact(event.resource),
                        redact.redact_value(plain(event.detail)),
                    )
                    for event in events
                ],
            )
            if rows:
                tx.connection.execute(insert(call_records), rows)
            _insert_taints(tx.connection, taints)

    def call_stats(self, since: datetime | None = None) -> list[CallStats]:
        """Per (alias, tool): calls, Envelope codes, p50 and p95 latency (since ``since``)."""
        with self._read() as connection:
            return call_stats(connection, since)

    def call_records(
        self, after_id: int | None = None, limit: int | None = None
    ) -> list[tuple[int, CallRecord]]:
        """Call records in id order, after ``after_id``, at most ``limit``: ``(id, record)``."""
        with self._read() as connection:
            return call_page(connection, after_id, limit)

    def published_definition(self, alias: str, name: str) -> dict[str, Any] | None:
        """The definition the latest import stored for a tool, or None if it was never imported."""
        with self._read() as connection:
            return published_definition(connection, alias, name)

    # -- bearer tokens (toolpool.store._tokens) --------------------------------------------

    def add_token(self, name: str, actions: Sequence[str], resources: Sequence[str], actor: str) -> str:
        """Make a bearer token granting ``actions`` on ``resources``; returns it (only its hash is kept).

        Raises:
            UsageError: a bad name or glob, no action, or a token of that name exists.
        """
        with self._write() as tx:
            token, grants = _tokens.insert_token(tx.connection, name, actions, resources, tx.at, actor)
            self._append(tx, actor, "token.add", name, grants)
        return token

    def token_holder(self, token: str) -> TokenHolder | None:
        """Who ``token`` stands for, looked up by its hash; None if unknown or revoked.

        It runs before every HTTP request, so it reads the token's row on the gate's raw
        connection (no SQLAlchemy, no thread hop needed) and reuses the holder made for the
        same row before: a revoked or re-made token still changes the answer at once.

        Raises:
            UsageError: the store is closed or the database cannot answer.
        """
        if not _tokens.plausible(token):
            return None
        wanted = _tokens.token_hash(token)
        row = self._hot_row(self._gate.token_sql, (wanted,))
        if row is None or not hmac.compare_digest(row[0], wanted):
            return None
        key = tuple(row)
        holder = self._holders.get(key)
        if holder is None:
            with self._read() as connection:
                holder = _tokens.holder_of(connection, token)
            if holder is None:  # revoked between the two reads
                return None
            if len(self._holders) >= _HOLDERS_KEPT:
                self._holders.clear()
            self._holders[key] = holder
        return holder

    def tokens(self) -> list[TokenHolder]:
        """Every token's name and grants, by name (never a token or a hash)."""
        with self._read() as connection:
            return _tokens.all_tokens(connection)

    def revoke_token(self, name: str, actor: str) -> None:
        """Revoke a token at once: the next request that presents it is refused.

        Raises:
            UsageError: there is no such token.
        """
        with self._write() as tx:
            _tokens.delete_token(tx.connection, name)
            self._append(tx, actor, "token.revoke", name, {})

    # -- era memory ------------------------------------------------------------------------

    def remembered_era(self, alias: str) -> str | None:
        with self._read() as connection:
            return connection.scalar(select(servers.c.era).where(servers.c.alias == alias))

    def remember_era(self, alias: str, mode: str) -> None:
        """Remember which protocol era ``alias`` speaks, so ``auto`` probes it once."""
        _check_alias(alias)
        if not 1 <= len(mode) <= 32:
            raise UsageError(f"not an era: {mode!r}")
        with self._write() as tx:
            self._ensure_server(tx, alias)
            tx.connection.execute(update(servers).where(servers.c.alias == alias).values(era=mode))

    # -- internals -------------------------------------------------------------------------

    def _hot(self, sql: str) -> Any:
        """The first column of the first row of ``sql``, on this thread's raw connection."""
        return self._hot_row(sql)[0]

    def _hot_row(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """The first row of ``sql`` (None if there is none), on this thread's raw connection."""
        if self._closed:
            raise UsageError("the store is closed")
        try:
            return self._gate.fetchone(sql, parameters)
        except UsageError:
            raise
        except Exception as exc:
            raise UsageError(f"the store at {self.url_for_display} failed: {_first_line(exc)}") from exc

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Refuse a closed store; the database's operational failures become UsageError."""
        if self._closed:
            raise UsageError("the store is closed")
        try:
            yield
        except DBAPIError as exc:
            if exc.connection_invalidated or _is_operational(exc):
                raise UsageError(f"the store at {self.url_for_display} failed: {_reason(exc)}") from exc
            raise

    @contextmanager
    def _read(self, *, snapshot: bool = False) -> Iterator[Connection]:
        with self._guard(), self._engine.connect() as connection:
            options: dict[str, Any] = {READ_ONLY: True}
            if snapshot and connection.dialect.name == "postgresql":
                options["isolation_level"] = "REPEATABLE READ"
            connection = connection.execution_options(**options)
            with connection.begin():
                yield connection

    @contextmanager
    def _write(self) -> Iterator[_Tx]:
        with self._guard():
            connection, head = self._begin_write()
            try:
                yield _Tx(connection, head, now())
                connection.commit()
            finally:
                connection.close()  # rolls back what was not committed

    def _begin_write(self) -> tuple[Connection, Head]:
        """A connection in a write transaction that holds the lock. A connection the database
        dropped (a restart) is replaced once: nothing was written on it yet."""
        for attempt in range(2):
            connection = self._engine.connect()
            try:
                connection.begin()  # SQLite: BEGIN IMMEDIATE
                # PostgreSQL: this row lock serializes every writer, as BEGIN IMMEDIATE does.
                locked = select(store_head).where(store_head.c.id == 1).with_for_update()
                row = connection.execute(locked).one_or_none()
                head = Head.of(row, self._audit_key)
            except DBAPIError as exc:
                connection.close()
                if attempt or not exc.connection_invalidated:
                    raise
                continue
            except UsageError:
                connection.close()
                raise
            return connection, head
        raise AssertionError("unreachable")

    def _append(self, tx: _Tx, actor: str, action: str, resource: str, detail: Mapping[str, object]) -> None:
        redact = self._redactor_for(tx)
        clean = redact.redact_value(plain(detail))
        _audit.append(tx.connection, tx.head, tx.at, redact(actor), action, redact(resource), clean)

    def _redactor_for(self, tx: _Tx) -> Redactor:
        version = tx.head.secrets_version
        if self._redactor is None or self._redactor[0] != version:
            self._redactor = (version, self._load_redactor(tx.connection))
        return self._redactor[1]

    def _load_redactor(self, connection: Connection) -> Redactor:
        if self._key is None:
            return Redactor({})
        values = {}
        for row in connection.execute(select(secrets.c.name, secrets.c.token)):
            try:
                values[row.name] = self._key.decrypt(row.token, row.name)
            except UsageError:
                continue  # not readable with this key: this process never had its value
        return Redactor(values)

    def _bump_secrets(self, tx: _Tx) -> None:
        tx.head.secrets_version += 1
        tx.connection.execute(
            update(store_head).where(store_head.c.id == 1).values(secrets_version=tx.head.secrets_version)
        )

    def _require_key(self) -> SecretKey:
        if self._key is None:
            raise UsageError(
                "secrets are unavailable: the store was opened without a secret key "
                "(TOOLPOOL_SECRET_KEY or the key file that `toolpool init` creates)"
            )
        return self._key

    def _ensure_server(self, tx: _Tx, alias: str) -> bool:
        """Whether the server is enabled; a server the store did not know yet is added, enabled."""
        enabled = tx.connection.scalar(select(servers.c.enabled).where(servers.c.alias == alias))
        if enabled is None:
            tx.connection.execute(insert(servers).values(alias=alias, enabled=True, created_at=tx.at))
            return True
        return bool(enabled)

    @staticmethod
    def _tool_row(connection: Connection, alias: str, name: str) -> Row[Any]:
        row = connection.execute(where_tool(select(tool_states), alias, name)).one_or_none()
        if row is None:
            raise UsageError(f"unknown tool {alias}/{name}: import it, or name it in the configuration")
        return row

    def _change_tool(
        self,
        tx: _Tx,
        alias: str,
        name: str,
        actor: str,
        action: str,
        values: Mapping[str, object],
        detail: Mapping[str, object] | None = None,
    ) -> None:
        tx.connection.execute(
            where_tool(update(tool_states), alias, name).values(**values, changed_at=tx.at, changed_by=actor)
        )
        release = self._release(tx, actor, f"{action} {alias}/{name}")
        self._append(tx, actor, action, f"{alias}/{name}", {**(detail or {}), "release": release})

    def _release(self, tx: _Tx, actor: str, change: str) -> int:
        """Write the next release, with the state as this transaction leaves it."""
        number = self._release_number(tx.connection) + 1
        content = release_content(tx.connection)
        text = canonical(content)
        tx.connection.execute(
            insert(releases).values(
                number=number,
                created_at=tx.at,
                actor=storable(actor),
                change=storable(change),
                content=text,
                content_hash=digest(text),
            )
        )
        return number

    @staticmethod
    def _release_number(connection: Connection) -> int:
        return int(connection.scalar(select(func.coalesce(func.max(releases.c.number), 0))) or 0)

    def _ensure_first_release(self) -> None:
        with self._read() as connection:
            if self._release_number(connection):
                return
        with self._write() as tx:
            if not self._release_number(tx.connection):
                number = self._release(tx, _FIRST_RELEASE_ACTOR, "store.create")
                self._append(
                    tx, _FIRST_RELEASE_ACTOR, "store.create", self.url_for_display, {"release": number}
                )


def _insert_taints(connection: Connection, taints: Sequence[SessionTaint]) -> None:
    if taints:
        rows = [{"session_id": t.session_id, "data": t.data, "at": t.at} for t in taints]
        connection.execute(insert(session_taint), rows)


def _call_values(record: CallRecord) -> dict[str, object]:
    return {
        "at": record.at,
        "session_id": record.session_id,
        "principal": None if record.principal is None else storable(record.principal),
        "alias": storable(record.alias),
        "tool": storable(record.tool),
        "code": storable(record.code),
        "duration_ms": float(record.duration_ms),
        "bytes_in": record.bytes_in,
        "bytes_out": record.bytes_out,
        "snapshot_version": record.snapshot_version,
        "release": record.release,
    }


def _check_alias(alias: str) -> None:
    if not ALIAS_PATTERN.match(alias):
        raise UsageError(f"not an alias: {alias[:80]!r}")


def _check_tool(alias: str, name: str, definition_hash: str) -> None:
    if not REMOTE_NAME_PATTERN.match(name):
        raise UsageError(f"{alias}: not a tool name: {name[:80]!r}")
    if not _HASH.match(definition_hash):
        raise UsageError(f"{alias}/{name}: not a definition hash: {definition_hash[:80]!r}")


def _display(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def _is_operational(exc: DBAPIError) -> bool:
    return isinstance(exc, OperationalError | InterfaceError)


def _reason(exc: SQLAlchemyError) -> str:
    return _first_line(getattr(exc, "orig", None) or exc)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
