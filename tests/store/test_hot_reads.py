"""The store's hot reads (gate 3, the release number, bearer tokens) run on the event loop, so
on PostgreSQL one that a lock or a stuck server holds up fails after a bound instead of
holding the loop."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import create_engine, text

from toolpool.errors import UsageError
from toolpool.store import SecretKey, Store
from toolpool.store._engine import HOT_READ_TIMEOUT_S

from .conftest import postgres_schema


@pytest.mark.timeout(120)
def test_a_token_lookup_held_up_by_a_lock_on_postgresql_fails_after_its_bound(key: SecretKey) -> None:
    with postgres_schema() as url, Store.open(url, key=key) as store:
        token = store.tokens.add_token("ci", ["*"], ["*"], actor="ana")
        assert store.tokens.token_holder(token) is not None
        engine = create_engine(url)
        try:
            with engine.connect() as locker, locker.begin():
                locker.execute(text("LOCK TABLE tokens IN ACCESS EXCLUSIVE MODE"))
                started = time.monotonic()
                with pytest.raises(UsageError, match="failed"):
                    store.tokens.token_holder(token)
                waited = time.monotonic() - started
            assert store.tokens.token_holder(token) is not None  # the lock is gone: it answers again
        finally:
            engine.dispose()
    # It waited for the lock (one try and one retry on a new connection), then gave up.
    assert HOT_READ_TIMEOUT_S <= waited < 4 * HOT_READ_TIMEOUT_S
