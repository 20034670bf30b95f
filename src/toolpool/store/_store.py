"""The management plane's store: one object over SQLite or PostgreSQL, safe for many processes.

``Store`` opens and closes the database; its concerns share it, one attribute each:
``tools`` (gate 3, imports, policy, enabling, eras), ``pins``, ``releases`` (and sessions),
``secrets``, ``audit``, ``calls`` (call records), ``usage`` (the usage ledger, written with the
call records), ``tokens``, ``approvals`` and ``judgements`` (the screen judge's cache). Every management change
happens in one write transaction together with the next release and its audit event. Write
transactions serialize: SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's row lock on ``store_head``,
taken first.
"""

from __future__ import annotations

from typing import Self

from sqlalchemy.exc import SQLAlchemyError

from toolpool.errors import UsageError
from toolpool.store._approvals import Approvals
from toolpool.store._audit import Audit
from toolpool.store._calls import Calls
from toolpool.store._crypto import SecretKey
from toolpool.store._database import Database, reason
from toolpool.store._enabled_cache import EnabledCache
from toolpool.store._engine import connect_engine, migrate, parse_url
from toolpool.store._judgements import Judgements
from toolpool.store._pins import ToolPins
from toolpool.store._releases import Releases, ensure_first_release
from toolpool.store._secrets import Secrets
from toolpool.store._tokens import Tokens
from toolpool.store._tools import Tools
from toolpool.store._usage import Usage

__all__ = ["Store"]


class Store:
    """The management plane's persistent state. Open with ``Store.open``; close with ``close``.

    Every method of its concerns is synchronous and runs short transactions; several
    processes (and threads) may use one database at once.
    """

    tools: Tools
    """Gate 3 (``is_enabled``), imports, the configuration's policy, enabling (R9), eras."""
    cached: EnabledCache
    """Gate 3 and the release number from memory, asked again on a change signal: what a
    pool and the gateway read at every call and request."""
    pins: ToolPins
    """Approved definitions (R7); ``as_pins(actor)`` is the vetting layer's ``Pins``."""
    releases: Releases
    """Releases (``version``, R15) and the sessions bound to them."""
    secrets: Secrets
    """Secrets encrypted at rest, and ``redact``."""
    audit: Audit
    """The hash-chained audit log."""
    calls: Calls
    """Call records (gate 10) and their statistics; they also write the usage ledger."""
    usage: Usage
    """The usage ledger (billing), summed per principal, session, alias, tool or day."""
    tokens: Tokens
    """Bearer tokens of the HTTP front."""
    approvals: Approvals
    """Requests for a person's approval of single calls (countersigning), single-use."""
    judgements: Judgements
    """The screen judge's verdicts, by definition hash, judge and rubric version."""

    def __init__(self, database: Database) -> None:
        """Use ``Store.open``: it migrates the database first."""
        self._db = database
        self.tools = Tools(database)
        self.cached = database.cached
        self.pins = ToolPins(database)
        self.releases = Releases(database)
        self.secrets = Secrets(database)
        self.audit = Audit(database)
        self.calls = Calls(database)
        self.usage = Usage(database)
        self.tokens = Tokens(database)
        self.approvals = Approvals(database)
        self.judgements = Judgements(database)

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
            database = Database(engine, parsed, key)
            ensure_first_release(database)
        except SQLAlchemyError as exc:
            engine.dispose()
            shown = parsed.render_as_string(hide_password=True)
            raise UsageError(f"cannot open the store at {shown}: {reason(exc)}") from exc
        except BaseException:
            engine.dispose()
            raise
        return cls(database)

    def close(self) -> None:
        """Release every connection; calling it again does nothing."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def url_for_display(self) -> str:
        """The database URL with any password hidden."""
        return self._db.display
