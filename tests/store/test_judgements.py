"""The screen judge's cache in the store: kept once per (definition hash, judge, rubric), on
SQLite and PostgreSQL, across reopening, and with its migration reversible."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import inspect

from toolpool.errors import UsageError
from toolpool.store import Store
from toolpool.store._engine import alembic_config, connect_engine, parse_url
from toolpool.vetting.judge import Judgement

HASH = "sha256:" + "c" * 64
WHEN = datetime(2026, 12, 5, 9, 30, tzinfo=UTC)


def test_a_judgement_is_kept_by_hash_judge_and_rubric(store: Store) -> None:
    assert store.judgements.judgement(HASH, "openai:m", "r1") is None
    store.judgements.remember(HASH, "openai:m", "r1", Judgement(True, ("mails ✉ notes out",), WHEN))
    assert store.judgements.judgement(HASH, "openai:m", "r1") == Judgement(True, ("mails ✉ notes out",), WHEN)
    assert store.judgements.judgement(HASH, "openai:other", "r1") is None
    assert store.judgements.judgement(HASH, "openai:m", "r2") is None


def test_the_first_judgement_of_a_key_is_kept_and_a_later_one_is_ignored(store: Store) -> None:
    store.judgements.remember(HASH, "openai:m", "r1", Judgement(False, (), WHEN))
    store.judgements.remember(HASH, "openai:m", "r1", Judgement(True, ("late",), WHEN))
    assert store.judgements.judgement(HASH, "openai:m", "r1") == Judgement(False, (), WHEN)


def test_a_judgement_survives_reopening_the_store(store: Store, store_url: str) -> None:
    store.judgements.remember(HASH, "openai:m", "r1", Judgement(True, ("x",), WHEN))
    with Store.open(store_url) as again:
        assert again.judgements.judgement(HASH, "openai:m", "r1") == Judgement(True, ("x",), WHEN)


@pytest.mark.parametrize(
    ("definition_hash", "judge"), [("md5:00", "openai:m"), (HASH, ""), (HASH, "x" * 201)]
)
def test_a_malformed_key_is_refused_before_anything_is_written(
    store: Store, definition_hash: str, judge: str
) -> None:
    with pytest.raises(UsageError):
        store.judgements.remember(definition_hash, judge, "r1", Judgement(True))


def test_the_judgements_migration_downgrades_and_upgrades_again(store: Store, store_url: str) -> None:
    store.judgements.remember(HASH, "openai:m", "r1", Judgement(True, ("x",), WHEN))
    store.close()
    engine = connect_engine(parse_url(store_url))
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0009")
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
        assert "screen_judgements" not in tables and "config_syncs" in tables
    finally:
        engine.dispose()
    with Store.open(store_url) as reopened:
        assert reopened.judgements.judgement(HASH, "openai:m", "r1") is None
        reopened.judgements.remember(HASH, "openai:m", "r1", Judgement(False, (), WHEN))
        assert reopened.judgements.judgement(HASH, "openai:m", "r1") == Judgement(False, (), WHEN)
