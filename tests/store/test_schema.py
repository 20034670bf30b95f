"""R9 in the database, and migrations that agree with the tables.

The constraint tests write SQL by hand through a plain connection, as someone bypassing
toolpool would: each forbidden state must be refused by the database itself.
"""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import CheckConstraint, inspect

from toolpool.store import Store
from toolpool.store._engine import alembic_config, connect_engine, parse_url
from toolpool.store._tables import ALEMBIC_VERSION_TABLE, SCHEMA_HEAD, metadata

from .helpers import INTEGRITY_ERRORS, imported, read, sql, write

APPROVAL = "write_approved_by, write_approved_at, write_approved_reason"


@pytest.fixture
def with_tools(store: Store, store_url: str) -> str:
    store.tools.record_import("demo", [imported("lookup"), imported("send")], actor="ana")
    store.tools.sync_policy("demo", {"lookup": read("demo.lookup"), "send": write("demo.send")})
    return store_url


def _refused(store_url: str, statement: str) -> None:
    with pytest.raises(INTEGRITY_ERRORS):
        sql(store_url, statement)


def test_r9_a_hand_written_insert_of_an_enabled_write_tool_without_approval_is_refused(
    with_tools: str,
) -> None:
    _refused(
        with_tools,
        "INSERT INTO tool_states (alias, name, action, effect, enabled) "
        "VALUES ('demo', 'other', 'demo.other', 'write', true)",
    )


@pytest.mark.parametrize(
    "approval",
    [
        "NULL, CURRENT_TIMESTAMP, 'needed'",
        "'', CURRENT_TIMESTAMP, 'needed'",
        "'   ', CURRENT_TIMESTAMP, 'needed'",
        "'ana', NULL, 'needed'",
        "'ana', CURRENT_TIMESTAMP, NULL",
        "'ana', CURRENT_TIMESTAMP, ''",
    ],
    ids=["no-by", "empty-by", "blank-by", "no-at", "no-reason", "empty-reason"],
)
def test_r9_an_enabled_write_tool_with_an_incomplete_approval_is_refused(
    with_tools: str, approval: str
) -> None:
    _refused(
        with_tools,
        f"INSERT INTO tool_states (alias, name, action, effect, enabled, {APPROVAL}) "  # noqa: S608 - SQL by hand is the point
        f"VALUES ('demo', 'other', 'demo.other', 'write', true, {approval})",
    )


def test_r9_a_complete_approval_lets_the_database_store_an_enabled_write_tool(with_tools: str) -> None:
    sql(
        with_tools,
        f"INSERT INTO tool_states (alias, name, action, effect, enabled, {APPROVAL}) "  # noqa: S608
        "VALUES ('demo', 'other', 'demo.other', 'write', true, 'ana', CURRENT_TIMESTAMP, 'ticket 7')",
    )
    assert sql(with_tools, "SELECT count(*) FROM tool_states WHERE name = 'other' AND enabled") == [(1,)]


def test_r9_a_hand_written_update_cannot_enable_a_write_tool_without_approval(with_tools: str) -> None:
    _refused(with_tools, "UPDATE tool_states SET enabled = true WHERE name = 'send'")


def test_r9_a_hand_written_update_cannot_remove_the_approval_of_an_enabled_write_tool(
    store: Store, with_tools: str
) -> None:
    store.tools.approve_write("demo", "send", by="ana", reason="ticket 7", actor="ana")
    _refused(with_tools, "UPDATE tool_states SET write_approved_reason = NULL WHERE name = 'send'")
    _refused(with_tools, "UPDATE tool_states SET write_approved_by = '' WHERE name = 'send'")


def test_r9_a_forbidden_tool_cannot_be_enabled_by_hand(store: Store, with_tools: str) -> None:
    _refused(
        with_tools,
        "INSERT INTO tool_states (alias, name, action, effect, enabled) VALUES ('demo', 'other', NULL, 'read', true)",
    )
    store.tools.enable("demo", "lookup", actor="ana")
    _refused(with_tools, "UPDATE tool_states SET action = NULL WHERE name = 'lookup'")


def test_r9_an_effect_other_than_read_or_write_is_refused(with_tools: str) -> None:
    _refused(
        with_tools,
        "INSERT INTO tool_states (alias, name, action, effect) VALUES ('demo', 'other', 'demo.other', 'admin')",
    )
    _refused(with_tools, "UPDATE tool_states SET effect = 'READ' WHERE name = 'lookup'")


def test_r9_a_tool_state_written_by_hand_starts_disabled_and_writing(with_tools: str) -> None:
    sql(with_tools, "INSERT INTO tool_states (alias, name) VALUES ('demo', 'other')")
    enabled, effect = sql(with_tools, "SELECT enabled, effect FROM tool_states WHERE name = 'other'")[0]
    assert not enabled and effect == "write"


def test_a_tool_state_needs_a_known_server(with_tools: str) -> None:
    _refused(with_tools, "INSERT INTO tool_states (alias, name) VALUES ('nobody', 'other')")


def test_the_store_knows_the_newest_migration() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == SCHEMA_HEAD


def test_the_migrations_create_exactly_the_tables_the_models_describe(store: Store, store_url: str) -> None:
    engine = connect_engine(parse_url(store_url))
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"version_table": ALEMBIC_VERSION_TABLE, "compare_type": True}
            )
            assert compare_metadata(context, metadata) == []
            inspector = inspect(connection)
            for table in metadata.sorted_tables:
                reflected = {check["name"] for check in inspector.get_check_constraints(table.name)}
                modelled = {
                    str(check.name) for check in table.constraints if isinstance(check, CheckConstraint)
                }
                assert reflected == modelled, table.name
    finally:
        engine.dispose()


def test_the_migrations_downgrade_to_nothing_and_upgrade_again(store: Store, store_url: str) -> None:
    store.tools.record_import("demo", [imported("lookup")], actor="ana")
    store.close()
    engine = connect_engine(parse_url(store_url))
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "base")
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) <= {ALEMBIC_VERSION_TABLE}
    finally:
        engine.dispose()
    with Store.open(store_url) as reopened:
        assert reopened.tools.tool_states() == []
        assert reopened.releases.current_release().number == 1
        reopened.tools.record_import("demo", [imported("lookup")], actor="ana")
        assert [state.name for state in reopened.tools.tool_states()] == ["lookup"]


def test_opening_an_existing_store_keeps_its_data(store: Store, store_url: str) -> None:
    store.tools.record_import("demo", [imported("lookup")], actor="ana")
    release = store.releases.current_release()
    with Store.open(store_url) as again:
        assert [state.name for state in again.tools.tool_states()] == ["lookup"]
        assert again.releases.current_release() == release
        assert again.audit.verify_audit().ok
