"""Alembic's entry point for the store's migrations.

``Store.open`` runs them programmatically on a connection it has already locked (see
``toolpool.store._engine.migrate``). To write a new revision, point Alembic at a scratch
database and let it compare with the tables::

    from toolpool.store._engine import alembic_config
    config = alembic_config()
    config.set_main_option("sqlalchemy.url", "sqlite:////tmp/scratch.db")
    alembic.command.upgrade(config, "head")
    alembic.command.revision(config, "what changed", autogenerate=True)
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from toolpool.store._tables import ALEMBIC_VERSION_TABLE, metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=ALEMBIC_VERSION_TABLE,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying
    )
    with context.begin_transaction():
        context.run_migrations()


def _main() -> None:
    if context.is_offline_mode():
        raise RuntimeError("toolpool's migrations run online only")
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "")
    try:
        with engine.begin() as own:
            _run(own)
    finally:
        engine.dispose()


_main()
